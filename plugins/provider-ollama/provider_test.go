package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

func TestInfo(t *testing.T) {
	t.Parallel()
	info := (&ollama{}).Info()
	if info.Name != "ollama" || info.Kind != sdk.KindProvider {
		t.Errorf("name %q kind %q, want ollama provider", info.Name, info.Kind)
	}
	if !info.Prefill {
		t.Error("Prefill is false: the provider continues a trailing assistant message")
	}
	if !info.Output {
		t.Error("Output is false: a JSON Schema goes out as format, which Ollama enforces")
	}
	if !info.InlineMedia {
		t.Error("InlineMedia is false: /api/chat takes images only as base64, so the host must fetch URLs")
	}
	if diff := cmp.Diff(sdk.Auth{Scheme: sdk.AuthNone}, info.Auth); diff != "" {
		t.Errorf("auth (-want +got):\n%s", diff)
	}
	defaults := map[string]string{}
	for _, a := range info.Config.Attributes {
		defaults[a.Name+" "+a.Type] = string(a.Default)
	}
	want := map[string]string{
		"base_url string":     `"http://127.0.0.1:11434"`,
		"model string":        "",
		"max_tokens number":   "0",
		"think string":        "",
		"keep_alive string":   "",
		"options map(string)": "",
		"headers map(string)": "",
		"strict_stream bool":  "false",
	}
	if diff := cmp.Diff(want, defaults); diff != "" {
		t.Errorf("schema attributes and defaults (-want +got):\n%s", diff)
	}
}

// TestSchemaDefaultsMatchConfigure: the defaults the host applies from the
// schema and those Configure applies itself are the same.
func TestSchemaDefaultsMatchConfigure(t *testing.T) {
	t.Parallel()
	raw, err := sdktest.ApplyDefaults((&ollama{}).Info().Config, nil)
	if err != nil {
		t.Fatal(err)
	}
	fromSchema, err := parseConfig(sdk.Config{Values: raw})
	if err != nil {
		t.Fatal(err)
	}
	fromNothing, err := parseConfig(sdk.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromNothing, fromSchema, cmp.AllowUnexported(settings{})); diff != "" {
		t.Errorf("(-Configure defaults +schema defaults):\n%s", diff)
	}
}

// TestParseConfig checks how attribute values, as the host's HCL decoder
// delivers them (HCL converts think = true and num_ctx = 8192 to strings
// for string-typed attributes), become wire values.
func TestParseConfig(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		values string
		want   settings
	}{
		"trailing slash trimmed, path prefix kept": {
			`{"base_url":"https://gpu.example.org/ollama/"}`,
			settings{baseURL: "https://gpu.example.org/ollama", options: map[string]json.RawMessage{}},
		},
		"think bool from hcl": {
			`{"think":"true"}`,
			settings{baseURL: defaultBaseURL, think: json.RawMessage(`true`), options: map[string]json.RawMessage{}},
		},
		"think level, any case": {
			`{"think":" Medium "}`,
			settings{baseURL: defaultBaseURL, think: json.RawMessage(`"medium"`), options: map[string]json.RawMessage{}},
		},
		"keep_alive seconds become a number": {
			`{"keep_alive":"-1"}`,
			settings{baseURL: defaultBaseURL, keepAlive: json.RawMessage(`-1`), options: map[string]json.RawMessage{}},
		},
		"keep_alive duration stays a string": {
			`{"keep_alive":"1h30m"}`,
			settings{baseURL: defaultBaseURL, keepAlive: json.RawMessage(`"1h30m"`), options: map[string]json.RawMessage{}},
		},
		"options numbers and booleans": {
			`{"options":{"num_ctx":"8192","top_p":"0.9","low_vram":"true"}}`,
			settings{baseURL: defaultBaseURL, options: map[string]json.RawMessage{
				"num_ctx": json.RawMessage(`8192`), "top_p": json.RawMessage(`0.9`), "low_vram": json.RawMessage(`true`),
			}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := parseConfig(sdk.Config{Values: json.RawMessage(tc.values)})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(settings{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigureRefuses(t *testing.T) {
	t.Parallel()
	egress := sdktest.NewFakeEgress(t, http.NotFoundHandler())
	tests := map[string]struct {
		values string
		egress sdk.Egress
		want   string
	}{
		"no egress":            {`{}`, nil, "no egress"},
		"relative base_url":    {`{"base_url":"127.0.0.1:11434"}`, egress, "absolute"},
		"ftp base_url":         {`{"base_url":"ftp://127.0.0.1:11434"}`, egress, "absolute"},
		"base_url with query":  {`{"base_url":"http://127.0.0.1:11434?x=1"}`, egress, "query"},
		"openai root":          {`{"base_url":"http://127.0.0.1:11434/v1/"}`, egress, "http://127.0.0.1:11434)"},
		"negative max_tokens":  {`{"max_tokens":-1}`, egress, "max_tokens"},
		"think yes":            {`{"think":"yes"}`, egress, "think"},
		"keep_alive soon":      {`{"keep_alive":"soon"}`, egress, "keep_alive"},
		"option text value":    {`{"options":{"num_ctx":"big"}}`, egress, "num_ctx"},
		"option bad name":      {`{"options":{"Num-Ctx":"1"}}`, egress, "not an option name"},
		"option num_predict":   {`{"options":{"num_predict":"10"}}`, egress, "max_tokens"},
		"option stop":          {`{"options":{"stop":"\n"}}`, egress, "stop"},
		"authorization header": {`{"headers":{"authorization":"Bearer x"}}`, egress, "may not be set"},
		"api key header":       {`{"headers":{"X-API-Key":"k"}}`, egress, "may not be set"},
		"wrong type":           {`{"max_tokens":"lots"}`, egress, "decode"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := (&ollama{}).Configure(context.Background(), sdk.Config{Values: json.RawMessage(tc.values), Egress: tc.egress})
			if sdk.ClassOf(err) != sdk.ClassPermanent || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Configure error %v, want a permanent error mentioning %q", err, tc.want)
			}
		})
	}
}

// TestGenerateRequestOnTheWire checks the HTTP request: the base_url path
// is kept, extra headers go out, the body is the translated request, and
// no credential.
func TestGenerateRequestOnTheWire(t *testing.T) {
	t.Parallel()
	egress := sdktest.NewFakeEgress(t, sdktest.LoadFixture(t, filepath.Join(localFixtures, "stream-thinking-text.txt")))
	o := configured(t, egress, `{
		"base_url": "https://gpu.example.org/ollama/",
		"model": "qwen3:4b",
		"think": "true",
		"keep_alive": "10m",
		"options": {"num_ctx": "8192"},
		"headers": {"X-Team": "pets"}
	}`)
	req := &sdk.Request{Messages: []sdk.Message{user(text("Greet me"))}, StopSequences: []string{"\n"}}
	if err := o.Generate(context.Background(), req, &sdktest.Recorder{}); err != nil {
		t.Fatalf("Generate: %v", err)
	}
	reqs := egress.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.URL != "https://gpu.example.org/ollama/api/chat" {
		t.Errorf("request %s %s", r.Method, r.URL)
	}
	wantHeaders := map[string]string{
		"X-Team":        "pets",
		"Content-Type":  "application/json",
		"Accept":        "application/x-ndjson, application/json",
		"Authorization": "",
	}
	for h, want := range wantHeaders {
		if got := r.Header.Get(h); got != want {
			t.Errorf("header %s = %q, want %q", h, got, want)
		}
	}
	want := `{"model":"qwen3:4b","messages":[{"role":"user","content":"Greet me"}],"stream":true,"think":true,"keep_alive":"10m","options":{"num_ctx":8192,"stop":["\n"]}}`
	if diff := cmp.Diff(want, string(r.Body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

func TestGenerateEgressFailures(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err  error
		want error
	}{
		"connection refused": {errors.New("dial tcp 127.0.0.1:11434: connect: connection refused"), sdk.ErrTransient},
		"egress denied":      {sdk.ErrEgressDenied, sdk.ErrEgressDenied},
		"egress timeout":     {fmt.Errorf("egress: %w", sdk.ErrTimeout), sdk.ErrTimeout},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			egress := sdktest.EgressFunc(func(context.Context, *sdk.EgressRequest) (*sdk.EgressResponse, error) { return nil, tc.err })
			var rec sdktest.Recorder
			err := configured(t, egress, testConfig).Generate(context.Background(), replayRequest(), &rec)
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			if strings.Contains(fmt.Sprint(err), "127.0.0.1") {
				t.Errorf("error %q carries the transport's text", err)
			}
			if len(rec.Events()) != 0 {
				t.Errorf("events %v before any response", rec.Events())
			}
		})
	}
}

func TestGenerateBeforeConfigure(t *testing.T) {
	t.Parallel()
	err := (&ollama{}).Generate(context.Background(), replayRequest(), &sdktest.Recorder{})
	if sdk.ClassOf(err) != sdk.ClassPermanent {
		t.Errorf("error %v, want permanent", err)
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	egress := sdktest.NewFakeEgress(t, http.NotFoundHandler())
	tests := map[string]struct {
		values string
		want   []sdk.Model
	}{
		"configured model": {testConfig, []sdk.Model{{ID: "qwen3:4b"}}},
		"none configured":  {`{}`, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := configured(t, egress, tc.values).Models(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("models (-want +got):\n%s", diff)
			}
			if n := len(egress.Requests()); n != 0 {
				t.Errorf("Models made %d upstream requests", n)
			}
		})
	}
}

// TestGenerateDoesNotFollowRedirects: a redirect means a wrong base_url; it
// is reported as a permanent error, not followed with a second request.
func TestGenerateDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	calls := 0
	egress := sdktest.EgressFunc(func(context.Context, *sdk.EgressRequest) (*sdk.EgressResponse, error) {
		calls++
		return &sdk.EgressResponse{
			StatusCode: http.StatusMovedPermanently,
			Header:     http.Header{"Location": {"http://elsewhere.test/api/chat"}},
			Body:       io.NopCloser(strings.NewReader("")),
		}, nil
	})
	err := configured(t, egress, testConfig).Generate(context.Background(), replayRequest(), &sdktest.Recorder{})
	var e *sdk.Error
	if !errors.As(err, &e) || e.Class != sdk.ClassPermanent || e.Status != http.StatusMovedPermanently {
		t.Errorf("error %v, want permanent with status 301", err)
	}
	if calls != 1 {
		t.Errorf("%d egress requests, want 1", calls)
	}
}
