package daemon

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateFidelity = flag.Bool("update-fidelity", false, "rewrite testdata/fidelity from what the upstreams receive")

// The fidelity matrix (issue 20; host/api/README.md, "Fidelity"): each row
// is one request field, sent through each front door to a chain of each
// provider wire format, every provider a real plugin process. What each
// fake upstream received (or the refusal the client got instead) is
// compared with testdata/fidelity/<row>/<door>.json; -update-fidelity
// rewrites them. The README's table is read off these files.

// fidelityAnswer is the text every upstream answers: JSON, so a row that
// asks for structured output is answered as it asked.
const fidelityAnswer = `{"ok":true}`

// fidelityFormats are the provider wire formats, one chain each.
var fidelityFormats = []string{"openai-chat", "openai-responses", "anthropic", "gemini", "ollama"}

// capture is a fake upstream of one wire format: it keeps the body it got
// last and answers fidelityAnswer in its format.
type capture struct {
	*httptest.Server
	mu   sync.Mutex
	last []byte
}

func newCapture(t *testing.T, format string) *capture {
	c := &capture{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.last = body
		c.mu.Unlock()
		answerAs(w, format)
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *capture) take() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.last
	c.last = nil
	return b
}

// answerAs writes fidelityAnswer as a streamed answer of format.
func answerAs(w http.ResponseWriter, format string) {
	text, _ := json.Marshal(fidelityAnswer)
	switch format {
	case "openai-chat":
		sse(w, `data: {"id":"c1","model":"gpt-x","choices":[{"index":0,"delta":{"content":`+string(text)+`}}]}`+"\n\n",
			`data: {"id":"c1","model":"gpt-x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n", "data: [DONE]\n\n")
	case "openai-responses":
		sse(w, `event: response.output_text.delta`+"\n"+`data: {"type":"response.output_text.delta","item_id":"m1","output_index":0,"content_index":0,"delta":`+string(text)+`}`+"\n\n",
			`event: response.completed`+"\n"+`data: {"type":"response.completed","response":{"id":"r1","status":"completed","model":"gpt-x","output":[],"usage":{"input_tokens":3,"output_tokens":1}}}`+"\n\n")
	case "anthropic":
		anthropicText("claude-haiku-4-5", fidelityAnswer)(w, nil)
	case "gemini":
		sse(w, `data: {"candidates":[{"content":{"parts":[{"text":`+string(text)+`}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1,"totalTokenCount":4},"modelVersion":"gemini-2.5-flash"}`+"\n\n")
	case "ollama":
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprintf(w, `{"model":"qwen","message":{"role":"assistant","content":%s},"done":false}`+"\n", text)
		io.WriteString(w, `{"model":"qwen","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":1}`+"\n")
	}
}

// fidelityHCL is one chain per wire format, named as the format.
func fidelityHCL(t *testing.T, ups map[string]*capture) string {
	key := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(key, []byte("sk-fidelity-key"), 0o600); err != nil {
		t.Fatal(err)
	}
	cred := `credential = file("` + key + `")`
	blocks := fmt.Sprintf(`
provider "openai-chat" {
  plugin   = "openai"
  base_url = "%s/v1"
  model    = "gpt-x"
  %s
}
provider "openai-responses" {
  plugin   = "openai"
  api      = "responses"
  base_url = "%s/v1"
  model    = "gpt-x"
  %s
}
provider "anthropic" {
  preset   = "anthropic"
  base_url = "%s"
  model    = "claude-haiku-4-5"
  tier     = "sub"
  %s
}
provider "gemini" {
  preset   = "gemini-native"
  base_url = "%s"
  model    = "gemini-2.5-flash"
  %s
}
provider "ollama" {
  plugin   = "ollama"
  base_url = "%s"
  model    = "qwen"
}
`, ups["openai-chat"].URL, cred, ups["openai-responses"].URL, cred, ups["anthropic"].URL, cred, ups["gemini"].URL, cred, ups["ollama"].URL)
	for _, f := range fidelityFormats {
		blocks += fmt.Sprintf("chain %q {\n  providers = [provider.%s]\n  retry { attempts = 1 }\n}\n", f, f)
	}
	return blocks
}

// fidelityRow is one request field: the request body each front door
// sends for it (MODEL stands for the chain), "" where the door's format
// has no such field.
type fidelityRow struct {
	name, openai, anthropic, responses string
}

const (
	pngB64 = "iVBORw0KGgo="
	pdfB64 = "JVBERi0xLjQK"
)

func fidelityRows(imageURL string) []fidelityRow {
	user := func(content string) string { return `"messages":[{"role":"user","content":` + content + `}]` }
	input := func(content string) string { return `"input":[{"role":"user","content":` + content + `}]` }
	weather := `{"type":"function","name":"weather","description":"d","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}`
	okSchema := `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}`
	return []fidelityRow{
		{"text",
			`{"model":"MODEL",` + user(`"hi"`) + `}`,
			`{"model":"MODEL","max_tokens":64,` + user(`"hi"`) + `}`,
			`{"model":"MODEL","input":"hi"}`},
		{"system-and-cache-breakpoints",
			`{"model":"MODEL","messages":[{"role":"system","content":[{"type":"text","text":"long prefix","cache_control":{"type":"ephemeral"}}]},{"role":"user","content":"hi"}]}`,
			`{"model":"MODEL","max_tokens":64,"system":[{"type":"text","text":"first"},{"type":"text","text":"long prefix","cache_control":{"type":"ephemeral","ttl":"1h"}}],"tools":[{"name":"clock","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral","ttl":"5m"}}]}]}`,
			`{"model":"MODEL","instructions":"long prefix","input":"hi"}`},
		{"sampling-and-limits",
			`{"model":"MODEL","max_completion_tokens":32,"temperature":0.2,"top_p":0.9,"stop":["END","STOP"],"seed":7,` + user(`"hi"`) + `}`,
			`{"model":"MODEL","max_tokens":32,"temperature":0.2,"top_p":0.9,"top_k":40,"stop_sequences":["END","STOP"],` + user(`"hi"`) + `}`,
			`{"model":"MODEL","max_output_tokens":32,"temperature":0.2,"top_p":0.9,"input":"hi"}`},
		{"sampling-without-stop",
			`{"model":"MODEL","top_p":0.9,"seed":7,` + user(`"hi"`) + `}`,
			`{"model":"MODEL","max_tokens":32,"top_p":0.9,"top_k":40,` + user(`"hi"`) + `}`,
			""},
		{"tools-required-sequential",
			`{"model":"MODEL","tools":[{"type":"function","function":{"name":"weather","description":"d","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],"tool_choice":"required","parallel_tool_calls":false,` + user(`"hi"`) + `}`,
			`{"model":"MODEL","max_tokens":64,"tools":[{"name":"weather","description":"d","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}],"tool_choice":{"type":"any","disable_parallel_tool_use":true},` + user(`"hi"`) + `}`,
			`{"model":"MODEL","tools":[` + weather + `],"tool_choice":"required","parallel_tool_calls":false,"input":"hi"}`},
		{"tool-choice-named-and-none",
			`{"model":"MODEL","tools":[{"type":"function","function":{"name":"weather","parameters":{"type":"object"}}},{"type":"function","function":{"name":"clock"}}],"tool_choice":{"type":"function","function":{"name":"clock"}},` + user(`"hi"`) + `}`,
			`{"model":"MODEL","max_tokens":64,"tools":[{"name":"weather","input_schema":{"type":"object"}},{"name":"clock","input_schema":{"type":"object"}}],"tool_choice":{"type":"none"},` + user(`"hi"`) + `}`,
			`{"model":"MODEL","tools":[{"type":"function","name":"weather","parameters":{"type":"object"}},{"type":"function","name":"clock"}],"tool_choice":{"type":"function","name":"clock"},"input":"hi"}`},
		{"tool-call-and-result-turns",
			`{"model":"MODEL","tools":[{"type":"function","function":{"name":"weather","parameters":{"type":"object"}}}],"messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Rome\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"21C"}]}`,
			`{"model":"MODEL","max_tokens":64,"tools":[{"name":"weather","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"weather","input":{"city":"Rome"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"21C","is_error":true}]}]}`,
			`{"model":"MODEL","tools":[{"type":"function","name":"weather","parameters":{"type":"object"}}],"input":[{"role":"user","content":"weather?"},{"type":"function_call","call_id":"call_1","name":"weather","arguments":"{\"city\":\"Rome\"}"},{"type":"function_call_output","call_id":"call_1","output":"21C"}]}`},
		{"image-inline",
			`{"model":"MODEL",` + user(`[{"type":"text","text":"what?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,`+pngB64+`"}}]`) + `}`,
			`{"model":"MODEL","max_tokens":64,` + user(`[{"type":"text","text":"what?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+pngB64+`"}}]`) + `}`,
			`{"model":"MODEL",` + input(`[{"type":"input_text","text":"what?"},{"type":"input_image","image_url":"data:image/png;base64,`+pngB64+`"}]`) + `}`},
		{"image-by-url",
			`{"model":"MODEL",` + user(`[{"type":"text","text":"what?"},{"type":"image_url","image_url":{"url":"`+imageURL+`"}}]`) + `}`,
			`{"model":"MODEL","max_tokens":64,` + user(`[{"type":"text","text":"what?"},{"type":"image","source":{"type":"url","url":"`+imageURL+`"}}]`) + `}`,
			`{"model":"MODEL",` + input(`[{"type":"input_text","text":"what?"},{"type":"input_image","image_url":"`+imageURL+`"}]`) + `}`},
		{"pdf-document",
			`{"model":"MODEL",` + user(`[{"type":"text","text":"summarise"},{"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,`+pdfB64+`"}}]`) + `}`,
			`{"model":"MODEL","max_tokens":64,` + user(`[{"type":"text","text":"summarise"},{"type":"document","title":"a.pdf","source":{"type":"base64","media_type":"application/pdf","data":"`+pdfB64+`"}}]`) + `}`,
			`{"model":"MODEL",` + input(`[{"type":"input_text","text":"summarise"},{"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,`+pdfB64+`"}]`) + `}`},
		{"structured-output-strict",
			`{"model":"MODEL","response_format":{"type":"json_schema","json_schema":{"name":"ok","strict":true,"schema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}}},` + user(`"ok?"`) + `}`,
			`{"model":"MODEL","max_tokens":64,"output_config":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}}},` + user(`"ok?"`) + `}`,
			`{"model":"MODEL","text":{"format":{"type":"json_schema","name":"ok","strict":true,"schema":` + okSchema + `}},"input":"ok?"}`},
		{"json-object",
			`{"model":"MODEL","response_format":{"type":"json_object"},` + user(`"JSON please"`) + `}`,
			"",
			`{"model":"MODEL","text":{"format":{"type":"json_object"}},"input":"JSON please"}`},
		{"reasoning-knobs",
			`{"model":"MODEL","reasoning_effort":"low",` + user(`"think"`) + `}`,
			`{"model":"MODEL","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},` + user(`"think"`) + `}`,
			`{"model":"MODEL","reasoning":{"effort":"low"},"input":"think"}`},
		{"ignored-hints",
			`{"model":"MODEL","user":"u-123","service_tier":"flex","store":true,"metadata":{"task":"chat","trace":"t1"},"made_up_field":1,` + user(`"hi"`) + `}`,
			`{"model":"MODEL","max_tokens":64,"metadata":{"user_id":"u-123"},"service_tier":"auto","made_up_field":1,` + user(`"hi"`) + `}`,
			`{"model":"MODEL","user":"u-123","service_tier":"flex","metadata":{"task":"chat","trace":"t1"},"made_up_field":1,"input":"hi"}`},
		{"refused",
			`{"model":"MODEL","n":2,` + user(`"hi"`) + `}`,
			`{"model":"MODEL","max_tokens":64,"tools":[{"type":"web_search_20250305","name":"web_search"}],` + user(`"hi"`) + `}`,
			`{"model":"MODEL","tools":[{"type":"web_search"}],"input":"hi"}`},
	}
}

// fidelityCell is what one request through one door to one format came to.
type fidelityCell struct {
	Status   int             `json:"status"`
	Upstream json.RawMessage `json:"upstream,omitempty"` // the body the provider got; absent when none was sent
	Refusal  string          `json:"refusal,omitempty"`  // the client's error message, when it got one
	// Ignored is the x-axon-ignored header: the fields the front door
	// dropped, and the options this format's provider does not render.
	Ignored string `json:"x_axon_ignored,omitempty"`
}

// fidelityFile is one golden file: a row through one door.
type fidelityFile struct {
	Request json.RawMessage         `json:"request"`
	Formats map[string]fidelityCell `json:"formats"`
}

func TestFidelityMatrix(t *testing.T) {
	t.Parallel()
	ups := map[string]*capture{}
	for _, f := range fidelityFormats {
		ups[f] = newCapture(t, f)
	}
	images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	}))
	t.Cleanup(images.Close)
	r := newRigAxon(t, fmt.Sprintf("media { allow = [%q] }", images.URL), fidelityHCL(t, ups), frontDoorToken, Options{})

	doors := []struct{ name, path string }{{"openai", "/v1/chat/completions"}, {"anthropic", "/v1/messages"}, {"responses", "/v1/responses"}}
	for _, row := range fidelityRows(images.URL + "/cat.png") {
		for _, door := range doors {
			body := map[string]string{"openai": row.openai, "anthropic": row.anthropic, "responses": row.responses}[door.name]
			if body == "" {
				continue
			}
			file := fidelityFile{Request: json.RawMessage(body), Formats: map[string]fidelityCell{}}
			for _, f := range fidelityFormats {
				status, h, resp := r.do("POST", door.path, strings.ReplaceAll(body, "MODEL", f), true)
				cell := fidelityCell{Status: status, Upstream: ups[f].take()}
				if status != http.StatusOK {
					var e struct {
						Error struct {
							Message string `json:"message"`
						} `json:"error"`
					}
					json.Unmarshal([]byte(resp), &e)
					cell.Refusal = e.Error.Message
				} else if !strings.Contains(resp, "ok") {
					t.Errorf("%s via %s to %s: the answer does not carry the upstream's text: %s", row.name, door.name, f, resp)
				}
				if len(cell.Upstream) == 0 {
					cell.Upstream = nil
				}
				cell.Ignored = h.Get("x-axon-ignored")
				file.Formats[f] = cell
			}
			checkFidelity(t, filepath.Join("testdata", "fidelity", row.name, door.name+".json"), file, images.URL)
		}
	}

	// The ignored fields are named in the debug log too, by path only.
	logs := r.logs.String()
	if !strings.Contains(logs, "request fields ignored") || !strings.Contains(logs, "service_tier") {
		t.Errorf("the debug log does not name the ignored fields:\n%s", logs)
	}
	if strings.Contains(logs, "u-123") {
		t.Error("the debug log holds an ignored field's value")
	}
}

// checkFidelity compares file, as indented JSON, with the golden file at
// path; the image server's address, which changes every run, reads
// http://images.test there.
func checkFidelity(t *testing.T, path string, file fidelityFile, imagesURL string) {
	t.Helper()
	raw, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	raw = bytes.ReplaceAll(raw, []byte(imagesURL), []byte("http://images.test"))
	var got bytes.Buffer
	if err := json.Indent(&got, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	if *updateFidelity {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-fidelity to write it)", err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}
