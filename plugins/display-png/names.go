package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/axonhq/axon/sdk"
)

// latestName is the file every frame replaces when keep_all is off.
const latestName = "latest.png"

var framePattern = regexp.MustCompile(`^frame-([0-9]{6,})-[a-z0-9_]+\.png$`)

// frameName is the file of the seq-th frame when keep_all is on:
// frame-000001-thinking.png.
func frameName(seq int, e sdk.Expression) string {
	return fmt.Sprintf("frame-%06d-%s.png", seq, slug(e))
}

// slug keeps an expression safe as part of a file name: lowercase
// [a-z0-9_], anything else becomes "_", and an empty one "none".
func slug(e sdk.Expression) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return '_'
	}, string(e))
	if s == "" {
		return "none"
	}
	return s
}

// lastFrame returns the highest frame number already in dir, 0 when none.
func lastFrame(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	last := 0
	for _, e := range entries {
		m := framePattern.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if n, err := strconv.Atoi(m[1]); err == nil && n > last {
			last = n
		}
	}
	return last, nil
}
