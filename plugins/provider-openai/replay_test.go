package main

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// sharedFixtures is the project's set of recorded provider replies.
const sharedFixtures = "../testdata/wire" // the recorded provider responses; see plugins/testdata/README.md

// ownFixtures are the cases the shared set lacks, written for this plugin.
const ownFixtures = "testdata/wire"

// fixtureRule says what happens to the fixture files whose path (relative
// to the fixture root) starts with prefix. Every body file must match
// exactly one rule, so a fixture added later is never skipped silently.
type fixtureRule struct {
	prefix string
	replay bool
	reason string // why a file is not replayed
	api    string // the api attribute to replay with; empty is chat
}

var fixtureRules = []fixtureRule{
	{prefix: "openai/chat-", replay: true},
	{prefix: "openai/error-", replay: true},
	{prefix: "openai/responses-", replay: true, api: apiResponses},
	{prefix: "openai-compatible/", replay: true},
	{prefix: "ollama/v1-", replay: true},
	{prefix: "ollama/api-chat-", reason: "Ollama native /api/chat NDJSON stream: replayed by provider-ollama"},
	{prefix: "openrouter/", replay: true},
	{prefix: "groq/", replay: true},
	{prefix: "mistral/", replay: true},
	{prefix: "deepseek/", replay: true},
	{prefix: "zai/", replay: true},
	{prefix: "gemini/openai-compat-", replay: true},
	{prefix: "gemini/error-", replay: true},
	{prefix: "gemini/generate-content-", reason: "Gemini native generateContent: replayed by provider-gemini"},
	{prefix: "gemini/stream-generate-content-", reason: "Gemini native streamGenerateContent: replayed by provider-gemini"},
	{prefix: "anthropic/error-", replay: true},
	{prefix: "anthropic/messages-", reason: "Anthropic Messages API, served by provider-anthropic"},
}

// bodyFiles lists the response bodies under root, relative to it.
func bodyFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "LICENSES" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		name := d.Name()
		if rel == "README.md" || strings.HasSuffix(name, ".meta.json") || strings.HasSuffix(name, ".request.json") {
			return nil
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatalf("list fixtures in %s: %v", root, err)
	}
	if len(files) == 0 {
		t.Fatalf("no fixtures under %s", root)
	}
	return files
}

// fixtureAPI is the api attribute a fixture is replayed with: the shared
// set says so in its rules, and this plugin's own Responses cases live
// under testdata/wire/responses/.
func fixtureAPI(root, rel string) string {
	if root == ownFixtures {
		if strings.HasPrefix(rel, "responses/") {
			return apiResponses
		}
		return apiChat
	}
	if r, _ := ruleFor(rel); r.api != "" {
		return r.api
	}
	return apiChat
}

func ruleFor(rel string) (fixtureRule, bool) {
	for _, r := range fixtureRules {
		if strings.HasPrefix(rel, r.prefix) {
			return r, true
		}
	}
	return fixtureRule{}, false
}

// TestSharedFixturesCovered lists every shared fixture this plugin does not
// replay, with the reason, and fails on a fixture no rule covers.
func TestSharedFixturesCovered(t *testing.T) {
	replayed := 0
	for _, rel := range bodyFiles(t, sharedFixtures) {
		r, ok := ruleFor(rel)
		switch {
		case !ok:
			t.Errorf("%s: no fixture rule says whether to replay it", rel)
		case r.replay:
			replayed++
		default:
			t.Logf("not replayed: %s: %s", rel, r.reason)
		}
	}
	if replayed == 0 {
		t.Error("no shared fixture is replayed")
	}
}

func TestReplaySharedFixtures(t *testing.T) {
	t.Parallel()
	for _, rel := range bodyFiles(t, sharedFixtures) {
		if r, ok := ruleFor(rel); !ok || !r.replay {
			continue
		}
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			replay(t, sharedFixtures, rel, "replay/shared/"+rel+".golden")
		})
	}
}

func TestReplayOwnFixtures(t *testing.T) {
	t.Parallel()
	for _, rel := range bodyFiles(t, ownFixtures) {
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			replay(t, ownFixtures, rel, "replay/own/"+rel+".golden")
		})
	}
}

// replay serves one recorded reply with its recorded status, content type
// and headers, runs Generate against it and compares the canonical result
// with the golden file.
func replay(t *testing.T, root, rel, golden string) {
	t.Helper()
	f := sdktest.LoadFixture(t, filepath.Join(root, rel))
	p, _ := configure(t, f, fmt.Sprintf(`{"model":"test-model","api":%q}`, fixtureAPI(root, rel)))

	events, err := generate(t, p, userRequest("What's the weather in Florence?"))
	if err == nil {
		sdktest.CheckEvents(t, events)
	} else if sdk.ClassOf(err) == "" {
		t.Errorf("unclassified error: %v", err)
	}
	// Only the class, a safe label and the hint leave the plugin: never
	// the vendor's free text, which may echo a key or the prompt.
	if we, ok := parseError(f.Body); ok && err != nil && we.message != "" && strings.Contains(err.Error(), we.message) {
		t.Errorf("error %q carries the upstream message", err)
	}
	checkGolden(t, golden, render(t, events, err))
}
