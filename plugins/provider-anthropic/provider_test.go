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
	info := (&anthropic{}).Info()
	if info.Name != "anthropic" || info.Kind != sdk.KindProvider {
		t.Errorf("name %q kind %q, want anthropic provider", info.Name, info.Kind)
	}
	if !info.Output {
		t.Error("Output is false: a JSON Schema goes out as output_config, which the API enforces")
	}
	if !info.Prefill {
		t.Error("Prefill is false: the provider continues a trailing assistant message")
	}
	if diff := cmp.Diff(sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-api-key"}, info.Auth); diff != "" {
		t.Errorf("auth (-want +got):\n%s", diff)
	}
	defaults := map[string]string{}
	for _, a := range info.Config.Attributes {
		defaults[a.Name+" "+a.Type] = string(a.Default)
	}
	want := map[string]string{
		"base_url string":          `"https://api.anthropic.com"`,
		"model string":             "",
		"max_tokens number":        "4096",
		"anthropic_version string": `"2023-06-01"`,
		"headers map(string)":      "",
		"thinking_budget number":   "0",
		"strict_stream bool":       "false",
	}
	if diff := cmp.Diff(want, defaults); diff != "" {
		t.Errorf("schema attributes and defaults (-want +got):\n%s", diff)
	}
}

// TestSchemaDefaultsMatchConfigure: the defaults the host applies from the
// schema and those Configure applies itself are the same.
func TestSchemaDefaultsMatchConfigure(t *testing.T) {
	t.Parallel()
	values := map[string]json.RawMessage{}
	for _, a := range (&anthropic{}).Info().Config.Attributes {
		if a.Default != nil {
			values[a.Name] = a.Default
		}
	}
	raw, err := json.Marshal(values)
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
	if diff := cmp.Diff(fromNothing, fromSchema, cmp.AllowUnexported(config{})); diff != "" {
		t.Errorf("(-Configure defaults +schema defaults):\n%s", diff)
	}
}

func TestConfigureRefuses(t *testing.T) {
	t.Parallel()
	egress := sdktest.NewFakeEgress(t, http.NotFoundHandler())
	tests := map[string]struct {
		values string
		egress sdk.Egress
	}{
		"no egress":              {`{}`, nil},
		"relative base_url":      {`{"base_url":"api.anthropic.com"}`, egress},
		"ftp base_url":           {`{"base_url":"ftp://api.anthropic.com"}`, egress},
		"base_url with query":    {`{"base_url":"https://api.anthropic.com?beta=true"}`, egress},
		"zero max_tokens":        {`{"max_tokens":0}`, egress},
		"negative thinking":      {`{"thinking_budget":-1}`, egress},
		"empty version":          {`{"anthropic_version":""}`, egress},
		"api key header":         {`{"headers":{"x-api-key":"sk-ant-123"}}`, egress},
		"authorization header":   {`{"headers":{"authorization":"Bearer x"}}`, egress},
		"version through header": {`{"headers":{"Anthropic-Version":"2023-01-01"}}`, egress},
		"wrong type":             {`{"max_tokens":"lots"}`, egress},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := (&anthropic{}).Configure(context.Background(), sdk.Config{Values: json.RawMessage(tc.values), Egress: tc.egress})
			if sdk.ClassOf(err) != sdk.ClassPermanent {
				t.Errorf("Configure error %v, want a permanent error", err)
			}
		})
	}
}

// TestGenerateRequestOnTheWire checks the HTTP request: the base_url path
// is kept (compatible endpoints live under a prefix), extra headers and the
// version go out, the body is the translated request, and no credential.
func TestGenerateRequestOnTheWire(t *testing.T) {
	t.Parallel()
	egress := sdktest.NewFakeEgress(t, sdktest.LoadFixture(t, filepath.Join(localFixtures, "stream-stop-sequence.sse")))
	a := configured(t, egress, `{
		"base_url": "https://api.z.ai/api/anthropic/",
		"model": "glm-4.6",
		"anthropic_version": "2023-06-01",
		"headers": {"anthropic-beta": "interleaved-thinking-2025-05-14"}
	}`)
	req := &sdk.Request{Messages: []sdk.Message{user(text("Count"))}, StopSequences: []string{"4"}}
	if err := a.Generate(context.Background(), req, &sdktest.Recorder{}); err != nil {
		t.Fatalf("Generate: %v", err)
	}
	reqs := egress.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.URL != "https://api.z.ai/api/anthropic/v1/messages" {
		t.Errorf("URL %s", r.URL)
	}
	wantHeaders := map[string]string{
		"Anthropic-Version": "2023-06-01",
		"Anthropic-Beta":    "interleaved-thinking-2025-05-14",
		"Content-Type":      "application/json",
		"X-Api-Key":         "",
		"Authorization":     "",
	}
	for h, want := range wantHeaders {
		if got := r.Header.Get(h); got != want {
			t.Errorf("header %s = %q, want %q", h, got, want)
		}
	}
	wr, err := buildRequest(req, a.cfg)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := sdk.EncodeJSON(wr) // the body as sent
	if diff := cmp.Diff(string(want), string(r.Body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

func TestGenerateEgressFailures(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err  error
		want error
	}{
		"connection refused": {errors.New("dial tcp 127.0.0.1:443: connect: connection refused"), sdk.ErrTransient},
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
			if len(rec.Events()) != 0 {
				t.Errorf("events %v before any response", rec.Events())
			}
		})
	}
}

func TestGenerateBeforeConfigure(t *testing.T) {
	t.Parallel()
	err := (&anthropic{}).Generate(context.Background(), replayRequest(), &sdktest.Recorder{})
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
		"configured model": {testConfig, []sdk.Model{{ID: "claude-sonnet-4-5"}}},
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

// TestGenerateDoesNotFollowRedirects: a redirect passed back by the egress
// (which, like the host's, does not follow it) means a wrong base_url; it is
// reported as a permanent error, not followed with a second request.
func TestGenerateDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	calls := 0
	egress := sdktest.EgressFunc(func(context.Context, *sdk.EgressRequest) (*sdk.EgressResponse, error) {
		calls++
		return &sdk.EgressResponse{
			StatusCode: http.StatusMovedPermanently,
			Header:     http.Header{"Location": {"https://elsewhere.test/v1/messages"}},
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
