package supervisor

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk"
)

// TestPluginAPIVersionIsChecked: a real plugin process whose
// Info.APIVersions does not list this host's SDK API version is refused at
// start, by Probe (`axon plugins`) and by Check after Inspect (`axon check`
// and serve's preflight), with an error naming both sides; one that lists it
// among others starts.
func TestPluginAPIVersionIsChecked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		speaks  string // the hostile plugin's Info.APIVersions, stamped at link time; "": what Serve fills in
		refused bool
	}{
		{name: "the SDK's own", speaks: ""},
		{name: "a later SDK that still speaks this one", speaks: sdk.APIVersion + ",v2"},
		{name: "only a later one", speaks: "v2", refused: true},
		{name: "only an earlier one", speaks: "v0", refused: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := bin("hostile")
			if tc.speaks != "" {
				path = buildHostileSpeaking(t, tc.speaks)
			}
			sp := Spec{Name: "h", Kind: sdk.KindProvider, Path: path}
			s := newSupervisor(t, &logbuf.Buffer{}, Options{})
			if err := s.Add(sp); err != nil {
				t.Fatal(err)
			}
			in, _ := s.Instance("h")
			startErr := in.Start(context.Background())
			_, probeErr := Probe(context.Background(), nullLogger(), sp, IDRange{})
			info, checkErr := in.Inspect(context.Background())
			if checkErr == nil {
				checkErr = in.Check(info)
			}
			if !tc.refused {
				if startErr != nil || probeErr != nil || checkErr != nil {
					t.Fatalf("refused: start %v; probe %v; check %v", startErr, probeErr, checkErr)
				}
				return
			}
			want := "the plugin speaks SDK API " + tc.speaks + ", this axon speaks " + sdk.APIVersion
			for what, err := range map[string]error{"start": startErr, "probe": probeErr, "inspect and check": checkErr} {
				if !errors.Is(err, ErrAPIVersion) || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: err = %v, want ErrAPIVersion saying %q", what, err, want)
				}
			}
			if in.Pid() != 0 {
				t.Error("the refused plugin is still running")
			}
		})
	}
}

// buildHostileSpeaking builds host/internal/testplugin claiming to speak
// the comma-separated SDK API versions.
func buildHostileSpeaking(t *testing.T, versions string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "axon-provider-hostile")
	cmd := exec.Command("go", "build", "-ldflags=-X main.apiVersions="+versions, "-o", path, "../internal/testplugin")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as the other test plugins
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return path
}
