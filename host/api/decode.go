package api

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/axonhq/axon/sdk"
)

// Helpers shared by the two request decoders.

// absent reports whether a raw JSON field was left out or set to null.
func absent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// decodeBody parses a request body into v, with a clear message for the
// usual mistakes.
func decodeBody(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return &wireError{kind: kindInvalid, code: "invalid_json", message: "the request body is empty: send a JSON object"}
	}
	if n := jsonValues(body); n > MaxRequestValues {
		return &wireError{kind: kindInvalid, code: "request_too_complex",
			message: fmt.Sprintf("the request holds %d JSON values, more than the %d the front door decodes (messages, content blocks, tool inputs and schemas together)", n, MaxRequestValues)}
	}
	if err := json.Unmarshal(body, v); err != nil {
		if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
			return invalidf(te.Field, "want %s, got JSON %s", te.Type, te.Value)
		}
		return invalidJSON(err)
	}
	return nil
}

// MaxRequestValues bounds the JSON values (objects, arrays, their members
// and elements) of one request body. Decoding turns each small value into
// a Go struct of up to a few hundred bytes: a 16 MiB body of "{}," allocated
// about 6 GB before this bound. 500 000 is far above any real conversation.
const MaxRequestValues = 500_000

// jsonValues counts the values of a JSON document cheaply, without
// decoding it: every container opened and every separator outside a
// string. An invalid document is counted all the same (the decoder then
// refuses it).
func jsonValues(b []byte) int {
	n, inString, escaped := 1, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[' || c == ',':
			n++
		}
	}
	return n
}

// textOr is a field that holds a string or a list of T (message content,
// a system prompt), decoded straight from the request body. It keeps no
// copy of the field's bytes, as a json.RawMessage would until the field was
// decoded a second time: for a large message that copy was a whole extra
// body in memory. A malformed value is recorded, not returned, so the
// caller can report it with the field's path.
type textOr[T any] struct {
	set    bool // present and not null
	isText bool
	text   string
	list   []T
	bad    bool // neither a string nor a list of T
}

func (f *textOr[T]) UnmarshalJSON(b []byte) error {
	switch {
	case string(b) == "null":
	case len(b) > 0 && b[0] == '"':
		f.set, f.isText = true, true
		f.bad = json.Unmarshal(b, &f.text) != nil
	default:
		f.set = true
		f.bad = json.Unmarshal(b, &f.list) != nil
	}
	return nil
}

// decodeField parses one raw field into v.
func decodeField(param string, raw json.RawMessage, v any, want string) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidf(param, "want %s", want)
	}
	return nil
}

// base64Image decodes an inline image. Standard base64 with or without
// padding is accepted, and URL-safe base64 too, since clients differ.
func base64Image(param, mediaType, data string) (sdk.Image, error) {
	data = strings.TrimSpace(data)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(data); err == nil {
			return sdk.Image{MediaType: mediaType, Data: b}, nil
		}
	}
	return sdk.Image{}, invalidf(param, "the image data is not valid base64")
}

// base64Text is a JSON string holding base64 data: an image's data. The
// data is decoded from the request body's bytes while the body is parsed,
// so the base64 text is never also held as a string. A value with JSON
// escapes, or one that is not valid base64, is kept as its string instead,
// for the string path (base64Image) to decode or refuse as it always has.
type base64Text struct {
	s    string // the value, unless decoded here
	data []byte // the decoded data, when decoded here
	raw  []byte // the value's bytes in the body, when decoded here: the text of a text document that happens to be valid base64
	done bool
}

func (t *base64Text) UnmarshalJSON(b []byte) error {
	if raw, ok := plainJSONString(b); ok {
		if data, ok := decodeBase64(bytes.TrimSpace(raw)); ok {
			t.data, t.raw, t.done = data, raw, true
			return nil
		}
	}
	return json.Unmarshal(b, &t.s)
}

// text is the value as a string, not decoded.
func (t *base64Text) text() string {
	if t.done {
		return string(t.raw)
	}
	return t.s
}

// dataOrURL is a JSON string holding a URL, perhaps a data URL whose
// payload is decoded here from the body's bytes, as base64Text does.
type dataOrURL struct {
	s         string // the URL, unless its payload was decoded here
	mediaType string // of a data URL decoded here
	data      []byte
	done      bool
}

func (u *dataOrURL) UnmarshalJSON(b []byte) error {
	if raw, ok := plainJSONString(b); ok {
		if rest, ok := bytes.CutPrefix(raw, []byte("data:")); ok {
			head, payload, _ := bytes.Cut(rest, []byte(","))
			if mediaType, isBase64 := bytes.CutSuffix(head, []byte(";base64")); isBase64 && utf8.Valid(mediaType) {
				if data, ok := decodeBase64(bytes.TrimSpace(payload)); ok {
					u.mediaType, u.data, u.done = string(mediaType), data, true
					return nil
				}
			}
		}
	}
	return json.Unmarshal(b, &u.s)
}

// plainJSONString returns the bytes inside a JSON string literal that has
// no escapes: they are then exactly the string's bytes. The decoder has
// checked the whole body first, so b is well-formed JSON.
func plainJSONString(b []byte) ([]byte, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' || bytes.IndexByte(b, '\\') >= 0 {
		return nil, false
	}
	return b[1 : len(b)-1], true
}

// decodeBase64 decodes src into a new buffer with the encodings
// base64Image accepts, in the same order.
func decodeBase64(src []byte) ([]byte, bool) {
	dst := make([]byte, max(base64.StdEncoding.DecodedLen(len(src)), base64.RawStdEncoding.DecodedLen(len(src))))
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if n, err := enc.Decode(dst, src); err == nil {
			return dst[:n:n], true
		}
	}
	return nil, false
}

// dataURLImage decodes a "data:image/png;base64,...." URL.
func dataURLImage(param, url string) (sdk.Image, error) {
	head, data, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ",")
	mediaType, isBase64 := strings.CutSuffix(head, ";base64")
	if !ok || !isBase64 {
		return sdk.Image{}, invalidf(param, "a data URL must look like data:<media type>;base64,<data>")
	}
	return base64Image(param, mediaType, data)
}

// remoteImage accepts an http(s) image URL, which providers fetch themselves.
func remoteImage(param, url string) (sdk.Image, error) {
	if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
		return sdk.Image{}, invalidf(param, "want an http(s) URL or a data URL")
	}
	return sdk.Image{URL: url}, nil
}

// toolInput checks a tool call's input from the conversation history: a
// JSON object, "{}" when empty.
func toolInput(param string, raw []byte) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return json.RawMessage(`{}`), nil
	}
	if !json.Valid(raw) || raw[0] != '{' {
		return nil, invalidf(param, "want a JSON object, got %s", abbreviate(raw))
	}
	return json.RawMessage(raw), nil
}

// schema checks a tool's JSON Schema: absent, or a JSON object.
func schema(param string, raw json.RawMessage) (json.RawMessage, error) {
	if absent(raw) {
		return nil, nil
	}
	raw = bytes.TrimSpace(raw)
	if raw[0] != '{' {
		return nil, invalidf(param, "want a JSON Schema object")
	}
	return raw, nil
}

// setOption puts a client knob into the request's Options when it was
// sent, for the provider plugins that know it.
func setOption(req *sdk.Request, name string, raw json.RawMessage) {
	if absent(raw) {
		return
	}
	if req.Options == nil {
		req.Options = map[string]json.RawMessage{}
	}
	req.Options[name] = bytes.TrimSpace(raw)
}

// abbreviate quotes at most 40 bytes of b for an error message.
func abbreviate(b []byte) string {
	if len(b) > 40 {
		return fmt.Sprintf("%q...", b[:40])
	}
	return fmt.Sprintf("%q", b)
}

// toolNames maps the ids of the tool calls in the conversation so far to
// their tool names, so a result can name the tool it answers (some wire
// formats want the name), and a result answering no call is refused: a
// provider would either reject it or answer a call that was never made.
type toolNames map[string]string

func (n toolNames) has(id string) bool {
	_, ok := n[id]
	return ok
}

func (n toolNames) add(id, name string) {
	if id != "" {
		n[id] = name
	}
}
