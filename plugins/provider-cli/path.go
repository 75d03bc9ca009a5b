package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// jsonPath is a compiled path into a decoded JSON value (the *_path
// attributes). The language is small on purpose:
//
//	path   = step *( "." step )
//	step   = [ key | "*" ] *filter      (a step needs a key, a "*" or a filter)
//	filter = "[" name "=" value "]" | "[" name "!=" value "]"
//
// A key selects an object's member; a key of digits also selects an array's
// element by index (message.content.0.text). "*" selects every element of
// an array, in order, or every member of an object, in key order. A filter
// keeps only objects whose member name equals value ("=") or does not
// ("!=": an absent member also passes); a member that is a string is
// compared with value as it is, any other with its JSON text (true, 3, null).
// A step of filters alone tests the value the step starts from, so
// [type=result].result reads result only from an object whose type is
// "result". Values may hold dots ([type=item.completed]); keys may not, nor
// "[", "]", "=" or "*".
//
// A path may select several values (through "*"): strings are
// concatenated, numbers summed, and a flag is set when any is true or a
// non-empty string.
type jsonPath struct {
	src   string
	steps []pathStep
}

type pathStep struct {
	key     string // "" with only filters
	all     bool   // "*"
	filters []pathFilter
}

type pathFilter struct {
	name, value string
	not         bool
}

// compilePath parses src; "" compiles to the nil path, which selects
// nothing.
func compilePath(src string) (*jsonPath, error) {
	if src == "" {
		return nil, nil
	}
	p := &jsonPath{src: src}
	rest := src
	for {
		step, tail, err := parseStep(rest)
		if err != nil {
			return nil, fmt.Errorf("path %q: %v", src, err)
		}
		p.steps = append(p.steps, step)
		if tail == "" {
			return p, nil
		}
		if tail[0] != '.' {
			return nil, fmt.Errorf("path %q: unexpected %q", src, tail[:1])
		}
		rest = tail[1:]
	}
}

// parseStep reads one step from the front of s and returns what follows it.
func parseStep(s string) (pathStep, string, error) {
	var st pathStep
	end := strings.IndexAny(s, ".[")
	if end < 0 {
		end = len(s)
	}
	key := s[:end]
	if strings.ContainsAny(key, "]=") || (strings.Contains(key, "*") && key != "*") {
		return st, "", fmt.Errorf("bad key %q", key)
	}
	if key == "*" {
		st.all = true
	} else {
		st.key = key
	}
	s = s[end:]
	for len(s) > 0 && s[0] == '[' {
		closing := strings.IndexByte(s, ']')
		if closing < 0 {
			return st, "", fmt.Errorf("unclosed [")
		}
		body := s[1:closing]
		f := pathFilter{}
		name, value, ok := strings.Cut(body, "=")
		if !ok {
			return st, "", fmt.Errorf("filter [%s]: want [name=value] or [name!=value]", body)
		}
		if n, isNot := strings.CutSuffix(name, "!"); isNot {
			name, f.not = n, true
		}
		if name == "" || strings.ContainsAny(name, ".[*") {
			return st, "", fmt.Errorf("filter [%s]: bad member name", body)
		}
		f.name, f.value = name, value
		st.filters = append(st.filters, f)
		s = s[closing+1:]
	}
	if key == "" && len(st.filters) == 0 {
		return st, "", fmt.Errorf("empty step")
	}
	return st, s, nil
}

func (p *jsonPath) String() string {
	if p == nil {
		return ""
	}
	return p.src
}

// selectValues returns every value p selects in doc (decoded with
// UseNumber), in document order.
func (p *jsonPath) selectValues(doc any) []any {
	if p == nil {
		return nil
	}
	cur := []any{doc}
	for _, st := range p.steps {
		var next []any
		for _, v := range cur {
			for _, c := range st.children(v) {
				if st.keep(c) {
					next = append(next, c)
				}
			}
		}
		if len(next) == 0 {
			return nil
		}
		cur = next
	}
	return cur
}

func (st pathStep) children(v any) []any {
	switch {
	case st.all:
		switch t := v.(type) {
		case []any:
			return t
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			out := make([]any, len(keys))
			for i, k := range keys {
				out[i] = t[k]
			}
			return out
		}
		return nil
	case st.key == "":
		return []any{v}
	}
	switch t := v.(type) {
	case map[string]any:
		if c, ok := t[st.key]; ok {
			return []any{c}
		}
	case []any:
		if i, err := strconv.Atoi(st.key); err == nil && i >= 0 && i < len(t) && st.key == strconv.Itoa(i) {
			return []any{t[i]}
		}
	}
	return nil
}

func (st pathStep) keep(v any) bool {
	if len(st.filters) == 0 {
		return true
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, f := range st.filters {
		m, present := obj[f.name]
		eq := present && literal(m) == f.value
		if eq == f.not {
			return false
		}
	}
	return true
}

// literal is the text a filter compares: a string as it is, anything else
// as JSON.
func literal(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// text concatenates the strings p selects; ok is false when it selects none.
func (p *jsonPath) text(doc any) (s string, ok bool) {
	var b strings.Builder
	for _, v := range p.selectValues(doc) {
		if t, isStr := v.(string); isStr {
			b.WriteString(t)
			ok = true
		}
	}
	return b.String(), ok
}

// count sums the non-negative whole numbers p selects; ok is false when it
// selects none.
func (p *jsonPath) count(doc any) (n int64, ok bool) {
	for _, v := range p.selectValues(doc) {
		num, isNum := v.(json.Number)
		if !isNum {
			continue
		}
		i, err := num.Int64()
		if err != nil {
			f, ferr := num.Float64()
			if ferr != nil || f != float64(int64(f)) {
				continue
			}
			i = int64(f)
		}
		if i < 0 {
			continue
		}
		n, ok = n+i, true
	}
	return n, ok
}

// flag reports whether p selects true or a non-empty string, with the
// first such string as the message.
func (p *jsonPath) flag(doc any) (set bool, msg string) {
	for _, v := range p.selectValues(doc) {
		switch t := v.(type) {
		case bool:
			set = set || t
		case string:
			if t != "" {
				if msg == "" {
					msg = t
				}
				set = true
			}
		}
	}
	return set, msg
}

// decodeJSON decodes b keeping numbers exact.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}
