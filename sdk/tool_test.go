package sdk

import (
	"encoding/json"
	"testing"
)

func TestInvocationHelpers(t *testing.T) {
	t.Parallel()
	inv := Invocation{CallID: "c1", Name: "now", Input: json.RawMessage(`{"zone":"UTC"}`)}
	var in struct {
		Zone string `json:"zone"`
	}
	if err := inv.Decode(&in); err != nil || in.Zone != "UTC" {
		t.Fatalf("Decode: %v %+v", err, in)
	}
	var strict struct{ Other string }
	if err := inv.Decode(&strict); err == nil {
		t.Error("an unknown argument was accepted")
	}
	if err := (Invocation{Input: json.RawMessage(" null ")}).Decode(&in); err != nil {
		t.Errorf("null input: %v", err)
	}
	r := inv.Errorf("bad %s", "zone")
	if !r.IsError || r.CallID != "c1" || r.Name != "now" || TextOf(r.Content) != "bad zone" {
		t.Errorf("Errorf: %+v", r)
	}
	if r := inv.JSON(map[string]int{"a": 1}); r.IsError || TextOf(r.Content) != `{"a":1}` {
		t.Errorf("JSON: %+v", r)
	}
}
