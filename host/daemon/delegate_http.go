package daemon

import (
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/axonhq/axon/host/api"
	"github.com/axonhq/axon/host/delegate"
)

// mcpMount is the delegate server over streamable HTTP, mounted at /mcp
// behind the front door's token check. It is stateless: every request
// gets a server of its own, its menu read from the configuration current
// then (a reload shows at once), and no session outlives its request, so
// none is left to expire and no stream holds a shutdown up. The server
// asks its clients nothing, which is all statelessness rules out.
type mcpMount struct {
	h        http.Handler
	tokenned bool
}

var _ api.Mount = mcpMount{}

// mcpMount builds the /mcp mount; token is the front door's ("" for none).
func (b *Daemon) mcpMount(token string) api.Mount {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		return delegate.NewServer(b.Delegates(), delegate.Options{})
	}, &mcp.StreamableHTTPOptions{
		Stateless: true,
		// With a token any Host is fine (it guards the route), as on the
		// panel; without one ServeHTTP applies the panel's rule.
		DisableLocalhostProtection: token != "",
	})
	return mcpMount{h: http.NewCrossOriginProtection().Handler(h), tokenned: token != ""}
}

// ServeHTTP refuses, when there is no token, a Host that is not loopback:
// a page of another site that renamed itself to 127.0.0.1 (DNS
// rebinding) still sends its own name.
func (m mcpMount) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !m.tokenned && !loopbackHost(r.Host) {
		m.Refuse(w, http.StatusForbidden, "forbidden_host", "Host "+r.Host+" refused: without a token axon serves /mcp to a loopback Host only")
		return
	}
	m.h.ServeHTTP(w, r)
}

// Refuse answers in JSON, the error an MCP client shows as it is.
func (mcpMount) Refuse(w http.ResponseWriter, status int, code, message string) {
	body, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// loopbackHost is host/panel's hostAllowed without a token: localhost or
// a loopback address, with or without a port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
