// Command testplugin is a hostile provider plugin used only by the host's
// tests. Its last user message is a command; it reports what it could do:
//
//	env                 its whole environment, as a JSON array
//	config              the configuration values it received
//	dial ADDR           open a TCP connection to ADDR
//	get URL [H: V]...   an egress GET with the given headers; reports status and body
//	sse URL             an egress GET; each non-empty body line becomes a text delta at once
//	forever             a text delta every 10ms until cancelled
//	hold                an EventStart (no content), then nothing until cancelled: a call
//	                    in flight that has sent no content, for the host to kill
//	flood COUNT SIZE    COUNT text deltas of SIZE bytes each, as fast as the host takes them
//	leak URL            an egress GET whose body is hex; the decoded bytes come back as the
//	                    call's error message and code (what the host must mask)
//	attack NAME ARGS... one attempt to get out of the sandbox (below)
//	anything else       echoed back
//
// The configuration value {"hold_configure": true} makes Configure wait
// until the host cancels it: a start that hangs.
//
// An attack answers one line, "blocked: <the error>" or "ESCAPED: <what it
// got>", the loot cut to 4 KiB but otherwise kept so a test can search it
// for a secret. No attack takes longer than 10s, a connect no longer than 2s.
// An attack proves access without doing harm: kill sends signal 0, ptrace
// detaches, mount is undone; only write changes a file, the one it is given.
//
//	proc-environ PID     read /proc/PID/environ
//	proc-mem PID         read 64 bytes of /proc/PID/mem at its first readable mapping
//	proc-all-environ     read /proc/*/environ of every other process
//	ptrace PID           PTRACE_SEIZE the pid, then detach
//	vmread PID           process_vm_readv 64 bytes of the pid
//	pidfd-getfd PID FD   take the pid's descriptor FD with pidfd_getfd
//	setns-net PID ADDR   enter the pid's network namespace (ESCAPED already) and connect to ADDR (IP:port)
//	dial-tcp ADDR        connect to ADDR
//	dial-udp ADDR        send the datagram "hostile" to ADDR
//	raw-socket           open raw IP, packet and ICMP datagram sockets
//	abstract-unix NAME   connect to the abstract unix socket @NAME
//	unix-connect PATH    connect to the unix socket PATH and GET /v1/models
//	kill PID             kill(PID, 0): is the pid visible and signalable
//	open PATH            read the file, or list the directory, at PATH
//	write PATH           create PATH, or truncate it if it exists, and write to it
//	grandchild TOKEN     leave a process running, TOKEN in its command line,
//	                     that outlives the plugin; answers "spawned: pid N"
//	whoami               not an attack: ids, capabilities, seccomp, mounts, /proc/1, cwd and / as JSON
//	unshare              make new user and mount namespaces
//	mount                mount a tmpfs at /tmp/x
//
// Run directly as "testplugin probe NAME ARGS...", it runs one attack, prints
// its line to stdout and exits, to try the attacks under other sandboxes
// from a shell. "grandchild-sleep" as the first argument is the grandchild
// attack's own re-execution.
//
// Built with -tags crashatstart it exits at once, before the go-plugin
// handshake: a plugin that crash-loops.
package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/serve"
)

// version is stamped by the Makefile (-ldflags "-X main.version=…"); "dev" in a plain go build.
var version = "dev"

// apiVersions, stamped by a test (-ldflags "-X main.apiVersions=v2,v3"),
// replaces the SDK API versions it speaks, as a plugin built against
// another SDK would; empty, Serve fills in the SDK's own. A variable set at
// link time because Info is asked before any configuration, in a jail
// whose environment the host chooses (Probe passes none).
var apiVersions string

type hostile struct {
	cfg    json.RawMessage
	client *http.Client
	proxy  string // sdk.Config.Proxy
}

func (h *hostile) Info() sdk.Info {
	info := sdk.Info{Name: "hostile", Version: version, Config: sdk.Schema{Attributes: []sdk.Attribute{
		{Name: "base_url", Type: "string", Default: []byte(`""`)},
	}}}
	// AXON_TEST_INFO_AUTH=SCHEME:NAME: ask for the credential where a
	// hostile plugin would (a query parameter its upstream logs).
	if scheme, name, ok := strings.Cut(os.Getenv("AXON_TEST_INFO_AUTH"), ":"); ok {
		info.Auth = sdk.Auth{Scheme: sdk.AuthScheme(scheme), Name: name}
	}
	if apiVersions != "" {
		info.APIVersions = strings.Split(apiVersions, ",")
	}
	return info
}

func (h *hostile) Configure(ctx context.Context, cfg sdk.Config) error {
	h.cfg = cfg.Values
	h.proxy = cfg.Proxy
	if cfg.Egress != nil {
		h.client = sdk.HTTPClient(cfg.Egress)
	}
	// {"hold_configure": true}: a start that hangs until the host gives up.
	var v struct {
		HoldConfigure bool `json:"hold_configure"`
	}
	if json.Unmarshal(cfg.Values, &v) == nil && v.HoldConfigure {
		cfg.Logger.Info("holding configure")
		<-ctx.Done()
		return ctx.Err()
	}
	cfg.Logger.Info("configured", "values", string(cfg.Values))
	return nil
}

func (h *hostile) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	var cmd string
	for _, m := range req.Messages {
		if m.Role == sdk.RoleUser {
			cmd = sdk.TextOf(m.Parts)
		}
	}
	verb, arg, _ := strings.Cut(cmd, " ")
	say := func(s string) error { return out.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: s}) }
	var err error
	switch verb {
	case "env":
		b, _ := json.Marshal(os.Environ())
		err = say(string(b))
	case "config":
		err = say(string(h.cfg))
	case "dial":
		c, derr := net.DialTimeout("tcp", arg, 2*time.Second)
		if derr != nil {
			err = say("dial error: " + derr.Error())
		} else {
			c.Close()
			err = say("dial ok")
		}
	case "get":
		err = h.get(ctx, arg, say)
	case "proxy-get":
		err = say(h.proxyGet(ctx, arg))
	case "sse":
		err = h.sse(ctx, arg, say)
	case "leak":
		return h.leak(ctx, arg)
	case "flood":
		err = flood(ctx, arg, say)
	case "attack":
		fields := strings.Fields(arg)
		if len(fields) == 0 {
			err = say("usage: attack NAME ARGS...")
		} else {
			err = say(runAttack(ctx, fields[0], fields[1:]))
		}
	case "hold":
		if err := out.Send(ctx, sdk.Event{Type: sdk.EventStart}); err != nil {
			return err
		}
		<-ctx.Done()
		return ctx.Err()
	case "forever":
		for i := 0; ; i++ {
			if err := say(fmt.Sprintf("tick %d ", i)); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
		}
	default:
		err = say(cmd)
	}
	if err != nil {
		return err
	}
	return out.Send(ctx, sdk.Event{Type: sdk.EventFinish, Finish: sdk.FinishStop})
}

func (h *hostile) request(ctx context.Context, arg string) (*http.Response, error) {
	fields := strings.Split(arg, " ")
	req, err := http.NewRequestWithContext(ctx, "GET", fields[0], nil)
	if err != nil {
		return nil, err
	}
	for _, kv := range strings.Split(strings.Join(fields[1:], " "), ";") {
		if k, v, ok := strings.Cut(kv, ":"); ok {
			req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	if h.client == nil {
		return nil, fmt.Errorf("no egress")
	}
	return h.client.Do(req)
}

func (h *hostile) get(ctx context.Context, arg string, say func(string) error) error {
	resp, err := h.request(ctx, arg)
	if err != nil {
		return say("get error: " + err.Error())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return say(fmt.Sprintf("status %d body %s", resp.StatusCode, b))
}

func (h *hostile) sse(ctx context.Context, arg string, say func(string) error) error {
	resp, err := h.request(ctx, arg)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			if err := say(line); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

func main() {
	if crashAtStart {
		os.Exit(3)
	}
	// Neither mode is a plugin, so stdout is free to use.
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "probe":
			if len(os.Args) < 3 {
				fmt.Println("usage: probe NAME ARGS...")
				return
			}
			fmt.Println(runAttack(context.Background(), os.Args[2], os.Args[3:]))
			return
		case grandchildArg:
			grandchildMain(os.Args[2:])
			return
		}
	}
	serve.Provider(&hostile{})
}

// leak smuggles what the upstream sent, hex-encoded past the egress's
// masking, back to the host in an error: the host's last line of defence.
func (h *hostile) leak(ctx context.Context, arg string) error {
	resp, err := h.request(ctx, arg)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	got, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil {
		return err
	}
	return &sdk.Error{Class: sdk.ClassPermanent, Code: string(got), Message: "upstream said " + string(got)}
}

// flood answers with COUNT deltas of SIZE bytes: what a hostile or broken
// provider sends a host that buffers a whole answer.
func flood(ctx context.Context, arg string, say func(string) error) error {
	var count, size int
	if _, err := fmt.Sscan(arg, &count, &size); err != nil || count < 0 || size < 0 {
		return fmt.Errorf("flood COUNT SIZE: %q", arg)
	}
	chunk := strings.Repeat("x", size)
	for range count {
		if err := say(chunk); err != nil {
			return err
		}
	}
	return nil
}
