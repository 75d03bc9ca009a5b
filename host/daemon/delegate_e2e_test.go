package daemon

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/delegate"
	"github.com/axonhq/axon/host/usage"
)

func openai400(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	io.WriteString(w, `{"error":{"message":"no","type":"invalid_request_error"}}`)
}

// TestDelegateFallsBack: a delegated sub-task runs a chain over the
// chosen providers: the first refuses, the next answers, the trail says
// both, and the turn is recorded as source delegate. The menu holds only
// the providers that can delegate, priced and gated as routing sees them.
func TestDelegateFallsBack(t *testing.T) {
	first, second := newUpstream(t, openai400), newUpstream(t, openaiText("m-2", "from", "second"))
	block := func(name, url, extra string) string {
		return fmt.Sprintf("provider %q {\n  plugin   = \"openai\"\n  base_url = %q\n  model    = \"m\"\n  %s\n}\n", name, url+"/v1", extra)
	}
	r := newRig(t, block("first", first.URL, "tier = \"local\"\n  can_delegate = true")+
		block("second", second.URL, "tier = \"local\"\n  can_delegate = true")+
		block("paid", second.URL, "tier = \"api\"\n  can_delegate = true\n  pricing {\n    input_per_mtok = 3\n    output_per_mtok = 15\n  }")+
		block("other", second.URL, "tier = \"local\"")+
		"chain \"default\" { providers = [provider.other] }\n", Options{})
	d := r.broker.Delegates()

	var menu []string
	for _, tg := range d.Targets() {
		menu = append(menu, fmt.Sprintf("%s %s %s %q", tg.ID, tg.Tier, tg.Cost(), tg.Gate))
	}
	if got, want := strings.Join(menu, "; "), `first local free ""; second local free ""; paid api $3 in, $15 out per MTok "paid"`; got != want {
		t.Errorf("menu:\n%s\nwant:\n%s", got, want)
	}

	ans, err := d.Delegate(context.Background(), []string{"first", "second"}, delegate.Job{Prompt: "hi"})
	if err != nil {
		t.Fatalf("%v (trail %s)", err, ans.Trail)
	}
	if ans.Text != "from second" || ans.Provider != "second" || ans.Model != "m-2" {
		t.Errorf("answer %+v", ans)
	}
	if !strings.Contains(ans.Trail, "first#1 fallback permanent/400") || !strings.Contains(ans.Trail, "second#1 ok") {
		t.Errorf("trail %q", ans.Trail)
	}

	// The fact is queued when the turn ends; Flush returns once the
	// store's writer has written it.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a hang guard
	defer cancel()
	if err := r.broker.usage.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	facts, err := r.front.store.Facts(ctx, usage.Query{Since: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 {
		t.Fatalf("%d facts, want the delegated turn's", len(facts))
	}
	if f := facts[0]; f.Source != usage.SourceDelegate || f.Chain != DelegateChain || f.Provider != "second" || f.Tier != config.TierLocal || f.Attempts != 2 {
		t.Errorf("fact %+v", f)
	}
}
