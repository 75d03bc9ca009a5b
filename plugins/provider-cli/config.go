package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
)

// Defaults for the plugin-owned attributes, declared in the schema and
// applied again here so a partial value set behaves the same.
const (
	defaultPath      = "/usr/local/bin:/usr/bin:/bin"
	defaultParse     = parseText
	defaultTimeout   = "5m"
	defaultPromptVia = viaArg
)

// How the client's stdout is read.
const (
	parseText  = "text"  // stdout is the answer
	parseJSON  = "json"  // stdout is one JSON object
	parseJSONL = "jsonl" // one JSON event per line, streamed
)

// Where the prompt goes.
const (
	viaArg   = "arg"
	viaStdin = "stdin"
)

// The placeholders an element of command may hold.
const (
	placeholderPrompt = "{prompt}"
	placeholderModel  = "{model}"
)

// maxArg is Linux's limit on one argument (MAX_ARG_STRLEN, 32 pages): a
// longer prompt cannot be passed as an argument at all.
const maxArg = 128<<10 - 1

// config is the plugin-owned part of a provider block, as the host sends it.
type config struct {
	Command          []string          `json:"command"`
	Path             string            `json:"path"`
	Model            string            `json:"model"`
	Parse            string            `json:"parse"`
	TextPath         string            `json:"text_path"`
	ResultPath       string            `json:"result_path"`
	ErrorPath        string            `json:"error_path"`
	InputTokensPath  string            `json:"input_tokens_path"`
	OutputTokensPath string            `json:"output_tokens_path"`
	AuthPatterns     []string          `json:"auth_patterns"`
	QuotaPatterns    []string          `json:"quota_patterns"`
	AuthExitCodes    []int             `json:"auth_exit_codes"`
	QuotaExitCodes   []int             `json:"quota_exit_codes"`
	ScrubEnv         []string          `json:"scrub_env"`
	Env              map[string]string `json:"env"`
	Timeout          string            `json:"timeout"`
	PromptVia        string            `json:"prompt_via"`
}

// settings is a checked config, ready to run commands with.
type settings struct {
	argv      []string // command; argv[0] resolved to an absolute path
	path      string
	model     string
	parse     string
	promptVia string
	timeout   time.Duration

	text, result, errFlag, inTokens, outTokens *jsonPath

	authRE, quotaRE       []*regexp.Regexp
	authExit, quotaExit   map[int]bool
	scrub                 map[string]bool
	env                   map[string]string
	hasPrompt, needsModel bool // some element of command holds {prompt}, {model}
}

// schema declares the attributes above to the host, under the names its
// presets fill.
func schema() sdk.Schema {
	return sdk.Schema{Attributes: []sdk.Attribute{
		{Name: "command", Type: "list(string)", Required: true,
			Description: "The client's argv, never run through a shell. {prompt} in an element is replaced by the rendered prompt (appended as the last argument when no element holds it); {model} by the request's model, else model. argv[0] is absolute or found in path."},
		{Name: "path", Type: "string", Default: sdk.Default(defaultPath),
			Description: "PATH for the client, and where a bare argv[0] is looked up; absolute directories only."},
		sdk.ModelAttribute("claude-sonnet-4-5"),
		{Name: "parse", Type: "string", Default: sdk.Default(defaultParse),
			Description: "How stdout is read: text (the answer, at exit), json (one JSON object, at exit) or jsonl (one JSON event per line, streamed)."},
		{Name: "text_path", Type: "string",
			Description: "json: the path of the answer; jsonl: the path of a text delta in an event line. See the README for the path language."},
		{Name: "result_path", Type: "string",
			Description: "jsonl: the path of the whole answer in the final line, used only when no delta was seen."},
		{Name: "error_path", Type: "string",
			Description: "json, jsonl: a path that marks the run failed when it is true or a non-empty string (e.g. is_error)."},
		{Name: "input_tokens_path", Type: "string",
			Description: "json, jsonl: the path of the input token count (the last line that has it wins); absent means not reported."},
		{Name: "output_tokens_path", Type: "string",
			Description: "json, jsonl: the path of the output token count (the last line that has it wins); absent means not reported."},
		{Name: "auth_patterns", Type: "list(string)",
			Description: "Go regular expressions that, found in a failed run's stderr or reported error, mean the client is logged out (auth_required)."},
		{Name: "quota_patterns", Type: "list(string)",
			Description: "Go regular expressions that, found in a failed run's stderr or reported error, mean the subscription's limit is reached (quota_exhausted)."},
		{Name: "auth_exit_codes", Type: "list(number)",
			Description: "Exit codes that mean the client is logged out (auth_required)."},
		{Name: "quota_exit_codes", Type: "list(number)",
			Description: "Exit codes that mean the subscription's limit is reached (quota_exhausted)."},
		{Name: "scrub_env", Type: "list(string)",
			Description: "Variables removed from the client's environment, after env is added (exact names)."},
		{Name: "env", Type: "map(string)",
			Description: "Extra variables for the client, e.g. SSL_CERT_FILE. HOME, PATH and the proxy variables are refused: the plugin sets them."},
		{Name: "timeout", Type: "string", Default: sdk.Default(defaultTimeout),
			Description: "How long one run may take (a Go duration); then its whole process group is killed (transient, timeout)."},
		{Name: "prompt_via", Type: "string", Default: sdk.Default(defaultPromptVia),
			Description: "arg (the prompt is an argument) or stdin (the prompt is written to the client's stdin, and command holds no {prompt})."},
	}}
}

// reservedEnv are the variables env may not set: the plugin sets them, and
// a proxy variable set by hand would route around (or leak past) the
// host's proxy. Compared without case.
var reservedEnv = []string{"HOME", "PATH", "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY"}

// parseConfig decodes and checks the plugin-owned values. Every refusal is
// permanent: the block is wrong, not the moment.
func parseConfig(cfg sdk.Config) (*settings, error) {
	c := config{Path: defaultPath, Parse: defaultParse, Timeout: defaultTimeout, PromptVia: defaultPromptVia}
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	s := &settings{path: c.Path, model: c.Model, parse: c.Parse, promptVia: c.PromptVia}
	var err error

	if s.timeout, err = time.ParseDuration(c.Timeout); err != nil || s.timeout <= 0 {
		return nil, sdk.Permanentf("timeout %q: want a positive Go duration such as 5m", c.Timeout)
	}
	switch s.promptVia {
	case viaArg, viaStdin:
	default:
		return nil, sdk.Permanentf("prompt_via %q: want %s or %s", c.PromptVia, viaArg, viaStdin)
	}
	if err := s.checkCommand(c.Command); err != nil {
		return nil, err
	}
	if err := s.compilePaths(c); err != nil {
		return nil, err
	}
	if s.authRE, err = compileAll("auth_patterns", c.AuthPatterns); err != nil {
		return nil, err
	}
	if s.quotaRE, err = compileAll("quota_patterns", c.QuotaPatterns); err != nil {
		return nil, err
	}
	if s.authExit, err = exitCodes("auth_exit_codes", c.AuthExitCodes); err != nil {
		return nil, err
	}
	if s.quotaExit, err = exitCodes("quota_exit_codes", c.QuotaExitCodes); err != nil {
		return nil, err
	}
	if err := s.checkEnv(c.Env, c.ScrubEnv); err != nil {
		return nil, err
	}
	return s, nil
}

// checkCommand checks the argv and its placeholders and resolves argv[0].
func (s *settings) checkCommand(argv []string) error {
	if len(argv) == 0 || argv[0] == "" {
		return sdk.Permanentf("command: want the client's argv, e.g. [\"claude\", \"-p\", \"{prompt}\"]")
	}
	for i, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return sdk.Permanentf("command element %d holds a NUL byte", i)
		}
		s.hasPrompt = s.hasPrompt || strings.Contains(a, placeholderPrompt)
		s.needsModel = s.needsModel || strings.Contains(a, placeholderModel)
	}
	if strings.Contains(argv[0], "{") {
		return sdk.Permanentf("command: argv[0] %q may not hold a placeholder", argv[0])
	}
	if s.needsModel && s.model == "" {
		return sdk.Permanentf("command uses {model} but no model is configured")
	}
	if s.model != "" && !modelRE.MatchString(s.model) {
		return sdk.Permanentf("model %q: want letters, digits and ._:/@+-, not starting with -", s.model)
	}
	if s.hasPrompt && s.promptVia == viaStdin {
		return sdk.Permanentf("command holds {prompt} but prompt_via is stdin")
	}
	dirs, err := pathDirs(s.path)
	if err != nil {
		return err
	}
	exe, err := lookPath(argv[0], dirs)
	if err != nil {
		return err
	}
	s.argv = append([]string{exe}, argv[1:]...)
	return nil
}

// pathDirs splits path, refusing empty and relative entries: a relative
// directory would find argv[0] wherever the plugin happens to run.
func pathDirs(path string) ([]string, error) {
	if path == "" {
		return nil, sdk.Permanentf("path is empty")
	}
	dirs := filepath.SplitList(path)
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return nil, sdk.Permanentf("path entry %q is not an absolute directory", d)
		}
	}
	return dirs, nil
}

// lookPath resolves name as exec.LookPath would, but in dirs rather than
// the plugin's own PATH, which the sandbox does not set.
func lookPath(name string, dirs []string) (string, error) {
	if filepath.IsAbs(name) {
		if err := executable(name); err != nil {
			return "", sdk.Permanentf("command %q: %v", name, err)
		}
		return name, nil
	}
	if strings.ContainsRune(name, '/') {
		return "", sdk.Permanentf("command %q: argv[0] must be absolute or a bare name looked up in path", name)
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if executable(p) == nil {
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

// compilePaths compiles the *_path attributes and checks they fit parse.
func (s *settings) compilePaths(c config) error {
	var err error
	for _, p := range []struct {
		name, src string
		dst       **jsonPath
	}{
		{"text_path", c.TextPath, &s.text},
		{"result_path", c.ResultPath, &s.result},
		{"error_path", c.ErrorPath, &s.errFlag},
		{"input_tokens_path", c.InputTokensPath, &s.inTokens},
		{"output_tokens_path", c.OutputTokensPath, &s.outTokens},
	} {
		if *p.dst, err = compilePath(p.src); err != nil {
			return sdk.Permanentf("%s: %v", p.name, err)
		}
		if p.src != "" && s.parse == parseText {
			return sdk.Permanentf("%s is set, but parse = text reads no JSON (set parse = json or jsonl)", p.name)
		}
	}
	switch s.parse {
	case parseText:
	case parseJSON:
		if s.text == nil {
			return sdk.Permanentf("parse = json needs text_path, the path of the answer")
		}
		if s.result != nil {
			return sdk.Permanentf("result_path is for parse = jsonl; with json the answer is at text_path")
		}
	case parseJSONL:
		if s.text == nil && s.result == nil {
			return sdk.Permanentf("parse = jsonl needs text_path (deltas) or result_path (the whole answer), or both")
		}
	default:
		return sdk.Permanentf("parse %q: want %s, %s or %s", s.parse, parseText, parseJSON, parseJSONL)
	}
	return nil
}

func compileAll(name string, patterns []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(patterns))
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, sdk.Permanentf("%s: %q is not a Go regular expression: %v", name, p, err)
		}
		out = append(out, re)
	}
	return out, nil
}

func exitCodes(name string, codes []int) (map[int]bool, error) {
	set := make(map[int]bool, len(codes))
	for _, c := range codes {
		if c < 1 || c > 255 {
			return nil, sdk.Permanentf("%s: %d is not a failing exit code (1 to 255)", name, c)
		}
		set[c] = true
	}
	return set, nil
}

// checkEnv checks env's names and values and scrub_env's names.
func (s *settings) checkEnv(env map[string]string, scrub []string) error {
	s.env = make(map[string]string, len(env))
	for k, v := range env {
		if err := envName(k); err != nil {
			return sdk.Permanentf("env: %v", err)
		}
		for _, r := range reservedEnv {
			if strings.EqualFold(k, r) {
				return sdk.Permanentf("env: %s is set by the plugin and may not be configured", k)
			}
		}
		if strings.IndexByte(v, 0) >= 0 {
			return sdk.Permanentf("env: the value of %s holds a NUL byte", k)
		}
		s.env[k] = v
	}
	s.scrub = make(map[string]bool, len(scrub))
	for _, k := range scrub {
		if err := envName(k); err != nil {
			return sdk.Permanentf("scrub_env: %v", err)
		}
		s.scrub[k] = true
	}
	return nil
}

func envName(k string) error {
	if k == "" || strings.ContainsAny(k, "=\x00") {
		return fmt.Errorf("%q is not a variable name", k)
	}
	return nil
}
