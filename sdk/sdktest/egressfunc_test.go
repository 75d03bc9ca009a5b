package sdktest

import (
	"context"
	"errors"
	"testing"

	"github.com/axonhq/axon/sdk"
)

func TestEgressFunc(t *testing.T) {
	t.Parallel()
	refused := sdk.Permanentf("refused")
	var got *sdk.EgressRequest
	var e sdk.Egress = EgressFunc(func(_ context.Context, req *sdk.EgressRequest) (*sdk.EgressResponse, error) {
		got = req
		return nil, refused
	})
	req := &sdk.EgressRequest{Method: "POST", URL: "https://api.test/v1"}
	if _, err := e.Do(context.Background(), req); !errors.Is(err, refused) {
		t.Errorf("error %v, want the function's", err)
	}
	if got != req {
		t.Error("the function did not receive the request")
	}
}
