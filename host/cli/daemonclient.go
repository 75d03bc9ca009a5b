package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/session"
)

// daemonConn is the axon serve a configuration points at, reached as axon
// reload reaches it: its unix socket when it has one, else its listener,
// with the front door's token when there is one.
type daemonConn struct {
	client *http.Client
	base   string // URL prefix of the requests
	where  string // how messages name it: the socket or host:port
	token  string
	none   bool // the configuration names no address a client can dial
	// answered: a daemon answered a request (so a later failure to reach
	// it is no reason to run in-process).
	answered bool
}

// findDaemon reads the token and builds the client; it dials nothing.
func findDaemon(cfg *config.Config) (*daemonConn, error) {
	token, err := readToken(cfg.Axon.TokenFile)
	if err != nil && !isLoopback(cfg.Axon.Listen) {
		return nil, err
	}
	client, base := daemonClient(cfg)
	d := &daemonConn{client: client, base: base, where: cfg.Axon.Listen, token: token}
	if cfg.Axon.UnixSocket != "" {
		d.where = cfg.Axon.UnixSocket
	} else if _, port, _ := net.SplitHostPort(cfg.Axon.Listen); port == "0" {
		d.none = true // a daemon on port 0 listens where no client can know
	}
	return d, nil
}

// errNoDaemon: nothing listens where the configuration says axon serve
// would (connection refused, no socket file).
var errNoDaemon = errors.New("no axon serve answers")

// errStreamLost: a session's event stream broke off before the run ended
// (the daemon died, the connection dropped).
var errStreamLost = errors.New("lost the event stream")

// apiError is a refusal in the sessions API's error shape. It matches the
// session package's error for its type, so callers handle a daemon's
// refusal as they handle the in-process one.
type apiError struct {
	Status        int
	Type, Message string
}

func (e *apiError) Error() string { return e.Message }

func (e *apiError) Is(target error) bool {
	want, ok := map[string]error{
		"invalid_request":    session.ErrInvalid,
		"not_found":          session.ErrNotFound,
		"session_busy":       session.ErrBusy,
		"run_paused":         session.ErrPaused,
		"no_open_run":        session.ErrNoOpenRun,
		"session_locked":     session.ErrLocked,
		"shutting_down":      session.ErrShuttingDown,
		"unavailable":        session.ErrUnavailable,
		"session_log_failed": session.ErrLogFailed,
	}[e.Type]
	return ok && want == target
}

// send makes one request; a transport failure that means no daemon is
// there wraps errNoDaemon.
func (d *daemonConn) send(ctx context.Context, method, path string, body any) (*http.Response, error) {
	if d.none {
		return nil, errNoDaemon
	}
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, d.base+path, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if d.token != "" {
		req.Header.Set("Authorization", "Bearer "+d.token)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) {
			return nil, fmt.Errorf("%w on %s: %w", errNoDaemon, d.where, err)
		}
		return nil, fmt.Errorf("axon serve at %s: %w", d.where, err)
	}
	d.answered = true
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		var e struct {
			Error struct{ Type, Message string } `json:"error"`
		}
		if json.Unmarshal(b, &e) != nil || e.Error.Message == "" {
			e.Error.Message = fmt.Sprintf("%s: %s", resp.Status, bytes.TrimSpace(b))
		}
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			e.Error.Message = fmt.Sprintf("axon serve at %s refused the request: %s", d.where, e.Error.Message)
		}
		return nil, &apiError{Status: resp.StatusCode, Type: e.Error.Type, Message: e.Error.Message}
	}
	return resp, nil
}

// call makes one request and decodes its JSON answer into out.
func (d *daemonConn) call(ctx context.Context, method, path string, body, out any) error {
	resp, err := d.send(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(out); err != nil {
		return fmt.Errorf("axon serve at %s: unreadable answer to %s %s: %w", d.where, method, path, err)
	}
	return nil
}

// remoteSessions drives sessions in the daemon over its HTTP API.
type remoteSessions struct{ d *daemonConn }

var _ sessionHost = remoteSessions{}

func (r remoteSessions) Session(ctx context.Context, id string) (*session.SessionInfo, error) {
	var info session.SessionInfo
	if err := r.d.call(ctx, http.MethodGet, "/v1/sessions/"+url.PathEscape(id), nil, &info); err != nil {
		return nil, err
	}
	return &info, nil
}

// Send admits a run. A busy session answers with the running run named,
// as the in-process Send does (the API's error names it only in words).
func (r remoteSessions) Send(ctx context.Context, key session.Key, p session.Params) (session.Admitted, error) {
	var adm session.Admitted
	err := r.d.call(ctx, http.MethodPost, "/v1/sessions", struct {
		session.Key
		session.Params
	}{key, p}, &adm)
	if errors.Is(err, session.ErrBusy) {
		if info, ierr := r.Session(ctx, key.ID()); ierr == nil {
			for _, run := range info.Runs {
				if run.Status == session.StatusRunning {
					return adm, &session.BusyError{RunID: run.RunID, Status: run.Status}
				}
			}
		}
	}
	return adm, err
}

func (r remoteSessions) Cancel(ctx context.Context, id, run string) (string, error) {
	return r.onRun(ctx, id, "cancel", run)
}

func (r remoteSessions) Resume(ctx context.Context, id, run string) (string, error) {
	return r.onRun(ctx, id, "resume", run)
}

func (r remoteSessions) onRun(ctx context.Context, id, verb, run string) (string, error) {
	var out struct {
		RunID string `json:"run_id"`
	}
	err := r.d.call(ctx, http.MethodPost, "/v1/sessions/"+url.PathEscape(id)+"/"+verb, map[string]string{"run_id": run}, &out)
	return out.RunID, err
}

// Follow reads the session's event stream and hands fn the same events and
// deltas the in-process Follow does. It ends as that one does: nil once
// opts.Run ended, ErrShuttingDown when the daemon stops, ErrLogFailed when
// the session's log failed.
func (r remoteSessions) Follow(ctx context.Context, id string, after session.Cursor, opts session.FollowOptions, fn func(session.Item) error) error {
	q := url.Values{"after": {after.String()}}
	if opts.Run != "" {
		q.Set("run", opts.Run)
	}
	if !opts.Display {
		q.Set("display", "false")
	}
	resp, err := r.d.send(ctx, http.MethodGet, "/v1/sessions/"+url.PathEscape(id)+"/events?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if opts.Ready != nil {
		opts.Ready()
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20) // a tool result or a step's text is one data line
	var event string
	var data []byte
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if event != "" {
				if done, err := dispatch(event, data, fn); done || err != nil {
					return err
				}
			}
			event, data = "", data[:0]
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: ")...)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err = sc.Err()
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w from axon serve at %s: %w", errStreamLost, r.d.where, err)
}

// dispatch hands fn one SSE frame; done reports the stream's end.
func dispatch(event string, data []byte, fn func(session.Item) error) (done bool, err error) {
	switch event {
	case "end":
		var end struct{ Reason, Error string }
		if err := json.Unmarshal(data, &end); err != nil {
			return true, fmt.Errorf("event stream: unreadable end: %w", err)
		}
		switch end.Reason {
		case "run_ended":
			return true, nil
		case "shutting_down":
			return true, session.ErrShuttingDown
		case "session_log_failed":
			return true, fmt.Errorf("%w: %s", session.ErrLogFailed, end.Error)
		}
		return true, fmt.Errorf("event stream ended: %s", end.Reason)
	case session.DeltaText, session.DeltaGap:
		var d session.Delta
		if err := json.Unmarshal(data, &d); err != nil {
			return true, fmt.Errorf("event stream: unreadable %s: %w", event, err)
		}
		return false, fn(session.Item{Delta: &d})
	}
	var e session.Event
	if err := json.Unmarshal(data, &e); err != nil {
		return true, fmt.Errorf("event stream: unreadable %s: %w", event, err)
	}
	return false, fn(session.Item{Event: &e})
}
