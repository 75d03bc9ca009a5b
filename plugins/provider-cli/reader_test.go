package main

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

func mustPath(t *testing.T, src string) *jsonPath {
	t.Helper()
	p, err := compilePath(src)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// claudeStream is a Claude Code stream-json run as its documentation shows
// it, with a line that is not JSON among them.
const claudeStream = `{"type":"system","subtype":"init","model":"claude-sonnet-4-5"}
{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hm"}]}}
{"type":"assistant","message":{"content":[{"type":"text","text":"Hello"}]}}
warning: not json

{"type":"assistant","message":{"content":[{"type":"text","text":", world"}]}}
{"type":"result","subtype":"success","is_error":false,"result":"Hello, world","usage":{"input_tokens":3,"output_tokens":4}}`

func jsonlSettings(t *testing.T) *settings {
	return &settings{
		parse:     parseJSONL,
		text:      mustPath(t, "[type=assistant].message.content.*[type=text].text"),
		result:    mustPath(t, "[type=result].result"),
		errFlag:   mustPath(t, "[type=result].is_error"),
		inTokens:  mustPath(t, "usage.input_tokens"),
		outTokens: mustPath(t, "usage.output_tokens"),
		quotaRE:   []*regexp.Regexp{regexp.MustCompile(`limit`)},
	}
}

// readAll feeds body to a reader in the pieces split gives, then ends it.
func readAll(t *testing.T, s *settings, pieces []string) ([]sdk.Event, reply, error) {
	t.Helper()
	var rec sdktest.Recorder
	st := sdk.NewStream(&rec, "m")
	rd := newReader(s, st)
	ctx := context.Background()
	for _, p := range pieces {
		if err := rd.feed(ctx, []byte(p)); err != nil {
			return rec.Events(), reply{}, err
		}
	}
	if err := rd.end(ctx); err != nil {
		return rec.Events(), reply{}, err
	}
	rep := rd.finish()
	if err := st.Text(ctx, rep.text); err != nil {
		return rec.Events(), rep, err
	}
	if err := st.Finish(ctx, sdk.FinishStop); err != nil {
		return rec.Events(), rep, err
	}
	return rec.Events(), rep, nil
}

func bytewise(s string) []string {
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[i : i+1]
	}
	return out
}

// TestReadJSONL: deltas whatever the reads' boundaries, a line that is not
// JSON counted as skipped, usage from the result line, and the result text
// not sent again after deltas.
func TestReadJSONL(t *testing.T) {
	t.Parallel()
	want := []sdk.Event{
		{Type: sdk.EventStart, Model: "m"},
		{Type: sdk.EventTextDelta, Text: "Hello"},
		{Type: sdk.EventTextDelta, Text: ", world"},
		{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(3), OutputTokens: sdk.Tokens(4)}},
		{Type: sdk.EventFinish, Finish: sdk.FinishStop, Skipped: 1},
	}
	for name, pieces := range map[string][]string{
		"whole":          {claudeStream},
		"byte by byte":   bytewise(claudeStream),
		"crlf":           {strings.ReplaceAll(claudeStream, "\n", "\r\n")},
		"final newline":  {claudeStream + "\n"},
		"lines in reads": strings.SplitAfter(claudeStream, "\n"),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			events, rep, err := readAll(t, jsonlSettings(t), pieces)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if diff := cmp.Diff(want, events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if rep.text != "" || rep.reported {
				t.Errorf("reply %+v: want nothing more to send", rep)
			}
		})
	}
}

func TestReadJSONLErrorLine(t *testing.T) {
	t.Parallel()
	body := `{"type":"result","is_error":true,"result":"Claude AI usage limit reached|1767225600","usage":{"input_tokens":9}}`
	events, rep, _ := readAll(t, jsonlSettings(t), []string{body})
	if countType(events, sdk.EventTextDelta) != 0 {
		t.Errorf("an error line's text was sent: %v", events)
	}
	if !rep.reported || rep.errText != "Claude AI usage limit reached|1767225600" {
		t.Errorf("reply %+v: want the reported error and its text", rep)
	}
}

func TestReadJSONLLineLimit(t *testing.T) {
	t.Parallel()
	_, _, err := readAll(t, jsonlSettings(t), []string{`{"a":"`, strings.Repeat("x", maxLine)})
	if !errors.Is(err, sdk.ErrEventTooLarge) {
		t.Errorf("read: %v, want event_too_large", err)
	}
	// Many lines, each within the limit, are not a long line.
	var many []string
	for range 3 * maxLine / 1000 {
		many = append(many, `{"type":"noise","pad":"`+strings.Repeat("p", 980)+`"}`+"\n")
	}
	many = append(many, `{"type":"result","result":"ok"}`)
	if _, rep, err := readAll(t, jsonlSettings(t), many); err != nil || rep.text != "ok" {
		t.Errorf("read: %v, %+v; want the result", err, rep)
	}
}

func TestReadWhole(t *testing.T) {
	t.Parallel()
	js := &settings{parse: parseJSON, text: mustPath(t, "response"), errFlag: mustPath(t, "error.message"),
		inTokens: mustPath(t, "stats.models.*.tokens.prompt")}
	for _, c := range []struct {
		name string
		s    *settings
		out  string
		want reply
	}{
		{"text: one final newline dropped", &settings{parse: parseText}, "answer\n\n", reply{text: "answer\n"}},
		{"text: crlf dropped", &settings{parse: parseText}, "answer\r\n", reply{text: "answer"}},
		{"text: invalid UTF-8 replaced", &settings{parse: parseText}, "a\xffb", reply{text: "a\uFFFDb"}},
		{"json: the answer", js, ` {"response":"Paris.","stats":{"models":{"g":{"tokens":{"prompt":7}}}}}` + "\n", reply{text: "Paris."}},
		{"json: an error", js, `{"response":"","error":{"type":"ApiError","message":"RESOURCE_EXHAUSTED"}}`, reply{reported: true, errText: "RESOURCE_EXHAUSTED"}},
		{"json: not JSON", js, "Loaded cached credentials.\n{}", reply{badJSON: true}},
		{"json: not an object", js, `["a"]`, reply{badJSON: true}},
		{"json: empty", js, "", reply{badJSON: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var rec sdktest.Recorder
			rd := newReader(c.s, sdk.NewStream(&rec, "m"))
			for _, b := range bytewise(c.out) {
				if err := rd.feed(context.Background(), []byte(b)); err != nil {
					t.Fatal(err)
				}
			}
			got := rd.finish()
			if diff := cmp.Diff(c.want, got, cmp.AllowUnexported(reply{})); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
			if len(rec.Events()) != 0 {
				t.Errorf("sent %v before the end", rec.Events())
			}
		})
	}
}
