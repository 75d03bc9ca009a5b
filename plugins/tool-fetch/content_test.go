package main

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		contentType string
		body        string
		truncated   bool
		want        string // page.body
		wantErr     string
	}{
		{name: "html", contentType: "text/html; charset=utf-8", body: "<p>hi</p>", want: "hi"},
		{name: "xhtml", contentType: "application/xhtml+xml", body: "<p>hi</p>", want: "hi"},
		{name: "json passes through", contentType: "application/json", body: `{"a": [1, 2]}`, want: `{"a": [1, 2]}`},
		{name: "problem+json passes through", contentType: "application/problem+json", body: `{"title":"x"}`, want: `{"title":"x"}`},
		{name: "plain text passes through", contentType: "text/plain", body: "a  <b>\n", want: "a  <b>\n"},
		{name: "markdown passes through", contentType: "text/markdown", body: "# h\n", want: "# h\n"},
		{name: "no type, sniffed html", contentType: "", body: "<!DOCTYPE html><p>sniffed</p>", want: "sniffed"},
		{name: "no type, sniffed text", contentType: "", body: "just words", want: "just words"},
		{name: "type case-insensitive", contentType: "Text/HTML", body: "<p>hi</p>", want: "hi"},
		{name: "cut inside a character", contentType: "text/plain", body: "price: 5 \xe2\x82", truncated: true, want: "price: 5 "},
		{name: "image refused", contentType: "image/png", body: "\x89PNG\r\n\x1a\n", wantErr: "image/png"},
		{name: "sniffed binary refused", contentType: "", body: "\x00\x01\x02\x03", wantErr: "application/octet-stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := render(tt.contentType, []byte(tt.body), tt.truncated)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.body != tt.want {
				t.Errorf("body %q, want %q", p.body, tt.want)
			}
		})
	}
}

func TestCutText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"a€b", 2, "a"}, // € is 3 bytes: never split
		{"a€b", 4, "a€"},
		{"€", 0, ""},
	}
	for _, tt := range tests {
		if got := cutText(tt.s, tt.n); got != tt.want {
			t.Errorf("cutText(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestTrimPartialRune(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"abc", "abc"},
		{"a€", "a€"},
		{"a\xe2\x82", "a"},
		{"a\xe2", "a"},
		{"a\xf0\x9f\x98", "a"},
		{"a\xf0\x9f\x98\x80", "a\xf0\x9f\x98\x80"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := string(trimPartialRune([]byte(tt.in))); got != tt.want {
			t.Errorf("trimPartialRune(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
