package chain

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/axonhq/axon/sdk"
)

// personSchema is a strict schema of the kind clients send: an object with
// a required string and an integer.
const personSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name","age"],"additionalProperties":false}`

func outputRequest(o *sdk.Output) *sdk.Request {
	r := userRequest("who?")
	r.Output = o
	return r
}

func strictSchema(schema string) *sdk.Output {
	return &sdk.Output{Kind: sdk.OutputJSONSchema, Name: "person", Schema: json.RawMessage(schema), Strict: true}
}

// outputHop is a hop of an output test: its script and whether it
// guarantees a strict schema.
type outputHop struct {
	name   string
	output bool
	calls  [][]step
}

func runOutput(t *testing.T, req *sdk.Request, hops []outputHop, opts ...RunOption) (*Result, *recorder, error) {
	t.Helper()
	c := &Chain{Name: "default", Clock: newFakeClock(), Rand: fixedRand(0.5)}
	var provs []*scripted
	for _, h := range hops {
		p := &scripted{t: t, name: h.name, calls: h.calls}
		provs = append(provs, p)
		c.Hops = append(c.Hops, Hop{Name: h.name, Provider: p, Model: h.name + "-model", Output: h.output})
	}
	client := &recorder{}
	res, err := c.Run(context.Background(), req, client, nil, opts...)
	for i, p := range provs {
		if got, want := p.count(), len(hops[i].calls); got != want {
			t.Errorf("%s called %d times, want %d", p.name, got, want)
		}
	}
	return res, client, err
}

// TestStructuredOutput: a strict schema skips the hops that cannot
// guarantee it; every answer to a request with Output is checked, and one
// not of the asked form falls back like a permanent failure, never
// reaching the client.
func TestStructuredOutput(t *testing.T) {
	t.Parallel()
	good := `{"name":"Ada","age":36}`
	toolCall := sdk.Event{Type: sdk.EventToolCall, ToolCall: &sdk.ToolCall{ID: "c1", Name: "lookup", Input: json.RawMessage(`{"q":"Ada"}`)}}
	for _, tc := range []struct {
		name       string
		output     *sdk.Output
		hops       []outputHop
		opts       []RunOption
		wantTrail  string
		wantEvents []sdk.Event // nil: nothing reached the client
		wantCode   string      // the code of the failure Run returns; "" for success
	}{
		{
			name:   "strict: a hop that cannot guarantee the schema is skipped, never called",
			output: strictSchema(personSchema),
			hops: []outputHop{
				{name: "glm"},
				{name: "claude", output: true, calls: [][]step{answer("opus", good)}},
			},
			wantTrail:  "glm skipped(no_structured_output), claude#1 ok t=0ms",
			wantEvents: answerEvents("opus", good),
		},
		{
			name:      "strict: every hop skipped is the chain's exhausted error",
			output:    strictSchema(personSchema),
			hops:      []outputHop{{name: "glm"}, {name: "ollama"}},
			wantTrail: "glm skipped(no_structured_output), ollama skipped(no_structured_output)",
			wantCode:  CodeNoStructuredOutput,
		},
		{
			name:   "not strict: no hop is skipped, and the answer is still checked",
			output: &sdk.Output{Kind: sdk.OutputJSONSchema, Schema: json.RawMessage(personSchema)},
			hops: []outputHop{
				{name: "glm", calls: [][]step{answer("glm-4.6", `{"name":"Ada"}`)}},
				{name: "ollama", calls: [][]step{answer("qwen", good)}},
			},
			wantTrail:  "glm#1 fallback permanent/non_conforming_output t=0ms, ollama#1 ok t=0ms",
			wantEvents: answerEvents("qwen", good),
		},
		{
			name:   "an answer against the schema falls back at once, without a retry",
			output: strictSchema(personSchema),
			hops: []outputHop{
				{name: "claude", output: true, calls: [][]step{answer("opus", `{"name":"Ada","age":"old"}`)}},
				{name: "gpt", output: true, calls: [][]step{answer("gpt-5", good)}},
			},
			wantTrail:  "claude#1 fallback permanent/non_conforming_output t=0ms, gpt#1 ok t=0ms",
			wantEvents: answerEvents("gpt-5", good),
		},
		{
			name:   "an answer that is not JSON falls back",
			output: strictSchema(personSchema),
			hops: []outputHop{
				{name: "claude", output: true, calls: [][]step{answer("opus", "Here is the JSON: "+good)}},
				{name: "gpt", output: true, calls: [][]step{answer("gpt-5", good)}},
			},
			wantTrail:  "claude#1 fallback permanent/non_conforming_output t=0ms, gpt#1 ok t=0ms",
			wantEvents: answerEvents("gpt-5", good),
		},
		{
			name:   "JSON cut by max_tokens falls back",
			output: strictSchema(personSchema),
			hops: []outputHop{
				{name: "claude", output: true, calls: [][]step{{start("opus"), text(`{"name":"Ad`), finish(sdk.FinishLength)}}},
				{name: "gpt", output: true, calls: [][]step{answer("gpt-5", good)}},
			},
			wantTrail:  "claude#1 fallback permanent/non_conforming_output t=0ms, gpt#1 ok t=0ms",
			wantEvents: answerEvents("gpt-5", good),
		},
		{
			name:   "json (json_object): an array is not an object",
			output: &sdk.Output{Kind: sdk.OutputJSON},
			hops: []outputHop{
				{name: "glm", calls: [][]step{answer("glm-4.6", `[1,2]`)}},
				{name: "ollama", calls: [][]step{answer("qwen", `{"any":"thing"}`)}},
			},
			wantTrail:  "glm#1 fallback permanent/non_conforming_output t=0ms, ollama#1 ok t=0ms",
			wantEvents: answerEvents("qwen", `{"any":"thing"}`),
		},
		{
			name:   "every answer non-conforming: exhausted, the client sees none of them",
			output: strictSchema(personSchema),
			hops: []outputHop{
				{name: "claude", output: true, calls: [][]step{answer("opus", `{}`)}},
				{name: "gpt", output: true, calls: [][]step{answer("gpt-5", `{"name":1,"age":2}`)}},
			},
			wantTrail: "claude#1 fallback permanent/non_conforming_output t=0ms, gpt#1 fallback permanent/non_conforming_output t=0ms",
			wantCode:  CodeNonConforming,
		},
		{
			name:   "an answer that ends in tool calls is not the final text: not checked",
			output: strictSchema(personSchema),
			hops: []outputHop{
				{name: "claude", output: true, calls: [][]step{{start("opus"), send(toolCall), finish(sdk.FinishToolCalls)}}},
				{name: "gpt", output: true},
			},
			wantTrail: "claude#1 ok t=0ms",
			wantEvents: []sdk.Event{
				{Type: sdk.EventStart, Model: "opus"}, toolCall, {Type: sdk.EventFinish, Finish: sdk.FinishToolCalls},
			},
		},
		{
			name:   "an answer that outgrows what may be held back to check it falls back",
			output: strictSchema(personSchema),
			opts:   []RunOption{Buffered(int64(len(good)))},
			hops: []outputHop{
				{name: "claude", output: true, calls: [][]step{{start("opus"), text(good), text(" "), mustBeCanceled()}}},
				{name: "gpt", output: true, calls: [][]step{answer("gpt-5", good)}},
			},
			wantTrail:  "claude#1 fallback permanent/answer_too_large t=0ms, gpt#1 ok t=0ms",
			wantEvents: answerEvents("gpt-5", good),
		},
		{
			name:   "buffered: a conforming answer passes as it is",
			output: strictSchema(personSchema),
			opts:   []RunOption{Buffered(1 << 20)},
			hops: []outputHop{
				{name: "claude", output: true, calls: [][]step{{start("opus"), text(`{"name":`), text(`"Ada","age":36}`), usage(10, 2), finish(sdk.FinishStop)}}},
			},
			wantTrail: "claude#1 ok t=0ms",
			wantEvents: []sdk.Event{
				{Type: sdk.EventStart, Model: "opus"},
				{Type: sdk.EventTextDelta, Text: `{"name":`},
				{Type: sdk.EventTextDelta, Text: `"Ada","age":36}`},
				{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(10), OutputTokens: sdk.Tokens(2)}},
				{Type: sdk.EventFinish, Finish: sdk.FinishStop},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, client, err := runOutput(t, outputRequest(tc.output), tc.hops, tc.opts...)
			if got := res.Trail.String(); got != tc.wantTrail {
				t.Errorf("trail:\n got %s\nwant %s", got, tc.wantTrail)
			}
			if diff := cmp.Diff(tc.wantEvents, client.got(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("client events (-want +got):\n%s", diff)
			}
			if tc.wantCode == "" {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				return
			}
			var ee *ExhaustedError
			var se *sdk.Error
			if !errors.As(err, &ee) || !errors.As(err, &se) || se.Code != tc.wantCode || se.Class != sdk.ClassPermanent {
				t.Fatalf("Run error = %v, want an ExhaustedError whose last failure is permanent/%s", err, tc.wantCode)
			}
		})
	}
}

// TestStructuredOutputAllSkippedSays: when no hop can guarantee the schema,
// the error says so, in words a client is shown.
func TestStructuredOutputAllSkippedSays(t *testing.T) {
	t.Parallel()
	_, _, err := runOutput(t, outputRequest(strictSchema(personSchema)), []outputHop{{name: "glm"}})
	if err == nil || !strings.Contains(err.Error(), "no provider of the chain can guarantee the response schema") {
		t.Fatalf("error = %v, want it to say no provider can guarantee the schema", err)
	}
	if se := (*sdk.Error)(nil); !errors.As(err, &se) || se.Status != 400 {
		t.Errorf("error %v: want status 400, the front doors' invalid request", err)
	}
}

// TestStructuredOutputStreamingClient: a streaming client (no Buffered)
// gets nothing while the answer is being generated, then the whole
// checked answer; the commit callback runs once, before it.
func TestStructuredOutputStreamingClient(t *testing.T) {
	t.Parallel()
	client := &recorder{}
	var committed atomic.Int32
	quiet := func(context.Context, *sdk.Request, sdk.Sink) error {
		if n := len(client.got()); n != 0 {
			t.Errorf("the client got %d events before the answer was complete", n)
		}
		if committed.Load() != 0 {
			t.Error("the commit callback ran before the answer was complete")
		}
		return nil
	}
	bad := &scripted{t: t, name: "claude", calls: [][]step{{start("opus"), text(`{"name":"Ada",`), quiet, text(`"age":"x"}`), quiet, finish(sdk.FinishStop)}}}
	good := &scripted{t: t, name: "gpt", calls: [][]step{{start("gpt-5"), text(`{"name":"Ada",`), quiet, text(`"age":36}`), quiet, finish(sdk.FinishStop), quiet}}}
	c := &Chain{Name: "default", Clock: newFakeClock(), Hops: []Hop{
		{Name: "claude", Provider: bad, Output: true},
		{Name: "gpt", Provider: good, Output: true},
	}}
	res, err := c.Run(context.Background(), outputRequest(strictSchema(personSchema)), client, func(cm Commit) {
		committed.Add(1)
		if cm.Provider != "gpt" || len(client.got()) != 0 {
			t.Errorf("commit %q with %d events already sent, want gpt before any", cm.Provider, len(client.got()))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []sdk.Event{
		{Type: sdk.EventStart, Model: "gpt-5"},
		{Type: sdk.EventTextDelta, Text: `{"name":"Ada",`},
		{Type: sdk.EventTextDelta, Text: `"age":36}`},
		{Type: sdk.EventFinish, Finish: sdk.FinishStop},
	}
	if diff := cmp.Diff(want, client.got()); diff != "" {
		t.Errorf("client events (-want +got):\n%s", diff)
	}
	if got, want := res.Trail.String(), "claude#1 fallback permanent/non_conforming_output t=0ms, gpt#1 ok t=0ms"; got != want {
		t.Errorf("trail %s, want %s", got, want)
	}
	if committed.Load() != 1 || res.Provider != "gpt" {
		t.Errorf("commits %d, provider %q; want 1, gpt", committed.Load(), res.Provider)
	}
}

// TestStructuredOutputInvalidSchema: a schema that does not compile is the
// request's error (status 400: the front door's invalid request); no hop
// is called.
func TestStructuredOutputInvalidSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		output *sdk.Output
	}{
		{"a type that is not a type name", strictSchema(`{"type":5}`)},
		{"a required list that is not a list", strictSchema(`{"type":"object","required":"name"}`)},
		{"a $ref to nowhere", strictSchema(`{"$ref":"#/$defs/missing"}`)},
		{"a remote $ref is never fetched", strictSchema(`{"$ref":"https://example.com/person.json"}`)},
		{"a draft the validator does not know", strictSchema(`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`)},
		{"no schema", &sdk.Output{Kind: sdk.OutputJSONSchema}},
		{"an unknown kind", &sdk.Output{Kind: "yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, client, err := runOutput(t, outputRequest(tc.output), []outputHop{{name: "claude", output: true}})
			var ee *ExhaustedError
			var se *sdk.Error
			if !errors.As(err, &ee) || !errors.As(err, &se) || se.Code != CodeInvalidSchema || se.Status != 400 || se.Class != sdk.ClassPermanent {
				t.Fatalf("Run error = %v, want an ExhaustedError of permanent/400/invalid_schema", err)
			}
			if len(res.Trail) != 0 || len(client.got()) != 0 {
				t.Errorf("trail %q, %d client events: want neither", res.Trail, len(client.got()))
			}
		})
	}
}

// TestStructuredOutputAsksOutputFuncOnlyWhenStrict: the hop's lazy Info is
// read for a strict request only, and its answer decides.
func TestStructuredOutputAsksOutputFuncOnlyWhenStrict(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	p := &scripted{t: t, name: "claude", calls: [][]step{answer("opus", "free text"), answer("opus", `{"name":"Ada","age":36}`)}}
	c := &Chain{Name: "default", Clock: newFakeClock(), Hops: []Hop{{Name: "claude", Provider: p, OutputFunc: func(context.Context) bool {
		asked.Add(1)
		return true
	}}}}
	if _, err := c.Run(context.Background(), userRequest("hi"), &recorder{}, nil); err != nil {
		t.Fatal(err)
	}
	if asked.Load() != 0 {
		t.Errorf("OutputFunc asked %d times for a request without Output", asked.Load())
	}
	res, err := c.Run(context.Background(), outputRequest(strictSchema(personSchema)), &recorder{}, nil)
	if err != nil || asked.Load() != 1 || res.Trail.String() != "claude#1 ok t=0ms" {
		t.Errorf("strict Run: err %v, OutputFunc asked %d times, trail %s; want nil, 1, claude#1 ok", err, asked.Load(), res.Trail)
	}
}
