package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

const (
	loggedOut = "Invalid API key · Please run /login"
	limitText = "Claude AI usage limit reached|1767225600"
)

type run struct {
	prompt string
	format string // text, json or jsonl
	model  string
}

func main() {
	r := parseArgs(os.Args[1:])
	if r.prompt == "" {
		b, _ := io.ReadAll(io.LimitReader(os.Stdin, 16<<20))
		r.prompt = string(b)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("HOME"), ".fakecli", "credentials")); err != nil {
		r.fail(loggedOut, os.Stderr)
	}
	word, arg := behaviour(r.prompt)
	switch word {
	case "limit":
		r.fail(limitText, os.Stdout)
	case "hang":
		if r.format == "jsonl" {
			r.chunk("hanging")
		}
		hang()
	case "spawn":
		self, err := os.Executable()
		if err != nil {
			r.fail("spawn: "+err.Error(), os.Stderr)
		}
		child := exec.Command(self, "-p", "hang")
		child.Env = os.Environ()
		if err := child.Start(); err != nil {
			r.fail("spawn: "+err.Error(), os.Stderr)
		}
		r.chunk(fmt.Sprintf("spawned %d", child.Process.Pid))
		hang()
	case "crash":
		p, _ := os.FindProcess(os.Getpid())
		p.Kill()
		hang()
	case "flood":
		line := []byte(strings.Repeat("x", 64<<10))
		for {
			if _, err := os.Stdout.Write(line); err != nil {
				os.Exit(1)
			}
		}
	case "fail":
		fmt.Fprintln(os.Stderr, "fake failure on stderr")
		os.Exit(3)
	case "empty":
		r.answer(nil)
	case "model":
		m := r.model
		if m == "" {
			m = "none"
		}
		r.answer([]string{"model: " + m})
	case "reach":
		r.answer([]string{reach(arg)})
	case "direct":
		conn, err := net.DialTimeout("tcp", arg, 10*time.Second)
		if err != nil {
			r.answer([]string{"direct failed: " + err.Error()})
		}
		conn.Close()
		r.answer([]string{"direct ok"})
	case "read":
		b, err := os.ReadFile(arg)
		if err != nil {
			r.answer([]string{"cannot read " + arg + ": " + err.Error()})
		}
		r.answer([]string{"read " + arg + ": " + string(b)})
	case "env":
		v, ok := os.LookupEnv(arg)
		if !ok {
			v = "unset"
		}
		r.answer([]string{v})
	default:
		r.answer(chunks("you said: " + r.prompt))
	}
}

// parseArgs reads the flags the real clients share, as doc.go lists them.
func parseArgs(args []string) run {
	r := run{format: "text"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case name == "-p" || name == "--print" || name == "--prompt":
			if hasValue {
				r.prompt = value
			} else {
				r.prompt = next()
			}
		case name == "--output-format" || name == "-o":
			if !hasValue {
				value = next()
			}
			r.format = value
		case name == "--model" || name == "-m":
			if !hasValue {
				value = next()
			}
			r.model = value
		case strings.HasPrefix(a, "-") && len(a) > 1:
		default:
			r.prompt = a
		}
	}
	if r.format == "stream-json" {
		r.format = "jsonl"
	}
	return r
}

// behaviour finds the first word of the prompt that names one, and the
// word after it.
func behaviour(prompt string) (word, arg string) {
	words := strings.Fields(prompt)
	for i, w := range words {
		switch w {
		case "limit", "hang", "spawn", "crash", "flood", "fail", "empty", "model", "reach", "direct", "read", "env":
			if i+1 < len(words) {
				arg = words[i+1]
			}
			return w, arg
		}
	}
	return "echo", ""
}

// chunks splits an answer into about three pieces, as a streaming client
// sends it.
func chunks(s string) []string {
	n := (len(s) + 2) / 3
	if n == 0 {
		return nil
	}
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && (s[k]&0xC0) == 0x80 { // whole runes
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// reach GETs url through $HTTPS_PROXY when it is set, loopback targets
// included (as Node's proxy agents do; Go's own ProxyFromEnvironment would
// skip 127.0.0.1, where the tests' upstreams live), and directly when not.
func reach(url string) string {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = func(*http.Request) (*neturl.URL, error) {
		if p := os.Getenv("HTTPS_PROXY"); p != "" {
			return neturl.Parse(p)
		}
		return nil, nil
	}
	c := &http.Client{Timeout: 20 * time.Second, Transport: tr}
	resp, err := c.Get(url)
	if err != nil {
		return "unreachable " + url + ": " + err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return fmt.Sprintf("reached %s: %d %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
}

// answer prints the answer made of parts in the run's format and exits 0.
func (r run) answer(parts []string) {
	full := strings.Join(parts, "")
	switch r.format {
	case "json":
		r.emit(r.result(full, false))
	case "jsonl":
		r.emit(map[string]any{"type": "system", "subtype": "init", "model": r.modelName()})
		for i, p := range parts {
			if i > 0 {
				time.Sleep(5 * time.Millisecond)
			}
			r.chunk(p)
		}
		r.emit(r.result(full, false))
	default:
		fmt.Println(full)
	}
	os.Exit(0)
}

// fail prints msg as a failed run does, text mode on textOut, and exits 1.
func (r run) fail(msg string, textOut *os.File) {
	switch r.format {
	case "json", "jsonl":
		r.emit(r.result(msg, true))
	default:
		fmt.Fprintln(textOut, msg)
	}
	os.Exit(1)
}

func (r run) chunk(text string) {
	r.emit(map[string]any{"type": "assistant", "message": map[string]any{
		"model":   r.modelName(),
		"content": []any{map[string]any{"type": "text", "text": text}},
	}})
}

func (r run) result(text string, isError bool) map[string]any {
	return map[string]any{
		"type": "result", "subtype": "success", "is_error": isError, "result": text,
		"usage": map[string]any{"input_tokens": len(strings.Fields(r.prompt)), "output_tokens": len(strings.Fields(text))},
	}
}

func (r run) modelName() string {
	if r.model != "" {
		return r.model
	}
	return "fake-model"
}

// emit writes v as one JSON line, unbuffered.
func (r run) emit(v any) {
	b, _ := json.Marshal(v)
	os.Stdout.Write(append(b, '\n'))
}

func hang() {
	for {
		time.Sleep(time.Hour)
	}
}
