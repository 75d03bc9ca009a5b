package supervisor

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk"
)

// TestInspectNeverConfigures: Inspect starts the real binary, returns its
// Info and stops it without Configure (a display would open its panel
// there), leaving no process; Check then judges the block as a start
// would.
func TestInspectNeverConfigures(t *testing.T) {
	t.Parallel()
	wrongPin := sha256.Sum256([]byte("not the binary"))
	badBlock := errors.New("the block does not fit the schema")
	tests := []struct {
		name       string
		spec       Spec
		inspectErr error // errors.Is target; nil: Inspect succeeds
		checkErr   error // errors.Is target; nil: Check passes
	}{
		{name: "a fitting block", spec: Spec{Kind: sdk.KindProvider}},
		{name: "another kind", spec: Spec{Kind: sdk.KindDisplay}, checkErr: ErrKind},
		{name: "a block the schema refuses", spec: Spec{Kind: sdk.KindProvider,
			Values: func(sdk.Info) (json.RawMessage, error) { return nil, badBlock }}, checkErr: badBlock},
		{name: "a pin the binary does not match", spec: Spec{Kind: sdk.KindProvider, SHA256: wrongPin[:]}, inspectErr: ErrChecksum},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			logs := &logbuf.Buffer{}
			s := newSupervisor(t, logs, Options{})
			sp := tc.spec
			sp.Name, sp.Path = "h", bin("hostile")
			if sp.Values == nil {
				// Configured, the plugin would hang until StartTimeout.
				sp.Values = func(sdk.Info) (json.RawMessage, error) { return json.RawMessage(`{"hold_configure": true}`), nil }
			}
			if err := s.Add(sp); err != nil {
				t.Fatal(err)
			}
			in, _ := s.Instance("h")
			info, err := in.Inspect(context.Background())
			if tc.inspectErr != nil {
				if !errors.Is(err, tc.inspectErr) {
					t.Fatalf("Inspect: err = %v, want %v", err, tc.inspectErr)
				}
				return
			}
			if err != nil || info.Name != "hostile" || info.Kind != sdk.KindProvider {
				t.Fatalf("Inspect = %+v, %v", info, err)
			}
			if err := in.Check(info); !errors.Is(err, tc.checkErr) || (tc.checkErr == nil) != (err == nil) {
				t.Errorf("Check: err = %v, want %v", err, tc.checkErr)
			}
			if in.Pid() != 0 {
				t.Error("Inspect left a process running")
			}
			if strings.Contains(logs.String(), "holding configure") {
				t.Errorf("Inspect configured the plugin:\n%s", logs)
			}
		})
	}
}
