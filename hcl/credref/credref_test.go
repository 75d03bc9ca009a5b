package credref

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		in         string
		wantSource Source
		wantName   string
		wantErr    string // a substring; "" when the reference is valid
		literal    bool   // the error is ErrLiteral
	}{
		{name: "env", in: "env:ZAI_API_KEY", wantSource: SourceEnv, wantName: "ZAI_API_KEY"},
		{name: "env with digits", in: "env:OPENAI_API_KEY2", wantSource: SourceEnv, wantName: "OPENAI_API_KEY2"},
		{name: "env with a leading _", in: "env:_KEY", wantSource: SourceEnv, wantName: "_KEY"},
		{name: "file", in: "file:/home/pi/key", wantSource: SourceFile, wantName: "/home/pi/key"},
		{name: "file under ~", in: "file:~/.config/axon/zai.key", wantSource: SourceFile, wantName: "~/.config/axon/zai.key"},
		{name: "file with an inner space", in: "file:/home/pi/my keys/k", wantSource: SourceFile, wantName: "/home/pi/my keys/k"},

		{name: "pasted key", in: "sk-ant-api03-abcdef", wantErr: "not a literal value", literal: true},
		{name: "short pasted key", in: "sk-abc123", wantErr: "not a literal value", literal: true},
		{name: "pasted key with a colon", in: "Bearer:sk-abc123", wantErr: "not a literal value", literal: true},
		{name: "unknown source", in: "vault:x", wantErr: "not a literal value", literal: true},
		{name: "empty", in: "", wantErr: "not a literal value", literal: true},
		{name: "env without a name", in: "env:", wantErr: `"env:" must be followed by an environment variable name`},
		{name: "env name starting with a digit", in: "env:1BAD", wantErr: "environment variable name"},
		{name: "env name with a dash", in: "env:A-B", wantErr: "environment variable name"},
		{name: "env name with a space", in: "env: ZAI_API_KEY", wantErr: "environment variable name"},
		{name: "file without a path", in: "file:", wantErr: `"file:" must be followed by a path`},
		{name: "file path with a trailing space", in: "file:/run/secrets/k ", wantErr: "must not begin or end with white space"},
		{name: "file path with a leading space", in: "file: /run/secrets/k", wantErr: "must not begin or end with white space"},
		{name: "file path with a trailing newline", in: "file:/run/secrets/k\n", wantErr: "must not begin or end with white space"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tc.in)
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("Parse(%q) = %v, want an error", tc.in, got)
				}
				if !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("Parse(%q) error = %q, want it to contain %q", tc.in, err, tc.wantErr)
				}
				if tc.literal != errors.Is(err, ErrLiteral) {
					t.Errorf("Parse(%q) error = %v, ErrLiteral = %v", tc.in, err, tc.literal)
				}
				// The input may be a pasted secret: no error repeats it
				// (beyond the "env:"/"file:" prefix every message names).
				if rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(tc.in, "env:"), "file:")); rest != "" && strings.Contains(err.Error(), rest) {
					t.Errorf("Parse(%q) error repeats the input: %v", tc.in, err)
				}
				if !got.IsZero() {
					t.Errorf("Parse(%q) returned %v with its error", tc.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if got.Source() != tc.wantSource || got.Name() != tc.wantName {
				t.Errorf("Parse(%q) = (%q, %q), want (%q, %q)", tc.in, got.Source(), got.Name(), tc.wantSource, tc.wantName)
			}
			if got.IsZero() {
				t.Errorf("Parse(%q) is zero", tc.in)
			}
			if got.String() != tc.in {
				t.Errorf("String() = %q, want %q", got.String(), tc.in)
			}
			if again := MustParse(got.String()); again != got {
				t.Errorf("Parse(String()) = %v, want %v", again, got)
			}
		})
	}
}

// TestConstructorsValidateAsParse: Env and File accept and refuse exactly
// what Parse does after "env:" and "file:", so no Ref skips a check.
func TestConstructorsValidateAsParse(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"ZAI_API_KEY", "_X", "", "1BAD", "A-B", " X"} {
		want, wantErr := Parse("env:" + name)
		got, err := Env(name)
		if got != want || (err == nil) != (wantErr == nil) {
			t.Errorf("Env(%q) = %v, %v; Parse = %v, %v", name, got, err, want, wantErr)
		}
	}
	for _, path := range []string{"/run/k", "~/k", "k", "", " /run/k", "/run/k\t"} {
		want, wantErr := Parse("file:" + path)
		got, err := File(path)
		if got != want || (err == nil) != (wantErr == nil) {
			t.Errorf("File(%q) = %v, %v; Parse = %v, %v", path, got, err, want, wantErr)
		}
	}
}

func TestZeroAndPrinting(t *testing.T) {
	t.Parallel()
	var zero Ref
	if !zero.IsZero() || zero.Source() != "" || zero.Name() != "" {
		t.Errorf("zero Ref = (%q, %q), IsZero %v", zero.Source(), zero.Name(), zero.IsZero())
	}
	if got := zero.String(); got != "none" {
		t.Errorf("zero Ref String() = %q, want none", got)
	}
	if got := fmt.Sprintf("%#v", MustParse("env:K")); got != `credref.Ref("env:K")` {
		t.Errorf("GoString = %s", got)
	}
	if got := fmt.Sprintf("%v %+v %s", MustParse("env:K"), MustParse("env:K"), MustParse("env:K")); got != "env:K env:K env:K" {
		t.Errorf("printed = %s", got)
	}
}

func TestMustParsePanicsWithoutTheInput(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-0123456789"
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("MustParse accepted a literal")
		}
		if strings.Contains(fmt.Sprint(r), secret) {
			t.Errorf("panic repeats the input: %v", r)
		}
	}()
	MustParse(secret)
}
