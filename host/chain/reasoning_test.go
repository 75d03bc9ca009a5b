package chain

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

func TestDropForeignReasoning(t *testing.T) {
	t.Parallel()
	req := &sdk.Request{Messages: []sdk.Message{
		{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "q"}}},
		{Role: sdk.RoleAssistant, Parts: []sdk.Part{
			sdk.Reasoning{Text: "mine", Signature: "a-sig", Origin: "claude"},
			sdk.Reasoning{Redacted: `{"id":"rs_1","encrypted_content":"x"}`, Origin: "gpt"},
			sdk.Reasoning{Text: "client sent it", Signature: "s"},
			sdk.Text{Text: "answer"},
		}},
	}}
	got := dropForeignReasoning(cloneRequest(req, "m"), "claude")
	want := []sdk.Part{
		sdk.Reasoning{Text: "mine", Signature: "a-sig", Origin: "claude"},
		sdk.Reasoning{Text: "client sent it", Signature: "s"},
		sdk.Text{Text: "answer"},
	}
	if diff := cmp.Diff(want, got.Messages[1].Parts); diff != "" {
		t.Errorf("hop claude sees (-want +got):\n%s", diff)
	}
	if len(req.Messages[1].Parts) != 4 {
		t.Error("the caller's request was changed")
	}
}
