package cli

import (
	"errors"
	"fmt"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/chain"
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
	case errors.Is(err, supervisor.ErrChecksum):
		return "the plugin binary changed since it was pinned: if you rebuilt it, run `axon plugins lock` to pin the new one (`axon plugins` shows each binary's sha256)."
	case errors.Is(err, supervisor.ErrAPIVersion):
		return "the plugin was built against another plugin API: rebuild it with this axon's sdk (`make build`)."
	case e != nil && e.Code == "credential_missing" && provider != nil:
		return fmt.Sprintf("%s's key is not set: %s is empty or missing.", name, provider.Credential)
	case e != nil && e.Class == sdk.ClassAuthRequired:
		if provider != nil && !provider.Credential.IsZero() {
			return fmt.Sprintf("%s refused the key: check the key in %s (axon reads it at each request).", name, provider.Credential)
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
