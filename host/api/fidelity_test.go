package api

import (
	"fmt"
	"strings"
	"testing"
)

// Every member a decoder does not read is listed in x-axon-ignored, at any
// depth, by a path with [] for array indices, once per path; members sent
// with no value (null, false, 0, "", {}, []) are not.
func TestNestedFieldsListed(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    dialect
		body string
		want string
	}{{
		name: "openai messages, parts, tool calls and tools",
		d:    openaiDialect{},
		body: `{"model":"m","service_tier":"flex","messages":[
			{"role":"system","content":"be brief","name":"rules"},
			{"role":"user","name":"ann","content":[{"type":"text","text":"hi","x":1},
				{"type":"image_url","image_url":{"url":"https://example.com/a.png","detail":"high"}}]},
			{"role":"user","name":"bob","content":"again","refusal":null,"audio":{}},
			{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","index":0,
				"function":{"name":"f","arguments":"{}","extra":true}}]},
			{"role":"tool","tool_call_id":"c1","content":"ok"}],
			"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"unknown_to_axon":{"type":"string"}}},"strict":true}}],
			"response_format":{"type":"json_schema","json_schema":{"name":"n","description":"d","schema":{"type":"object","whatever":1},"strict":true}},
			"stream_options":{"include_usage":false,"include_obfuscation":true}}`,
		want: "service_tier,messages[].name,messages[].content[].x,messages[].content[].image_url.detail," +
			"messages[].tool_calls[].function.extra,tools[].function.strict," +
			"response_format.json_schema.description,stream_options.include_obfuscation",
	}, {
		name: "anthropic system, blocks, tool results, tools, output_config",
		d:    anthropicDialect{},
		body: `{"model":"m","max_tokens":9,"system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral","scope":"x"}}],
			"messages":[{"role":"user","content":[{"type":"text","text":"hi","citations":[{"type":"char_location","cited_text":"c"}]},
				{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw==","hint":"y"}}]},
			{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{"any":"thing"},"caller":{"type":"direct"}}]},
			{"role":"user","id":"u","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"r","deep":1}]}]}],
			"tools":[{"name":"f","input_schema":{"type":"object","foo":1},"strict":true,"input_examples":[{"a":1}]}],
			"tool_choice":{"type":"auto","disable_parallel_tool_use":false},
			"output_config":{"effort":"low","format":{"type":"json_schema","schema":{"type":"object"}}}}`,
		want: "system[].cache_control.scope,messages[].content[].source.hint,messages[].content[].caller," +
			"messages[].id,messages[].content[].content[].deep,tools[].strict,tools[].input_examples,output_config.effort",
	}, {
		name: "responses input items, parts, tools, text, reasoning",
		d:    responsesDialect{},
		body: `{"model":"m","store":false,"input":[
			{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"},
				{"type":"input_image","image_url":"https://example.com/a.png","detail":"auto"}]},
			{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{}","status":"completed"},
			{"type":"function_call_output","call_id":"c1","output":"ok","extra":"x"},
			{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":"e"}],
			"tools":[{"type":"function","name":"f","parameters":{"type":"object"},"strict":true}],
			"text":{"format":{"type":"text"},"verbosity":"low"},"reasoning":{"effort":"low","summary":"auto"}}`,
		want: "input[].content[].detail,input[].extra,input[].encrypted_content,tools[].strict,text.verbosity,reasoning.summary",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := tc.d.decode([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if c.ignored != tc.want {
				t.Errorf("ignored\n %s\nwant\n %s", strings.ReplaceAll(c.ignored, ",", "\n "), strings.ReplaceAll(tc.want, ",", "\n "))
			}
		})
	}
}

// A body of many messages each with an unknown member lists it once; a
// body with more distinct unknown members than the header holds ends the
// list with "...".
func TestNestedFieldsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"model":"m","messages":[`)
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"user","name":"n%d","content":[{"type":"text","text":"x","k%d":1}]}`, i, i%100)
	}
	b.WriteString(`]}`)
	c, err := openaiDialect{}.decode([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Split(c.ignored, ",")
	if len(names) != maxIgnored+1 || names[0] != "messages[].name" || names[1] != "messages[].content[].k0" || names[maxIgnored] != "..." {
		t.Errorf("ignored %q: want messages[].name once, then %d distinct parts' keys and ...", c.ignored, maxIgnored-1)
	}
}
