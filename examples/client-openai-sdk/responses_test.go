package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// The official client's Responses API calls (issue 21), unchanged, against
// a real axon serve whose providers speak other wire formats: New and
// NewStreaming, function calls continued with previous_response_id, strict
// structured output, Get and Delete of a stored response.

func TestResponsesNewAndContinue(t *testing.T) {
	calls := openaiStream(false,
		openaiDelta("gpt-test", `{"role":"assistant","tool_calls":[{"index":0,"id":"call_rome","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Rome\"}"}}]}`),
		openaiDelta("gpt-test", `{"tool_calls":[{"index":1,"id":"call_oslo","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}}]}`),
		openaiChunk("gpt-test", `{"index":0,"delta":{},"finish_reason":"tool_calls"}`))
	up := newUpstream(t, calls, openaiText("gpt-test", 30, "Rome", " is", " warmer."))
	a := oneProvider(t, openaiProvider, "gpt", up)
	client := newClient(a.url, "")
	ctx := testCtx(t)

	first, err := client.Responses.New(ctx, responses.ResponseNewParams{
		Model:        "default",
		Instructions: openai.String("Use the tool."),
		Input:        responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Rome and Oslo?")},
		Tools:        []responses.ToolUnionParam{responses.ToolParamOfFunction("weather", map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}, false)},
	})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, item := range first.Output {
		if item.Type == "function_call" {
			ids = append(ids, item.AsFunctionCall().CallID)
		}
	}
	if strings.Join(ids, ",") != "call_rome,call_oslo" || first.Status != "completed" {
		t.Fatalf("first response: status %s, calls %v", first.Status, ids)
	}

	second, err := client.Responses.New(ctx, responses.ResponseNewParams{
		Model:              "default",
		PreviousResponseID: openai.String(first.ID),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			functionOutput("call_rome", "21C"),
			functionOutput("call_oslo", "-3C"),
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if second.OutputText() != "Rome is warmer." || second.PreviousResponseID != first.ID || second.Usage.InputTokens != 30 {
		t.Errorf("second response: %q, previous %q, usage %+v", second.OutputText(), second.PreviousResponseID, second.Usage)
	}
	var sent struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	up.received()[1].decode(t, &sent)
	var roles []string
	for _, m := range sent.Messages {
		roles = append(roles, m.Role+":"+m.ToolCallID)
	}
	// The instructions of the first response are not carried over, as on
	// OpenAI's API.
	if got := strings.Join(roles, " "); got != "user: assistant: tool:call_rome tool:call_oslo" {
		t.Errorf("the upstream got the conversation %s", got)
	}

	got, err := client.Responses.Get(ctx, first.ID, responses.ResponseGetParams{})
	if err != nil || got.ID != first.ID || len(got.Output) != 2 {
		t.Fatalf("Get: %v %+v", err, got)
	}
	if err := client.Responses.Delete(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	_, err = client.Responses.Get(ctx, first.ID, responses.ResponseGetParams{})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Errorf("Get after Delete: %v, want a 404", err)
	}
}

func TestResponsesNewStreaming(t *testing.T) {
	up := newUpstream(t, anthropicText("claude-test", `"input_tokens":5,"cache_read_input_tokens":40,"output_tokens":1`, "Hello", " there"))
	a := oneProvider(t, anthropicProvider, "claude", up)
	client := newClient(a.url, "")
	stream := client.Responses.NewStreaming(testCtx(t), responses.ResponseNewParams{
		Model: "default",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")},
	})
	defer stream.Close()
	var deltas strings.Builder
	var types []string
	var done responses.Response
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		switch ev.Type {
		case "response.output_text.delta":
			deltas.WriteString(ev.Delta)
		case "response.completed":
			done = ev.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if deltas.String() != "Hello there" || done.OutputText() != "Hello there" || done.Usage.InputTokensDetails.CachedTokens != 40 {
		t.Errorf("deltas %q, final %q, usage %+v\nevents %v", deltas.String(), done.OutputText(), done.Usage, types)
	}
	if types[0] != "response.created" || types[len(types)-1] != "response.completed" {
		t.Errorf("events %v", types)
	}
}

func TestResponsesStructuredOutput(t *testing.T) {
	up := newUpstream(t, ollamaText("qwen-test", 9, `{"city":"Rome","celsius":21.5}`))
	a := oneProvider(t, ollamaProvider, "local", up)
	client := newClient(a.url, "")
	r, err := client.Responses.New(testCtx(t), responses.ResponseNewParams{
		Model: "default",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Rome, as JSON.")},
		Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
			OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: "weather", Schema: weather, Strict: openai.Bool(true)},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	parseWeather(t, r.OutputText())
	var sent struct {
		Format json.RawMessage `json:"format"`
	}
	up.only(t).decode(t, &sent)
	if !sameJSON(t, sent.Format, weather) {
		t.Errorf("the Ollama upstream got format %s", sent.Format)
	}
}

// functionOutput answers a function call, as a client does.
func functionOutput(callID, output string) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCallOutput(output)
	item.OfFunctionCallOutput.CallID = openai.String(callID)
	return item
}
