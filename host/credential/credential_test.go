package credential

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"", "none", false},
		{"env:OPENAI_API_KEY", "env:OPENAI_API_KEY", false},
		{"file:~/.config/axon/zai.key", "file:~/.config/axon/zai.key", false},
		{"sk-abc123", "", true},
		{"env:", "", true},
		{"vault:x", "", true},
	} {
		r, err := Parse(c.in)
		if (err != nil) != c.wantErr {
			t.Errorf("Parse(%q) error = %v, wantErr %v", c.in, err, c.wantErr)
			continue
		}
		if err == nil && r.String() != c.want {
			t.Errorf("Parse(%q) = %q, want %q", c.in, r, c.want)
		}
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-0123456789"
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(k string) (string, bool) {
		if k == "SET" {
			return secret, true
		}
		return "", false
	}
	for _, c := range []struct {
		ref     string
		want    string
		missing bool
	}{
		{"env:SET", secret, false},
		{"env:UNSET", "", true},
		{"file:" + keyFile, secret, false},
		{"file:" + filepath.Join(dir, "nope"), "", true},
		{"", "", false},
	} {
		s, err := MustParse(c.ref).Resolve(env)
		if c.missing != errors.Is(err, ErrMissing) {
			t.Errorf("%s: err = %v, missing = %v", c.ref, err, c.missing)
		}
		if s.Value() != c.want {
			t.Errorf("%s: value mismatch", c.ref)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("%s: error text reveals the secret", c.ref)
		}
	}
}

func TestSecretNeverPrints(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-0123456789"
	s := Secret{v: secret}
	j, _ := json.Marshal(struct{ S Secret }{s})
	for _, out := range []string{
		fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s", s, s, s, s), string(j),
		fmt.Errorf("wrapped: %v", s).Error(), s.Redact("header x-api-key: " + secret),
	} {
		if strings.Contains(out, secret) {
			t.Errorf("secret printed: %q", out)
		}
	}
}
