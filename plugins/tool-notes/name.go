package main

import (
	"fmt"
	"regexp"
)

const (
	defaultNote = "notes"
	noteExt     = ".md"
)

// nameRE is the whole of what a model may put in a file name: no dot, no
// separator, nothing outside ASCII, so no name can leave dir, hide a file or
// collide with the .applied index.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// noteFile validates a note name (empty means the default note) and returns
// its file name inside dir.
func noteFile(name string) (string, string, error) {
	if name == "" {
		name = defaultNote
	}
	if !nameRE.MatchString(name) {
		return "", "", fmt.Errorf("invalid note name %q: use 1 to 64 ASCII letters, digits, '_' or '-'", name)
	}
	return name, name + noteExt, nil
}
