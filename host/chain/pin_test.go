package chain

import (
	"context"
	"errors"
	"testing"

	"github.com/axonhq/axon/sdk"
)

func TestSplitPinned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model, chain, provider string
		ok                     bool
	}{
		{"default", "default", "", false},
		{"default/glm", "default", "glm", true},
		{"default/openrouter/x", "default", "openrouter/x", true},
		{"/glm", "/glm", "", false},
		{"default/", "default/", "", false},
		{"", "", "", false},
	}
	for _, tc := range tests {
		chainName, provider, ok := SplitPinned(tc.model)
		if chainName != tc.chain || provider != tc.provider || ok != tc.ok {
			t.Errorf("SplitPinned(%q) = %q, %q, %v; want %q, %q, %v", tc.model, chainName, provider, ok, tc.chain, tc.provider, tc.ok)
		}
	}
}

func TestPin(t *testing.T) {
	t.Parallel()
	glm := &scripted{t: t, name: "glm"}
	ollama := &scripted{t: t, name: "ollama", calls: [][]step{
		{fail(classErr(sdk.ClassTransient, 503, 0))},
		answer("qwen2.5:3b", "hi"),
	}}
	c := &Chain{Name: "default", Clock: newFakeClock(), Rand: fixedRand(0), Hops: []Hop{{Name: "glm", Provider: glm}, {Name: "ollama", Provider: ollama}}}

	pinned, err := c.Pin("ollama")
	if err != nil {
		t.Fatal(err)
	}
	res, err := pinned.Run(context.Background(), userRequest("hi"), &recorder{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Trail.String(), "ollama#1 retry transient/503 t=0ms, ollama#2 ok wait=400ms t=0ms"; got != want {
		t.Errorf("pinned trail = %s, want %s (the chain's retry policy and rand, one hop)", got, want)
	}
	if res.Chain != "default/ollama" || res.Provider != "ollama" {
		t.Errorf("result chain %q provider %q, want default/ollama and ollama", res.Chain, res.Provider)
	}
	if glm.count() != 0 {
		t.Error("a pinned run called another hop")
	}

	if _, err := c.Pin("gemini"); !errors.Is(err, ErrNoSuchHop) {
		t.Errorf("Pin(unknown) error = %v, want ErrNoSuchHop", err)
	}
}
