package sdktest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

// lister is relay plus the optional sdk.ModelLister.
type lister struct {
	relay
	models []sdk.Model
	err    error
}

func (l *lister) Models(context.Context) ([]sdk.Model, error) { return l.models, l.err }

// TestModelListerIsOptional crosses real go-plugin gRPC: a provider without
// sdk.ModelLister answers with no models, one with it answers its list, and
// its error arrives classified.
func TestModelListerIsOptional(t *testing.T) {
	ctx := context.Background()
	without := Serve(t, sdk.KindProvider, &relay{}, nil, nil).Provider(t)
	got, err := without.Models(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("a provider without ModelLister: %v, %v; want no models and no error", got, err)
	}

	want := []sdk.Model{{ID: "m-1", ContextWindow: 200000, MaxOutputTokens: 8192}, {ID: "m-2"}}
	with := Serve(t, sdk.KindProvider, &lister{models: want}, nil, nil).Provider(t)
	got, err = with.Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("models across the boundary (-want +got):\n%s", diff)
	}

	failing := Serve(t, sdk.KindProvider, &lister{err: sdk.Errorf(sdk.ClassAuthRequired, "key refused")}, nil, nil).Provider(t)
	if _, err := failing.Models(ctx); !errors.Is(err, sdk.ErrAuthRequired) {
		t.Errorf("a failing Models: %v; want class auth_required", err)
	}
}
