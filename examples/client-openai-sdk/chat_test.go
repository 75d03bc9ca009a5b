package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// The official client's Chat Completions calls, unchanged, against a real
// axon serve: streaming with cached tokens, strict structured output
// answered by Anthropic- and Ollama-format providers, the fallback from an
// answer that does not match, parallel tool calls and their results, and
// an error.

// weather is the schema the structured-output tests ask for.
var weather = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"city":    map[string]any{"type": "string"},
		"celsius": map[string]any{"type": "number"},
	},
	"required":             []any{"city", "celsius"},
	"additionalProperties": false,
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	t.Cleanup(cancel)
	return ctx
}

// sameJSON reports whether raw holds the JSON value v.
func sameJSON(t *testing.T, raw json.RawMessage, v any) bool {
	t.Helper()
	var got, want any
	b, _ := json.Marshal(v)
	if json.Unmarshal(raw, &got) != nil || json.Unmarshal(b, &want) != nil {
		return false
	}
	return reflect.DeepEqual(got, want)
}

func schemaParams(model string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Rome, as JSON.")},
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "weather", Schema: weather, Strict: openai.Bool(true)},
		}},
	}
}

// parseWeather is what the client does with a structured answer.
func parseWeather(t *testing.T, text string) {
	t.Helper()
	var w struct {
		City    string  `json:"city"`
		Celsius float64 `json:"celsius"`
	}
	if err := json.Unmarshal([]byte(text), &w); err != nil || w.City != "Rome" {
		t.Fatalf("the answer %q is not the weather asked for: %v", text, err)
	}
}

func TestChatStreamsCachedTokens(t *testing.T) {
	up := newUpstream(t, anthropicText("claude-test", `"input_tokens":5,"cache_read_input_tokens":40,"cache_creation_input_tokens":2,"output_tokens":1`, "Hello", " there"))
	a := oneProvider(t, anthropicProvider, "claude", up)
	var out strings.Builder
	c, err := ask(testCtx(t), newClient(a.url, ""), &out, openai.ChatCompletionNewParams{
		Model: "default", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "Hello there" || c.Usage.PromptTokensDetails.CachedTokens != 40 || c.Usage.PromptTokens != 47 {
		t.Errorf("text %q, usage %+v: want cached_tokens 40 of 47 prompt tokens", out.String(), c.Usage)
	}
	if h := up.only(t).Header.Get("x-api-key"); h != upstreamKey {
		t.Errorf("the upstream got x-api-key %q", h)
	}
}

func TestChatStrictSchemaThroughAnthropic(t *testing.T) {
	up := newUpstream(t, anthropicText("claude-test", `"input_tokens":9,"output_tokens":1`, `{"city":"Rome",`, `"celsius":21.5}`))
	a := oneProvider(t, anthropicProvider, "claude", up)
	client := newClient(a.url, "")
	c, err := client.Chat.Completions.New(testCtx(t), schemaParams("default"))
	if err != nil {
		t.Fatal(err)
	}
	parseWeather(t, c.Choices[0].Message.Content)
	checkAnthropicSchema(t, up)
}

func TestChatStrictSchemaThroughOllama(t *testing.T) {
	up := newUpstream(t, ollamaText("qwen-test", 9, `{"city":"Rome","celsius":21.5}`))
	a := oneProvider(t, ollamaProvider, "local", up)
	client := newClient(a.url, "")
	c, err := client.Chat.Completions.New(testCtx(t), schemaParams("default"))
	if err != nil {
		t.Fatal(err)
	}
	parseWeather(t, c.Choices[0].Message.Content)
	var sent struct {
		Format json.RawMessage `json:"format"`
	}
	up.only(t).decode(t, &sent)
	if !sameJSON(t, sent.Format, weather) {
		t.Errorf("the Ollama upstream got format %s", sent.Format)
	}
}

// The first provider answers free text where a schema was asked for: the
// chain checks, falls back, and the client only ever sees the match,
// streamed too.
func TestChatNonConformingFallsBack(t *testing.T) {
	bad := newUpstream(t, anthropicText("claude-test", `"input_tokens":9,"output_tokens":1`, "It is warm in Rome."))
	good := newUpstream(t, ollamaText("qwen-test", 9, `{"city":"Rome","celsius":21.5}`))
	a := startAxon(t, anthropicProvider("claude", bad)+ollamaProvider("local", good)+defaultChain("claude", "local"))
	var out strings.Builder
	c, err := ask(testCtx(t), newClient(a.url, ""), &out, schemaParams("default"))
	if err != nil {
		t.Fatal(err)
	}
	parseWeather(t, out.String())
	if strings.Contains(out.String(), "warm") || c.Model != "qwen-test" {
		t.Errorf("the client saw %q from %s", out.String(), c.Model)
	}
	if len(bad.received()) != 1 || len(good.received()) != 1 {
		t.Errorf("calls: bad %d, good %d; want one each", len(bad.received()), len(good.received()))
	}
}

func TestChatParallelToolCallsAndResults(t *testing.T) {
	calls := openaiStream(false,
		openaiDelta("gpt-test", `{"role":"assistant","tool_calls":[{"index":0,"id":"call_rome","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Rome\"}"}}]}`),
		openaiDelta("gpt-test", `{"tool_calls":[{"index":1,"id":"call_oslo","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}}]}`),
		openaiChunk("gpt-test", `{"index":0,"delta":{},"finish_reason":"tool_calls"}`))
	up := newUpstream(t, calls, openaiText("gpt-test", 30, "Rome", " is", " warmer."))
	a := oneProvider(t, openaiProvider, "gpt", up)
	client := newClient(a.url, "")
	tools := []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name: "weather", Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
	})}
	params := openai.ChatCompletionNewParams{Model: "default", Tools: tools,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Rome and Oslo?")}}
	c, err := ask(testCtx(t), client, io.Discard, params)
	if err != nil {
		t.Fatal(err)
	}
	tc := c.Choices[0].Message.ToolCalls
	if c.Choices[0].FinishReason != "tool_calls" || len(tc) != 2 || tc[0].ID != "call_rome" || tc[1].Function.Arguments != `{"city":"Oslo"}` {
		t.Fatalf("tool calls %+v (finish %s)", tc, c.Choices[0].FinishReason)
	}
	params.Messages = append(params.Messages, c.Choices[0].Message.ToParam(),
		openai.ToolMessage("21C", "call_rome"), openai.ToolMessage("-3C", "call_oslo"))
	var out strings.Builder
	if _, err := ask(testCtx(t), client, &out, params); err != nil || out.String() != "Rome is warmer." {
		t.Fatalf("after the results: %q %v", out.String(), err)
	}
	var sent struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	up.received()[1].decode(t, &sent)
	var roles []string
	for _, m := range sent.Messages {
		roles = append(roles, m.Role+":"+m.ToolCallID)
	}
	if got := strings.Join(roles, " "); got != "user: assistant: tool:call_rome tool:call_oslo" {
		t.Errorf("the upstream got %s", got)
	}
}

func TestChatErrorReachesTheClient(t *testing.T) {
	up := newUpstream(t, jsonError(503, `{"error":{"message":"down","type":"server_error"}}`))
	a := startAxon(t, openaiProvider("gpt", up)+"chain \"default\" {\n  providers = [provider.gpt]\n  retry { attempts = 1 }\n}\n")
	client := newClient(a.url, "")
	_, err := client.Chat.Completions.New(testCtx(t), openai.ChatCompletionNewParams{
		Model: "default", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	}, optionNoRetries())
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || strings.Contains(err.Error(), upstreamKey) {
		t.Fatalf("err %v, want an *openai.Error with status 503", err)
	}
}

// optionNoRetries stops the client from retrying the 503 it is told to
// retry (x-should-retry), so the test sees the error at once.
func optionNoRetries() option.RequestOption { return option.WithMaxRetries(0) }

// checkAnthropicSchema checks that the Anthropic-format upstream got the
// weather schema as its output_config.format.
func checkAnthropicSchema(t *testing.T, up *upstream) {
	t.Helper()
	var sent struct {
		OutputConfig struct {
			Format struct {
				Type   string          `json:"type"`
				Schema json.RawMessage `json:"schema"`
			} `json:"format"`
		} `json:"output_config"`
	}
	up.only(t).decode(t, &sent)
	if sent.OutputConfig.Format.Type != "json_schema" || !sameJSON(t, sent.OutputConfig.Format.Schema, weather) {
		t.Errorf("the Anthropic upstream got output_config %+v", sent.OutputConfig)
	}
}
