package api

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/axonhq/axon/sdk"
)

// Fidelity: every field of a request is decoded into the canonical request,
// refused, or listed as ignored (README.md, "Fidelity"). The decoders read
// the fields they translate into structs; the walk here sees every
// top-level key, so a field no struct names is never dropped without a
// word. It allocates only for the names it lists.

// maxIgnored bounds the names listed in x-axon-ignored: a body of a
// million unknown keys must not become a header of megabytes.
const maxIgnored = 32

// ignoredList collects the JSON paths of the fields a request sent that
// change nothing axon does, for the x-axon-ignored header and the log.
type ignoredList struct {
	names []string
	more  bool
}

// add lists path, then key when it is not empty (path.key).
func (l *ignoredList) add(path string, key []byte) {
	if len(l.names) == maxIgnored {
		l.more = true
		return
	}
	var b strings.Builder
	b.Grow(len(path) + 1 + len(key))
	b.WriteString(path)
	if len(key) > 0 {
		if path != "" {
			b.WriteByte('.')
		}
		writeHeaderSafe(&b, key)
	}
	l.names = append(l.names, b.String())
}

// header is the x-axon-ignored value: the paths, comma-separated, and
// "..." when there were more than maxIgnored.
func (l *ignoredList) header() string {
	if len(l.names) == 0 {
		return ""
	}
	s := strings.Join(l.names, ",")
	if l.more {
		s += ",..."
	}
	return s
}

// writeHeaderSafe writes a key as it may appear in a header value: at most
// 64 bytes, printable ASCII other than the comma the list is separated by
// ('?' in their place). Keys are the client's own bytes.
func writeHeaderSafe(b *strings.Builder, key []byte) {
	if len(key) > 64 {
		key = key[:64]
	}
	for _, c := range key {
		if c < 0x21 || c > 0x7e || c == ',' {
			c = '?'
		}
		b.WriteByte(c)
	}
}

// members calls fn with the key (the bytes between its quotes) and the raw
// value of each member of the JSON object b, in order. b has been checked
// as JSON already (decodeBody); a value that is no object has no members.
func members(b []byte, fn func(key, value []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] == '}' {
			return nil
		}
		if b[i] == ',' {
			i++
			continue
		}
		end := stringEnd(b, i)
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ':' {
			i++
		}
		i = skipSpace(b, i)
		vend := valueEnd(b, i)
		if err := fn(key, b[i:vend]); err != nil {
			return err
		}
		i = vend
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the JSON string starting at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the JSON value starting at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \t\n\r", rune(b[j])) {
		j++
	}
	return j
}

// unset reports whether a raw value sent changes nothing: null, false, 0,
// "", {} or [] (the defaults clients send for knobs they do not use).
func unset(v []byte) bool {
	switch string(bytes.TrimSpace(v)) {
	case "", "null", "false", "0", "0.0", `""`, "{}", "[]":
		return true
	}
	return false
}

// ignoreKeys lists every member of the object v under path, except those
// keep names.
func ignoreKeys(l *ignoredList, path string, v []byte, keep func(key string) bool) {
	_ = members(v, func(key, value []byte) error {
		if !keep(string(key)) && !unset(value) {
			l.add(path, key)
		}
		return nil
	})
}

// cacheControlKeys are a cache_control object's.
var cacheControlKeys = keys{"type": nil, "ttl": nil}

// cacheControl is an Anthropic prompt-cache breakpoint, also accepted on
// OpenAI content parts (the OpenRouter convention).
type cacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl"`
}

// cacheOf translates the cache_control object of the block (or tool) at
// path; the field's path is built only for an error, off the hot path.
func cacheOf(path string, c *cacheControl) (sdk.Cache, error) {
	if c == nil {
		return sdk.CacheNone, nil
	}
	param := path + ".cache_control"
	if c.Type != "ephemeral" {
		return sdk.CacheNone, unsupportedf(param+".type", `%q is not supported: only "ephemeral"`, c.Type)
	}
	switch c.TTL {
	case "":
		return sdk.CacheDefault, nil
	case "5m":
		return sdk.Cache5m, nil
	case "1h":
		return sdk.Cache1h, nil
	}
	return sdk.CacheNone, invalidf(param+".ttl", `unknown ttl %q: want "5m" or "1h"`, c.TTL)
}

// outputSchema checks the JSON Schema of a structured-output request.
func outputSchema(param string, raw json.RawMessage) (json.RawMessage, error) {
	if absent(raw) {
		return nil, missing(param)
	}
	return schema(param, raw)
}

// keys names the members of a JSON object a decoder reads, each with the
// keys of its value when the walk goes into it (nil: the value is read
// whole: a string, number, schema or opaque object). A name ending in []
// holds an array (or, like a message's content, a string or an array):
// its elements are walked with the keys given.
type keys map[string]keys

// shape is keys compiled for the walk: each object knows its path in the
// request as x-axon-ignored lists it, [] standing for any array index
// ("messages[].content[].detail"), so the walk itself allocates nothing.
type shape struct {
	path    string
	members map[string]*shape // a nil *shape: known, read whole
}

// compile turns k, the keys of the objects at path, into a shape.
func compile(path string, k keys) *shape {
	s := &shape{path: path, members: make(map[string]*shape, len(k))}
	for key, sub := range k {
		name, list := strings.CutSuffix(key, "[]")
		if sub == nil {
			s.members[name] = nil
			continue
		}
		child := name
		if path != "" {
			child = path + "." + name
		}
		if list {
			child += "[]"
		}
		s.members[name] = compile(child, sub)
	}
	return s
}

// ignoreNested lists every member no decoder reads of the objects in v,
// the value of one member of s's parent, recursively, once per path.
// s nil (a member read whole) lists nothing.
func ignoreNested(l *ignoredList, v []byte, s *shape) {
	if s == nil {
		return
	}
	i := skipSpace(v, 0)
	if i >= len(v) {
		return
	}
	switch v[i] {
	case '[':
		elements(v[i:], func(e []byte) { ignoreNested(l, e, s) })
	case '{':
		_ = members(v[i:], func(key, value []byte) error {
			sub, known := s.members[string(key)]
			switch {
			case known:
				ignoreNested(l, value, sub)
			case !unset(value) && !l.has(s.path, key):
				l.add(s.path, key)
			}
			return nil
		})
	}
}

// elements calls fn with the raw value of each element of the JSON array b.
func elements(b []byte, fn func(value []byte)) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] == ']' {
			return
		}
		if b[i] == ',' {
			i++
			continue
		}
		end := valueEnd(b, i)
		if end == i { // not JSON: decodeBody has refused it already
			return
		}
		fn(b[i:end])
		i = end
	}
}

// has reports whether path.key is listed already, comparing key as add
// writes it.
func (l *ignoredList) has(path string, key []byte) bool {
	for _, n := range l.names {
		rest, ok := strings.CutPrefix(n, path)
		if !ok {
			continue
		}
		if path != "" {
			if rest, ok = strings.CutPrefix(rest, "."); !ok {
				continue
			}
		}
		if headerSafeEqual(rest, key) {
			return true
		}
	}
	return false
}

// headerSafeEqual reports whether s is key as writeHeaderSafe writes it.
func headerSafeEqual(s string, key []byte) bool {
	if len(key) > 64 {
		key = key[:64]
	}
	if len(s) != len(key) {
		return false
	}
	for i, c := range key {
		if c < 0x21 || c > 0x7e || c == ',' {
			c = '?'
		}
		if s[i] != c {
			return false
		}
	}
	return true
}

// withUnrendered is the x-axon-ignored value ignored with the options the
// answering provider does not render added, each named as the client's
// field that set it.
func withUnrendered(ignored string, d dialect, options []string) string {
	var b strings.Builder
	b.WriteString(ignored)
	for _, o := range options {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(optionField(d, o))
	}
	return b.String()
}

// optionField is the request field of d's wire format that sets option o,
// or that asks for feature o (an sdk.Lack* name).
func optionField(d dialect, o string) string {
	_, anthropic := d.(anthropicDialect)
	_, responses := d.(responsesDialect)
	switch {
	case o == sdk.LackForcedToolChoice:
		return "tool_choice"
	case o == sdk.LackCacheBreakpoints:
		return "cache_control"
	case o == sdk.LackSequential && anthropic:
		return "tool_choice.disable_parallel_tool_use"
	case o == sdk.LackSequential:
		return "parallel_tool_calls"
	case o == "thinking_budget" && anthropic:
		return "thinking"
	case o == "reasoning_effort" && responses:
		return "reasoning.effort"
	}
	return o
}
