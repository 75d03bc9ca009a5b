package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
)

// Defaults for the plugin-owned attributes, declared in the schema and
// applied again in parseConfig.
const (
	defaultPath    = "/usr/local/bin:/usr/bin:/bin"
	defaultTimeout = "60s"
)

// config is the plugin-owned part of a tool block, as the host sends it.
type config struct {
	Command     []string          `json:"command"`
	URL         string            `json:"url"`
	Env         map[string]string `json:"env"`
	SideEffects map[string]string `json:"side_effects"`
	Timeout     string            `json:"timeout"`
	Path        string            `json:"path"`
}

// settings is a checked config.
type settings struct {
	argv      []string // command, argv[0] resolved to an absolute path; nil with url
	url       string
	path      string
	env       map[string]string
	overrides map[string]sdk.SideEffect
	timeout   time.Duration
}

func schema() sdk.Schema {
	return sdk.Schema{Attributes: []sdk.Attribute{
		{Name: "command", Type: "list(string)",
			Description: "The MCP server's argv, spoken to over stdio and started inside this plugin's sandbox, never through a shell. argv[0] is absolute or found in path. Exactly one of command and url."},
		{Name: "url", Type: "string",
			Description: "The MCP server's streamable HTTP endpoint, reached through the host's egress (allow it in the block's egress). Exactly one of command and url."},
		{Name: "env", Type: "map(string)",
			Description: "Extra variables for the server's environment, which is otherwise only HOME, TMPDIR, PATH and HTTPS_PROXY. HOME, PATH and the proxy variables are refused."},
		{Name: "side_effects", Type: "map(string)",
			Description: "Side-effect class per tool name (none, idempotent or unsafe), overriding what the server's annotations say."},
		{Name: "timeout", Type: "string", Default: sdk.Default(defaultTimeout),
			Description: "How long one call may take (a Go duration); then the server is killed (transient, timeout) and started again on the next call."},
		{Name: "path", Type: "string", Default: sdk.Default(defaultPath),
			Description: "PATH for the server, and where a bare argv[0] is looked up; absolute directories only."},
	}}
}

// reservedEnv are the variables env may not set: the plugin sets them, and
// a proxy variable set by hand would route around the host's proxy.
var reservedEnv = []string{"HOME", "PATH", "TMPDIR", "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY"}

// parseConfig decodes and checks the values. Every refusal is permanent:
// the block is wrong, not the moment.
func parseConfig(cfg sdk.Config) (*settings, error) {
	c := config{Timeout: defaultTimeout, Path: defaultPath}
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	s := &settings{path: c.Path}
	var err error
	if s.timeout, err = time.ParseDuration(c.Timeout); err != nil || s.timeout <= 0 {
		return nil, sdk.Permanentf("timeout %q: want a positive Go duration such as 60s", c.Timeout)
	}
	switch {
	case len(c.Command) > 0 && c.URL != "":
		return nil, sdk.Permanentf("set command or url, not both")
	case len(c.Command) > 0:
		if s.argv, err = checkCommand(c.Command, c.Path); err != nil {
			return nil, err
		}
	case c.URL != "":
		if s.url, err = checkURL(c.URL); err != nil {
			return nil, err
		}
		if len(c.Env) > 0 {
			return nil, sdk.Permanentf("env is for a command; a url server runs elsewhere")
		}
	default:
		return nil, sdk.Permanentf("set command (an MCP server over stdio) or url (streamable HTTP)")
	}
	if s.env, err = checkEnv(c.Env); err != nil {
		return nil, err
	}
	if s.overrides, err = checkSideEffects(c.SideEffects); err != nil {
		return nil, err
	}
	return s, nil
}

func checkCommand(argv []string, path string) ([]string, error) {
	if argv[0] == "" {
		return nil, sdk.Permanentf("command: argv[0] is empty")
	}
	for i, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, sdk.Permanentf("command element %d holds a NUL byte", i)
		}
	}
	if path == "" {
		return nil, sdk.Permanentf("path is empty")
	}
	dirs := filepath.SplitList(path)
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return nil, sdk.Permanentf("path entry %q is not an absolute directory", d)
		}
	}
	exe, err := lookPath(argv[0], dirs)
	if err != nil {
		return nil, err
	}
	return append([]string{exe}, argv[1:]...), nil
}

// lookPath resolves name as exec.LookPath would, but in dirs rather than
// the plugin's own PATH, which the sandbox does not set.
func lookPath(name string, dirs []string) (string, error) {
	if filepath.IsAbs(name) {
		if err := executable(name); err != nil {
			return "", sdk.Permanentf("command %q: %v (is it granted read_only in the block?)", name, err)
		}
		return name, nil
	}
	if strings.ContainsRune(name, '/') {
		return "", sdk.Permanentf("command %q: argv[0] must be absolute or a bare name looked up in path", name)
	}
	for _, d := range dirs {
		if p := filepath.Join(d, name); executable(p) == nil {
			return p, nil
		}
	}
	return "", sdk.Permanentf("command %q: not found in path %s", name, strings.Join(dirs, string(filepath.ListSeparator)))
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("not found")
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("not an executable file")
	}
	return nil
}

func checkURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", sdk.Permanentf("url %q: want an absolute http or https URL", raw)
	}
	if u.User != nil {
		return "", sdk.Permanentf("url: user information is refused; the host's egress injects the block's credential")
	}
	if u.Fragment != "" {
		return "", sdk.Permanentf("url %q: a fragment is not sent to a server", raw)
	}
	return u.String(), nil
}

func checkEnv(env map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(env))
	for k, v := range env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, sdk.Permanentf("env: %q is not a variable name", k)
		}
		for _, r := range reservedEnv {
			if strings.EqualFold(k, r) {
				return nil, sdk.Permanentf("env: %s is set by the plugin and may not be configured", k)
			}
		}
		if strings.IndexByte(v, 0) >= 0 {
			return nil, sdk.Permanentf("env: the value of %s holds a NUL byte", k)
		}
		out[k] = v
	}
	return out, nil
}

func checkSideEffects(m map[string]string) (map[string]sdk.SideEffect, error) {
	out := make(map[string]sdk.SideEffect, len(m))
	for name, v := range m {
		se := sdk.SideEffect(v)
		switch se {
		case sdk.SideEffectNone, sdk.SideEffectIdempotent, sdk.SideEffectUnsafe:
		default:
			return nil, sdk.Permanentf("side_effects[%q] = %q: want none, idempotent or unsafe", name, v)
		}
		out[name] = se
	}
	return out, nil
}

// childEnv is the server's whole environment: HOME and TMPDIR as the
// plugin has them, PATH from path, HTTPS_PROXY and https_proxy when the
// host offers a proxy, then env. Nothing else of the plugin's environment
// passes (go-plugin's PLUGIN_* variables, anything a sandbox left).
func (s *settings) childEnv(getenv func(string) string, proxy string) []string {
	vars := map[string]string{"PATH": s.path}
	for _, k := range []string{"HOME", "TMPDIR"} {
		if v := getenv(k); v != "" {
			vars[k] = v
		}
	}
	if proxy != "" {
		vars["HTTPS_PROXY"], vars["https_proxy"] = proxy, proxy
	}
	for k, v := range s.env {
		vars[k] = v
	}
	env := make([]string, 0, len(vars))
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env
}
