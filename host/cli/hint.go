package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/routing"
	"github.com/axonhq/axon/host/supervisor"
	"github.com/axonhq/axon/sdk"
)

// failureHint is what to do about the last failure of an unanswered
// chain, matched to its class and to the provider that failed: how to
// start the local server, which variable or file holds the key, which
// command repairs the plugin. "" when there is nothing more specific than
// the error itself.
func failureHint(cfg *config.Config, ex *chain.ExhaustedError) string {
	var provider *config.Provider
	for i := len(ex.Trail) - 1; i >= 0 && provider == nil; i-- {
		if a := ex.Trail[i]; a.Outcome != chain.OutcomeSkip {
			provider = cfg.Provider(a.Provider)
		}
	}
	name := "the provider"
	if provider != nil {
		name = fmt.Sprintf("provider %q", provider.Name)
	}
	err := ex.Last
	var e *sdk.Error
	errors.As(err, &e)
	switch {
	case e != nil && e.Code == routing.CodeNoRoute:
		return "routing left no provider to try: a tier \"api\" provider is tried only with axon { billing { enabled = true } } and enabled = true in its block, and one with enabled = false never (`axon check` warns about both)."
	case e != nil && e.Code == routing.CodeBudgetExhausted:
		return "every provider routing could try is over its monthly budget (budget { usd_per_month }) this month: `axon stats --by provider` shows the spend; raise the budget or add an unpaid provider to the chain."
	case errors.Is(err, supervisor.ErrChecksum) && provider != nil:
		return checksumHint(cfg, provider)
	case errors.Is(err, supervisor.ErrChecksum):
		return "the plugin binary changed since it was pinned: if you rebuilt it, run `axon plugins lock` to pin the new one (`axon plugins` shows each binary's sha256)."
	case errors.Is(err, supervisor.ErrAPIVersion) && provider != nil:
		return apiVersionHint(cfg, provider)
	case errors.Is(err, supervisor.ErrAPIVersion):
		return fmt.Sprintf("the plugin was built against another plugin API than this axon's (%s): rebuild it with this axon's sdk (`make build`).", sdk.APIVersion)
	case errors.Is(err, fs.ErrNotExist) && provider != nil && !binaryExists(cfg, provider):
		return missingBinaryHint(cfg, provider)
	case e != nil && e.Code == "credential_missing" && provider != nil:
		return fmt.Sprintf("%s's key is not set: %s.", name, credentialMissing(provider))
	case e != nil && e.Class == sdk.ClassAuthRequired:
		if provider != nil && !provider.Credential.IsZero() {
			check := "check that it is this provider's key and still valid"
			if e.Status == http.StatusForbidden {
				check = fmt.Sprintf("check that the key may use model %q", provider.Model())
			}
			return fmt.Sprintf("%s refused the key%s: it comes from %s; %s (axon reads it at each request).",
				name, statusNote(e.Status), credentialSource(provider), check)
		}
		return fmt.Sprintf("%s asks for a key and none is configured: set `credential = env(\"NAME\")` on its block.", name)
	case provider != nil && provider.Preset == "ollama" && e != nil && e.Status == 0 && e.Class == sdk.ClassTransient:
		return fmt.Sprintf("is Ollama running at %s? Start it with `ollama serve`, and fetch the model once with `ollama pull %s`.", provider.BaseURL(), provider.Model())
	case e != nil && e.Status == 0 && e.Class == sdk.ClassTransient:
		if provider != nil {
			return fmt.Sprintf("%s could not be reached at %s: check the address and that it is up.", name, provider.BaseURL())
		}
	}
	return ""
}

// checksumHint names the binary, the digest it was expected to have and
// where that pin is written, and the digest it has now.
func checksumHint(cfg *config.Config, p *config.Provider) string {
	path := cfg.PluginPath(&p.PluginBlock)
	actual, err := fileSHA256(path)
	if err != nil {
		actual = fmt.Sprintf("unreadable (%v)", err)
	}
	if p.SHA256 != "" {
		// A block's own pin wins over the lock file, so `axon plugins lock`
		// would not change what is enforced.
		return fmt.Sprintf("%s does not match its pin: expected sha256 %s (the sha256 in provider %q, %s), actual %s. "+
			"If you rebuilt or upgraded the plugin, put the new sha256 in that block (`axon plugins lock` does not change a block's pin); if you did not, find out what changed the binary before you run it.",
			path, p.SHA256, p.Name, where(p.DefRange), actual)
	}
	expected := "(none: the lock file no longer pins it)"
	lock, _, diags := config.LoadLock(cfg.LockPath())
	if !diags.HasErrors() {
		if sha, ok := lock.SHA256(p.Binary()); ok {
			expected = sha
		}
	}
	return fmt.Sprintf("%s does not match its pin: expected sha256 %s (%s), actual %s. "+
		"If you rebuilt or upgraded the plugin, run `axon plugins lock` to pin the new binary; if you did not, find out what changed it before you run it.",
		path, expected, cfg.LockPath(), actual)
}

// apiVersionHint says which binary speaks another plugin API and how to
// get one that speaks this axon's; the error above names the plugin's.
func apiVersionHint(cfg *config.Config, p *config.Provider) string {
	lock, _, _ := config.LoadLock(cfg.LockPath())
	pinned := ""
	if p.Pin(lock) != "" {
		pinned = ", then `axon plugins lock` to pin the rebuilt binary"
	}
	return fmt.Sprintf("%s was built for another plugin API than this axon's (%s): rebuild it against this axon's sdk (`make build` rebuilds the plugins of this repository into bin/) and put it in plugin_dir %s%s, or run the axon release it was built for.",
		cfg.PluginPath(&p.PluginBlock), sdk.APIVersion, cfg.Axon.PluginDir, pinned)
}

// missingBinaryHint names the binary the block asks for and what is
// installed instead.
func missingBinaryHint(cfg *config.Config, p *config.Provider) string {
	prefix := config.BinaryName(p.Kind, "")
	var same []string
	installed, _ := config.InstalledPlugins(cfg.Axon.PluginDir)
	for _, n := range installed {
		if name, ok := strings.CutPrefix(n, prefix); ok && name != "" {
			same = append(same, name)
		}
	}
	there := fmt.Sprintf("no %s plugin is installed there", p.Kind)
	if len(same) > 0 {
		there = fmt.Sprintf("%s plugins installed there: %s", p.Kind, strings.Join(same, ", "))
	}
	return fmt.Sprintf("there is no %s in plugin_dir %s for provider %q (plugin %q, %s; %s): `axon plugins` lists the installed binaries.",
		p.Binary(), cfg.Axon.PluginDir, p.Name, p.Plugin, where(p.PluginRange), there)
}

func binaryExists(cfg *config.Config, p *config.Provider) bool {
	_, err := os.Stat(cfg.PluginPath(&p.PluginBlock))
	return !errors.Is(err, fs.ErrNotExist)
}

// credentialSource says which variable or file holds p's key, and where
// the configuration says so.
func credentialSource(p *config.Provider) string {
	s := credentialName(p.Credential)
	switch {
	case p.Preset != "" && p.CredentialRange == p.DefRange:
		s += fmt.Sprintf(" (preset %q's default, provider block at %s)", p.Preset, where(p.DefRange))
	case p.CredentialRange != (hcl.Range{}):
		s += " (" + where(p.CredentialRange) + ")"
	}
	return s
}

// credentialMissing says why p's key could not be read, and where the
// configuration names it.
func credentialMissing(p *config.Provider) string {
	what := credentialSource(p)
	if p.Credential.Source() == credref.SourceFile {
		return what + " is missing or unreadable: write the key there (mode 0600)"
	}
	return what + " is unset or empty: export it in the environment axon runs in"
}

func credentialName(r credref.Ref) string {
	switch r.Source() {
	case credref.SourceEnv:
		return "the environment variable " + r.Name()
	case credref.SourceFile:
		return "the file " + r.Name()
	}
	return r.String()
}

func statusNote(status int) string {
	if status == 0 {
		return ""
	}
	return fmt.Sprintf(" (HTTP %d)", status)
}

// where is a configuration range as the diagnostics print it.
func where(r hcl.Range) string {
	if r.Filename == "" {
		return "the configuration"
	}
	return fmt.Sprintf("%s line %d", r.Filename, r.Start.Line)
}
