package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

// TestInfoCacheKeepsInfoAsDeclared: an Info comes back from the cache as
// the plugin declared it, an absent default absent and a literal null
// default null, for as long as the binary's size and mtime are unchanged.
func TestInfoCacheKeepsInfoAsDeclared(t *testing.T) {
	t.Parallel()
	if n := reflect.TypeOf(sdk.Info{}).NumField(); n != 11 {
		t.Fatalf("sdk.Info has %d fields: add the new one to cachedInfo", n)
	}
	if n := reflect.TypeOf(sdk.Attribute{}).NumField(); n != 5 {
		t.Fatalf("sdk.Attribute has %d fields: add the new one to cachedAttribute", n)
	}
	tests := []struct {
		name string
		info sdk.Info
	}{
		{name: "every field", info: sdk.Info{
			Name: "p", Kind: sdk.KindProvider, Version: "1.2.3", APIVersions: []string{sdk.APIVersion, "v2"},
			Config: sdk.Schema{Attributes: []sdk.Attribute{
				{Name: "base_url", Type: "string", Required: true, Description: "where"},
				{Name: "n", Type: "number", Default: json.RawMessage(`4096`)},
				{Name: "odd", Type: "string", Default: json.RawMessage(`null`)},
			}},
			Auth:    sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-api-key"},
			Prefill: true, Output: true, InlineMedia: true, Options: []string{"top_p", "seed"},
			Lacks: []string{sdk.LackSequential},
		}},
		{name: "nothing declared", info: sdk.Info{Kind: sdk.KindDisplay}},
		{name: "no options rendered", info: sdk.Info{Kind: sdk.KindProvider, Options: []string{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cache := newInfoCache(t.TempDir())
			bin := filepath.Join(t.TempDir(), "axon-provider-p")
			if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
				t.Fatal(err)
			}
			sha, st, err := hashBinary(bin)
			if err != nil {
				t.Fatal(err)
			}
			if err := cache.store(bin, st, sha, tc.info); err != nil {
				t.Fatal(err)
			}
			gotSHA, got, ok := cache.lookup(bin, st)
			if !ok || gotSHA != sha {
				t.Fatalf("lookup = %q, %v; want %q", gotSHA, ok, sha)
			}
			if diff := cmp.Diff(tc.info, got); diff != "" {
				t.Errorf("Info changed in the cache (-stored +read):\n%s", diff)
			}
			if (got.Options == nil) != (tc.info.Options == nil) {
				t.Errorf("Options %#v read back as %#v: none rendered and not saying are apart", tc.info.Options, got.Options)
			}
			// Rebuilt: another size, another mtime.
			if err := os.WriteFile(bin, []byte("another binary"), 0o755); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(bin, time.Now(), time.Now().Add(time.Hour))
			fi, _ := os.Stat(bin)
			if _, _, ok := cache.lookup(bin, statOf(fi)); ok {
				t.Error("the entry still holds for a changed binary")
			}
		})
	}
}
