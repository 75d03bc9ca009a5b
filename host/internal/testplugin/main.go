// Command testplugin is a hostile provider plugin used only by the host's
// tests. Its last user message is a command; it reports what it could do:
//
//	env                 its whole environment, as a JSON array
//	config              the configuration values it received
//	dial ADDR           open a TCP connection to ADDR
//	get URL [H: V]...   an egress GET with the given headers; reports status and body
//	sse URL             an egress GET; each non-empty body line becomes a text delta at once
//	forever             a text delta every 10ms until cancelled
//	anything else       echoed back
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
)

type hostile struct {
	cfg    json.RawMessage
	client *http.Client
}

func (h *hostile) Info() sdk.Info {
	return sdk.Info{Name: "hostile", Version: "0.0.1", Config: sdk.Schema{Attributes: []sdk.Attribute{
		{Name: "base_url", Type: "string", Default: []byte(`""`)},
	}}}
}

func (h *hostile) Configure(_ context.Context, cfg sdk.Config) error {
	h.cfg = cfg.Values
	if cfg.Egress != nil {
		h.client = sdk.HTTPClient(cfg.Egress)
	}
	cfg.Logger.Info("configured", "values", string(cfg.Values))
	return nil
}

func (h *hostile) Models(context.Context) ([]sdk.Model, error) { return nil, nil }

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
	case "sse":
		err = h.sse(ctx, arg, say)
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

func main() { sdk.ServeProvider(&hostile{}) }
