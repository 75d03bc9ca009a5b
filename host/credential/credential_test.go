package credential

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axonhq/axon/hcl/credref"
)

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
		ref     credref.Ref
		want    string
		missing bool
	}{
		{credref.MustParse("env:SET"), secret, false},
		{credref.MustParse("env:UNSET"), "", true},
		{credref.MustParse("file:" + keyFile), secret, false},
		{credref.MustParse("file:" + filepath.Join(dir, "nope")), "", true},
		{credref.Ref{}, "", false},
	} {
		s, err := Resolve(c.ref, env)
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
