package sdk

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSamplingOf(t *testing.T) {
	t.Parallel()
	raw := func(kv ...string) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = json.RawMessage(kv[i+1])
		}
		return m
	}
	s, err := SamplingOf(raw("top_p", "0.9", "top_k", "40", "seed", "-7", "other", `"x"`))
	if err != nil || s.TopP == nil || *s.TopP != 0.9 || s.TopK == nil || *s.TopK != 40 || s.Seed == nil || *s.Seed != -7 {
		t.Fatalf("SamplingOf = %+v, %v", s, err)
	}
	if s, err := SamplingOf(nil); err != nil || s.TopP != nil || s.TopK != nil || s.Seed != nil {
		t.Errorf("no options: %+v, %v; want all nil", s, err)
	}
	for _, tc := range []struct{ key, value, want string }{
		{"top_p", "1.5", "option top_p"},
		{"top_p", `"high"`, "option top_p"},
		{"top_k", "0", "option top_k"},
		{"top_k", "2.5", "option top_k"},
		{"seed", `"7"`, "option seed"},
	} {
		_, err := SamplingOf(raw(tc.key, tc.value))
		if ClassOf(err) != ClassPermanent || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %s: error %v, want a permanent one naming %q", tc.key, tc.value, err, tc.want)
		}
	}
}
