package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/child"
)

// mcpTool serves the tools of one MCP server. The zero value is ready for
// Info; Configure must run before Call. Calls may run concurrently: they
// share the one connection, and the first to find it broken replaces it.
type mcpTool struct {
	// getenv reads the plugin's own environment (HOME, TMPDIR); os.Getenv
	// when nil.
	getenv func(string) string
	// sweepOrphans reaps what killed servers leave behind, which comes to
	// the plugin when it is its PID namespace's init (see sdk/child).
	sweepOrphans bool

	s     *settings
	conn  *connector
	specs []sdk.ToolSpec
	known map[string]bool // the tools offered
	log   hclog.Logger

	mu  sync.Mutex
	cur *server // nil until connected, and after a failure
}

var (
	_ sdk.Tool   = (*mcpTool)(nil)
	_ sdk.Closer = (*mcpTool)(nil)
)

func (m *mcpTool) Info() sdk.Info {
	return sdk.Info{Name: "mcp", Kind: sdk.KindTool, Version: version, Config: schema()}
}

func (m *mcpTool) env(k string) string {
	if m.getenv != nil {
		return m.getenv(k)
	}
	return os.Getenv(k)
}

// Configure checks the block, starts the server, and lists its tools: what
// it offers now is what the host offers the model.
func (m *mcpTool) Configure(ctx context.Context, cfg sdk.Config) error {
	s, err := parseConfig(cfg)
	if err != nil {
		return err
	}
	m.log = cfg.Logger
	if m.log == nil {
		m.log = hclog.NewNullLogger()
	}
	c := &connector{
		s:      s,
		kids:   &child.Reaper{SweepOrphans: m.sweepOrphans},
		client: mcp.NewClient(&mcp.Implementation{Name: "axon", Version: version}, nil),
	}
	if s.url != "" {
		if cfg.Egress == nil {
			return sdk.Permanentf("mcp: url needs the host's egress, the plugin's only way to the network")
		}
		c.http = sdk.HTTPClient(cfg.Egress)
		// No request outlives a call's limit: not a call's stream, not the
		// session's closing DELETE to a server that never answers it.
		c.http.Timeout = s.timeout
	} else {
		c.env = s.childEnv(m.env, cfg.Proxy)
		c.dir = m.env("TMPDIR")
	}
	m.s, m.conn = s, c

	lctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	srv, err := c.connect(lctx)
	if err != nil {
		return sdk.Permanentf("mcp: cannot start the server: %s", short(err))
	}
	tools, err := listTools(lctx, srv.sess)
	if err != nil {
		srv.close()
		return sdk.Permanentf("mcp: listing the server's tools: %s", short(err))
	}
	specs, skipped := toSpecs(tools, s.overrides)
	for _, name := range skipped {
		m.log.Warn("tool not offered: its name is not one a model accepts", "tool", name)
	}
	m.known = map[string]bool{}
	for _, sp := range specs {
		m.known[sp.Name] = true
	}
	for name := range s.overrides {
		if !m.known[name] {
			srv.close()
			return sdk.Permanentf("side_effects names %q, which the server does not offer", name)
		}
	}
	m.specs, m.cur = specs, srv
	m.log.Debug("server connected", "tools", len(specs))
	return nil
}

// maxTools bounds the tools one server may offer.
const maxTools = 256

// listTools reads every page of the server's tool list, at most maxTools.
func listTools(ctx context.Context, sess *mcp.ClientSession) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if len(out) == maxTools {
			return nil, fmt.Errorf("the server offers more than %d tools", maxTools)
		}
		out = append(out, t)
	}
	return out, nil
}

func (m *mcpTool) Tools(context.Context) ([]sdk.ToolSpec, error) {
	return append([]sdk.ToolSpec(nil), m.specs...), nil
}

func (m *mcpTool) Close() error {
	m.mu.Lock()
	srv := m.cur
	m.cur = nil
	m.mu.Unlock()
	if srv != nil {
		srv.close()
	}
	return nil
}

// session returns the live connection, starting the server when there is
// none or the last one broke.
func (m *mcpTool) session(ctx context.Context) (*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cur != nil && !m.cur.broken() {
		return m.cur, nil
	}
	if m.cur != nil {
		m.logBroken(m.cur, "server gone; starting it again")
		go m.cur.close()
		m.cur = nil
	}
	srv, err := m.conn.connect(ctx)
	if err != nil {
		return nil, err
	}
	m.cur = srv
	return srv, nil
}

// drop closes srv, if it is still the current connection.
func (m *mcpTool) drop(srv *server, why string) {
	m.mu.Lock()
	if m.cur == srv {
		m.cur = nil
	}
	m.mu.Unlock()
	m.logBroken(srv, why)
	go srv.close() // a command is killed at once; the call does not wait for the reaping or an HTTP goodbye
}

// logBroken says why a connection ends, with the size of what the server
// wrote to stderr (never its text: it may hold anything).
func (m *mcpTool) logBroken(srv *server, why string) {
	if srv.proc != nil {
		m.log.Warn(why, "stderr_bytes", len(srv.proc.stderr.String()))
		return
	}
	m.log.Warn(why)
}

func (m *mcpTool) Call(ctx context.Context, inv sdk.Invocation) (sdk.ToolResult, error) {
	if m.conn == nil {
		return sdk.ToolResult{}, sdk.Permanentf("mcp: Call before Configure")
	}
	if !m.known[inv.Name] {
		return inv.Errorf("unknown tool %q: this server offers %d tools, not that one", inv.Name, len(m.known)), nil
	}
	args, err := sdk.ToolInput(inv.Input)
	if err != nil {
		return inv.Errorf("invalid arguments: %v", err), nil
	}
	cctx, cancel := context.WithTimeout(ctx, m.s.timeout)
	defer cancel()
	srv, err := m.session(cctx)
	if err != nil {
		// Nothing was sent: the server did not come up.
		return sdk.ToolResult{}, classify(ctx, cctx, m.s.timeout, false, err, "starting the server")
	}
	res, err := srv.sess.CallTool(cctx, &mcp.CallToolParams{Name: inv.Name, Arguments: args})
	if err != nil {
		var rpcErr *mcpRPCError
		if errors.As(err, &rpcErr) && !srv.broken() {
			// The server answered, with a JSON-RPC error: it is alive and
			// said no (an unknown tool, invalid arguments). The model can act on it.
			return inv.Errorf("the MCP server refused the call: %s", clean(rpcErr.Message, maxErrorText)), nil
		}
		exited := cctx.Err() == nil && srv.exitedAlone()
		m.drop(srv, "call failed; the server is stopped and started again on the next call")
		return sdk.ToolResult{}, classify(ctx, cctx, m.s.timeout, exited, err, "calling "+inv.Name)
	}
	return toResult(inv, res), nil
}
