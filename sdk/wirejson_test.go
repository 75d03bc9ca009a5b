package sdk_test

import (
	"encoding/json"
	"testing"

	"github.com/axonhq/axon/sdk"
)

func TestEncodeJSON(t *testing.T) {
	t.Parallel()
	got, err := sdk.EncodeJSON(map[string]string{"prompt": "if a < b && c > d"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"prompt":"if a < b && c > d"}`; string(got) != want {
		t.Errorf("%s, want %s (no HTML escaping, no newline)", got, want)
	}
}

func TestToolInput(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		``:                       `{}`,
		"  null ":                `{}`,
		`{ "city": "Florence" }`: `{"city":"Florence"}`,
		`{}`:                     `{}`,
		`[1, 2]`:                 "",
		`"{\"city\":\"Rome\"}"`:  "",
		`{"city":`:               "",
		`location=Florence`:      "",
	} {
		got, err := sdk.ToolInput(json.RawMessage(raw))
		switch {
		case want == "" && err == nil:
			t.Errorf("%q: %s, want an error", raw, got)
		case want != "" && (err != nil || string(got) != want):
			t.Errorf("%q: %s, %v; want %s", raw, got, err, want)
		}
	}
}
