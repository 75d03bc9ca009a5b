package main

// End-to-end: the official Anthropic Go SDK, unchanged, against a real
// `axon serve` process with real provider plugin processes, whose upstreams
// are scripted httptest servers in the OpenAI chat-completions and Anthropic
// Messages wire formats.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
)

// Provider blocks for axon.hcl. Each carries the credential, which axon
// injects on the way to the upstream.

func openaiProvider(name string, u *upstream) string {
	return fmt.Sprintf(`provider %q {
  plugin     = "openai"
  base_url   = "%s/v1"
  model      = "gpt-test"
  credential = env(%q)
}
`, name, u.URL, upstreamKeyEnv)
}

func anthropicProvider(name string, u *upstream) string {
	return fmt.Sprintf(`provider %q {
  plugin     = "anthropic"
  base_url   = %q
  model      = "claude-test"
  credential = env(%q)
  auth {
    scheme = "header"
    name   = "x-api-key"
  }
}
`, name, u.URL, upstreamKeyEnv)
}

// defaultChain is chain "default" over the named providers, in order.
func defaultChain(providers ...string) string {
	refs := make([]string, len(providers))
	for i, p := range providers {
		refs[i] = "provider." + p
	}
	return fmt.Sprintf("chain \"default\" {\n  providers = [%s]\n}\n", strings.Join(refs, ", "))
}

// oneProvider starts axon with a chain of one provider named name, of the
// given block kind, in front of u.
func oneProvider(t *testing.T, kind func(string, *upstream) string, name string, u *upstream) *axon {
	t.Helper()
	return startAxon(t, kind(name, u)+defaultChain(name))
}

// userSays is a request to the default chain.
func userSays(text string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "default",
		MaxTokens: 256,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(text))},
	}
}

// collect streams one request and returns every event and the message the
// SDK accumulated from them.
func collect(ctx context.Context, client anthropic.Client, params anthropic.MessageNewParams, opts ...option.RequestOption) ([]anthropic.MessageStreamEventUnion, anthropic.Message, error) {
	stream := client.Messages.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var events []anthropic.MessageStreamEventUnion
	var msg anthropic.Message
	for stream.Next() {
		ev := stream.Current()
		events = append(events, ev)
		if err := msg.Accumulate(ev); err != nil {
			return events, msg, fmt.Errorf("Accumulate(%s): %w", ev.Type, err)
		}
	}
	return events, msg, stream.Err()
}

// block is a content block reduced to what these tests check.
type block struct {
	Type  string
	Text  string         `json:",omitempty"`
	ID    string         `json:",omitempty"`
	Name  string         `json:",omitempty"`
	Input map[string]any `json:",omitempty"`
}

func blocksOf(t *testing.T, content []anthropic.ContentBlockUnion) []block {
	t.Helper()
	out := make([]block, len(content))
	for i, c := range content {
		out[i] = block{Type: c.Type, Text: c.Text, ID: c.ID, Name: c.Name}
		if c.Type == "tool_use" {
			if err := json.Unmarshal(c.Input, &out[i].Input); err != nil {
				t.Errorf("content[%d]: tool input %q is not a JSON object: %v", i, c.Input, err)
			}
		}
	}
	return out
}

// deltas records each write as one text delta.
type deltas []string

func (d *deltas) Write(p []byte) (int, error) {
	*d = append(*d, string(p))
	return len(p), nil
}

// checkCredential asserts that the upstream got axon's credential and
// never the key the client gave axon.
func checkCredential(t *testing.T, r request) {
	t.Helper()
	headers := fmt.Sprint(r.Header)
	if !strings.Contains(headers, upstreamKey) {
		t.Errorf("axon did not inject the provider credential; upstream headers %v", r.Header)
	}
	if strings.Contains(headers, placeholderKey) {
		t.Errorf("the client's key reached the upstream: %v", r.Header)
	}
}

func TestStreamsText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		provider  func(string, *upstream) string
		reply     reply
		wantModel string
		wantIn    int64
	}{
		{"openai-format provider", openaiProvider, openaiText("gpt-test-0613", 7, "Hello", " from", " axon"), "gpt-test-0613", 7},
		{"anthropic-format provider", anthropicProvider, anthropicText("claude-test-20250101", 9, "Hello", " from", " axon"), "claude-test-20250101", 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			up := newUpstream(t, c.reply)
			ax := oneProvider(t, c.provider, "solo", up)
			ctx := t.Context()

			var got deltas
			var raw *http.Response
			msg, err := ask(ctx, newClient(ax.url, ""), &got, userSays("Say hello."), option.WithResponseInto(&raw))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(deltas{"Hello", " from", " axon"}, got); diff != "" {
				t.Errorf("text deltas (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]block{{Type: "text", Text: "Hello from axon"}}, blocksOf(t, msg.Content)); diff != "" {
				t.Errorf("accumulated content (-want +got):\n%s", diff)
			}
			type summary struct {
				Role, Model, StopReason string
				In, Out                 int64
			}
			want := summary{"assistant", c.wantModel, "end_turn", c.wantIn, 3}
			if diff := cmp.Diff(want, summary{string(msg.Role), msg.Model, string(msg.StopReason), msg.Usage.InputTokens, msg.Usage.OutputTokens}); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(msg.ID, "msg_") {
				t.Errorf("message id %q, want a msg_ prefix", msg.ID)
			}
			if got := raw.Header.Get("x-axon-provider"); got != "solo" {
				t.Errorf("x-axon-provider %q, want %q", got, "solo")
			}

			// The program itself, as a user runs it, on the same axon.
			var out, info bytes.Buffer
			if err := run(ctx, &out, &info, ax.url, "", "default", 64, "Say hello."); err != nil {
				t.Fatal(err)
			}
			if out.String() != "Hello from axon" {
				t.Errorf("run printed %q, want %q", out.String(), "Hello from axon")
			}
			if wantInfo := fmt.Sprintf("via axon provider solo: stop_reason=end_turn input_tokens=%d output_tokens=3]", c.wantIn); !strings.Contains(info.String(), wantInfo) {
				t.Errorf("run's summary %q lacks %q", info.String(), wantInfo)
			}

			reqs := up.received()
			if len(reqs) != 2 {
				t.Fatalf("upstream got %d requests, want 2", len(reqs))
			}
			checkCredential(t, reqs[0])
			if !bytes.Contains(reqs[0].Body, []byte(`"Say hello."`)) {
				t.Errorf("the prompt did not reach the upstream: %s", reqs[0].Body)
			}
		})
	}
}

// weatherAndTime asks for two tools the model calls in parallel.
func weatherAndTime() anthropic.MessageNewParams {
	p := userSays("What is the weather in Paris and the time in Tokyo?")
	p.Tools = []anthropic.ToolUnionParam{
		{OfTool: &anthropic.ToolParam{Name: "get_weather", Description: anthropic.String("Current weather in a city"),
			InputSchema: anthropic.ToolInputSchemaParam{
				Properties: map[string]any{"city": map[string]any{"type": "string"}, "unit": map[string]any{"type": "string", "enum": []string{"celsius", "fahrenheit"}}},
				Required:   []string{"city"},
			}}},
		{OfTool: &anthropic.ToolParam{Name: "get_time", Description: anthropic.String("Local time in an IANA time zone"),
			InputSchema: anthropic.ToolInputSchemaParam{
				Properties: map[string]any{"zone": map[string]any{"type": "string"}},
				Required:   []string{"zone"},
			}}},
	}
	return p
}

// toolNamesSent reads the names of the tools a request offered, in the
// OpenAI or the Anthropic format.
func toolNamesSent(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Tools []struct {
			Name     string `json:"name"` // Anthropic
			Function struct {
				Name string `json:"name"`
			} `json:"function"` // OpenAI
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("upstream request is not JSON: %v\n%s", err, body)
	}
	var names []string
	for _, tool := range req.Tools {
		names = append(names, tool.Name+tool.Function.Name)
	}
	return names
}

func TestStreamsParallelToolCalls(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name          string
		provider      func(string, *upstream) string
		reply         reply
		weather, time string // the tool call ids the upstream chose
	}{
		{"openai-format provider, interleaved fragments", openaiProvider, openaiWeatherAndTime("gpt-test"), "call_weather", "call_time"},
		{"anthropic-format provider", anthropicProvider, anthropicWeatherAndTime("claude-test"), "toolu_weather", "toolu_time"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			up := newUpstream(t, c.reply)
			ax := oneProvider(t, c.provider, "solo", up)

			events, msg, err := collect(t.Context(), newClient(ax.url, ""), weatherAndTime())
			if err != nil {
				t.Fatal(err)
			}
			type start struct {
				Index int64
				Type  string
			}
			var starts []start
			for _, ev := range events {
				if ev.Type == "content_block_start" {
					starts = append(starts, start{ev.Index, ev.ContentBlock.Type})
				}
			}
			if diff := cmp.Diff([]start{{0, "text"}, {1, "tool_use"}, {2, "tool_use"}}, starts); diff != "" {
				t.Errorf("content_block_start events (-want +got):\n%s", diff)
			}
			want := []block{
				{Type: "text", Text: "Let me check."},
				{Type: "tool_use", ID: c.weather, Name: "get_weather", Input: map[string]any{"city": "Paris", "unit": "celsius"}},
				{Type: "tool_use", ID: c.time, Name: "get_time", Input: map[string]any{"zone": "Asia/Tokyo"}},
			}
			if diff := cmp.Diff(want, blocksOf(t, msg.Content)); diff != "" {
				t.Errorf("accumulated content (-want +got):\n%s", diff)
			}
			if msg.StopReason != anthropic.StopReasonToolUse {
				t.Errorf("stop_reason %q, want tool_use", msg.StopReason)
			}
			if msg.Usage.InputTokens != 52 || msg.Usage.OutputTokens != 31 {
				t.Errorf("usage in %d out %d, want 52 and 31", msg.Usage.InputTokens, msg.Usage.OutputTokens)
			}
			if last := events[len(events)-1].Type; last != "message_stop" {
				t.Errorf("last event %q, want message_stop", last)
			}

			reqs := up.received()
			if len(reqs) != 1 {
				t.Fatalf("upstream got %d requests, want 1", len(reqs))
			}
			if diff := cmp.Diff([]string{"get_weather", "get_time"}, toolNamesSent(t, reqs[0].Body)); diff != "" {
				t.Errorf("tools offered upstream (-want +got):\n%s", diff)
			}
		})
	}
}

// chatMessage is an OpenAI chat message as the upstream received it, with
// tool call arguments decoded so that their formatting does not matter.
type chatMessage struct {
	Role       string
	Content    any
	ToolCalls  []chatToolCall
	ToolCallID string
}

type chatToolCall struct {
	ID, Type, Name string
	Arguments      map[string]any
}

func chatMessagesSent(t *testing.T, body []byte) []chatMessage {
	t.Helper()
	var req struct {
		Messages []struct {
			Role      string `json:"role"`
			Content   any    `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("upstream request is not JSON: %v\n%s", err, body)
	}
	out := make([]chatMessage, len(req.Messages))
	for i, m := range req.Messages {
		out[i] = chatMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			call := chatToolCall{ID: tc.ID, Type: tc.Type, Name: tc.Function.Name}
			if err := json.Unmarshal([]byte(tc.Function.Arguments), &call.Arguments); err != nil {
				t.Errorf("messages[%d]: arguments %q are not a JSON object: %v", i, tc.Function.Arguments, err)
			}
			out[i].ToolCalls = append(out[i].ToolCalls, call)
		}
	}
	return out
}

// TestToolResultTurn runs the SDK's tool loop: the streamed tool calls go
// back as the assistant turn (Message.ToParam), the results as tool_result
// blocks, and the OpenAI-format upstream must get both in its own format.
func TestToolResultTurn(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, openaiWeatherAndTime("gpt-test"), openaiText("gpt-test", 90, "Sunny", " in Paris,", " 21:00", " in Tokyo."))
	ax := oneProvider(t, openaiProvider, "gpt", up)
	client := newClient(ax.url, "")
	ctx := t.Context()

	params := weatherAndTime()
	_, first, err := collect(ctx, client, params)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]string{"get_weather": "sunny, 14 C", "get_time": "21:00"}
	var results []anthropic.ContentBlockParamUnion
	for _, b := range first.Content {
		if b.Type == "tool_use" {
			results = append(results, anthropic.NewToolResultBlock(b.ID, tools[b.Name], false))
		}
	}
	if len(results) != 2 {
		t.Fatalf("%d tool calls, want 2: %+v", len(results), first.Content)
	}
	params.Messages = append(params.Messages, first.ToParam(), anthropic.NewUserMessage(results...))

	var text deltas
	answer, err := ask(ctx, client, &text, params)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(text, ""); got != "Sunny in Paris, 21:00 in Tokyo." {
		t.Errorf("answer %q", got)
	}
	if answer.StopReason != anthropic.StopReasonEndTurn {
		t.Errorf("stop_reason %q, want end_turn", answer.StopReason)
	}

	reqs := up.received()
	if len(reqs) != 2 {
		t.Fatalf("upstream got %d requests, want 2", len(reqs))
	}
	want := []chatMessage{
		{Role: "user", Content: "What is the weather in Paris and the time in Tokyo?"},
		{Role: "assistant", Content: "Let me check.", ToolCalls: []chatToolCall{
			{ID: "call_weather", Type: "function", Name: "get_weather", Arguments: map[string]any{"city": "Paris", "unit": "celsius"}},
			{ID: "call_time", Type: "function", Name: "get_time", Arguments: map[string]any{"zone": "Asia/Tokyo"}},
		}},
		{Role: "tool", ToolCallID: "call_weather", Content: "sunny, 14 C"},
		{Role: "tool", ToolCallID: "call_time", Content: "21:00"},
	}
	if diff := cmp.Diff(want, chatMessagesSent(t, reqs[1].Body)); diff != "" {
		t.Errorf("messages sent upstream (-want +got):\n%s", diff)
	}
}

// TestNonStreamingPinnedProvider uses Messages.New with a CHAIN/PROVIDER
// model, which skips the chain's first provider.
func TestNonStreamingPinnedProvider(t *testing.T) {
	t.Parallel()
	gpt := newUpstream(t, openaiText("gpt-test", 7, "not", "me"))
	claude := newUpstream(t, anthropicText("claude-test-20250101", 9, "Pinned", " answer."))
	ax := startAxon(t, openaiProvider("gpt", gpt)+anthropicProvider("claude", claude)+defaultChain("gpt", "claude"))

	params := userSays("Who answers?")
	params.Model = "default/claude"
	var raw *http.Response
	client := newClient(ax.url, "")
	msg, err := client.Messages.New(t.Context(), params, option.WithResponseInto(&raw))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]block{{Type: "text", Text: "Pinned answer."}}, blocksOf(t, msg.Content)); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	type summary struct {
		Model, StopReason string
		In, Out           int64
		Provider, Chain   string
	}
	want := summary{"claude-test-20250101", "end_turn", 9, 2, "claude", "default/claude"}
	got := summary{msg.Model, string(msg.StopReason), msg.Usage.InputTokens, msg.Usage.OutputTokens,
		raw.Header.Get("x-axon-provider"), raw.Header.Get("x-axon-chain")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	if n := len(gpt.received()); n != 0 {
		t.Errorf("the unpinned provider got %d requests", n)
	}
	reqs := claude.received()
	if len(reqs) != 1 || reqs[0].Path != "/v1/messages" {
		t.Fatalf("pinned upstream got %+v, want one POST /v1/messages", reqs)
	}
	checkCredential(t, reqs[0])
}

// TestErrorsReachTheSDK checks that the SDK raises what axon reports: a
// provider's refusal of axon's credential before any content as an HTTP
// error (502 api_error, not the client's 401, with x-should-retry: false so
// the SDK does not retry), and a stream broken after content as the in-band
// error event Anthropic itself sends.
func TestErrorsReachTheSDK(t *testing.T) {
	t.Parallel()
	unauthorized := jsonError(http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
	for _, c := range []struct {
		name       string
		stream     bool
		reply      reply
		wantStatus int
		wantType   string
		wantText   string // what arrived before the error
	}{
		{"upstream 401, Messages.New", false, unauthorized, http.StatusBadGateway, "api_error", ""},
		{"upstream 401, Messages.NewStreaming", true, unauthorized, http.StatusBadGateway, "api_error", ""},
		{"stream cut after content", true,
			openaiStream(true, openaiDelta("gpt-test", `{"role":"assistant","content":""}`), openaiContent("gpt-test", "partial answer")),
			http.StatusOK, "overloaded_error", "partial answer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			up := newUpstream(t, c.reply)
			ax := oneProvider(t, openaiProvider, "only", up)
			client := newClient(ax.url, "")

			var err error
			var msg anthropic.Message
			var events []anthropic.MessageStreamEventUnion
			if c.stream {
				events, msg, err = collect(t.Context(), client, userSays("Hello?"))
			} else {
				_, err = client.Messages.New(t.Context(), userSays("Hello?"))
			}
			var apiErr *anthropic.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v (%T), want an *anthropic.Error", err, err)
			}
			if apiErr.StatusCode != c.wantStatus || string(apiErr.Type()) != c.wantType {
				t.Errorf("status %d type %q, want %d %q (%v)", apiErr.StatusCode, apiErr.Type(), c.wantStatus, c.wantType, err)
			}
			if strings.Contains(err.Error(), upstreamKey) {
				t.Errorf("the error shows the provider credential: %v", err)
			}
			if c.wantStatus != http.StatusOK {
				if got := apiErr.Response.Header.Get("x-should-retry"); got != "false" {
					t.Errorf("x-should-retry %q, want false", got)
				}
			}
			if got := blocksText(msg.Content); got != c.wantText {
				t.Errorf("content before the error %q, want %q", got, c.wantText)
			}
			for _, ev := range events {
				if ev.Type == "message_stop" || ev.Type == "message_delta" {
					t.Errorf("a broken stream sent %s, which tells the client it completed", ev.Type)
				}
			}
			// One request: the chain does not retry these, and the SDK
			// did not retry either.
			if n := len(up.received()); n != 1 {
				t.Errorf("upstream got %d requests, want 1", n)
			}
		})
	}
}

func blocksText(content []anthropic.ContentBlockUnion) string {
	var b strings.Builder
	for _, c := range content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// TestToken: beyond loopback axon requires its token, which the SDK sends
// as its API key.
func TestToken(t *testing.T) {
	t.Parallel()
	const token = "axon-front-door-token"
	up := newUpstream(t, openaiText("gpt-test", 7, "Authorised."))
	ax := startAxonWith(t, frontDoor{listen: "0.0.0.0:0", token: token}, openaiProvider("gpt", up)+defaultChain("gpt"))

	var out, info bytes.Buffer
	err := run(t.Context(), &out, &info, ax.url, "", "default", 64, "Hello?")
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized || apiErr.Type() != "authentication_error" {
		t.Errorf("without the token: %v, want 401 authentication_error", err)
	}
	if n := len(up.received()); n != 0 {
		t.Errorf("a refused request reached the upstream (%d requests)", n)
	}

	out.Reset()
	if err := run(t.Context(), &out, &info, ax.url, token, "default", 64, "Hello?"); err != nil {
		t.Fatalf("with the token: %v", err)
	}
	if out.String() != "Authorised." {
		t.Errorf("answer %q", out.String())
	}
	reqs := up.received()
	if len(reqs) != 1 {
		t.Fatalf("upstream got %d requests, want 1", len(reqs))
	}
	if strings.Contains(fmt.Sprint(reqs[0].Header), token) {
		t.Errorf("the axon token reached the upstream: %v", reqs[0].Header)
	}
}
