package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axonhq/axon/host/internal/testbin"
	"github.com/axonhq/axon/sdk"
)

// mcpBins builds, once and only for the tests that need them, the mcp
// tool plugin, the example MCP server and the hostile test server into
// binDir beside the plugins TestMain built.
var mcpBins = sync.OnceValue(func() error {
	return testbin.BuildInto(binDir,
		testbin.Target{Name: "axon-tool-mcp", Pkg: "../../plugins/tool-mcp"},
		testbin.Target{Name: "mcp-notes", Pkg: "../../examples/mcp-notes"},
		testbin.Target{Name: "testmcp", Pkg: "../internal/testmcp"},
	)
})

// TestMCPServerConfined runs MCP servers as children of the sandboxed
// axon-tool-mcp: examples/mcp-notes does its work in its granted
// directory, and the hostile testmcp can neither open a socket to a
// listener on the host's loopback nor read a file outside its grants; its
// hang, crash and garbage each cost one call a classified error, and the
// next call gets a fresh server.
func TestMCPServerConfined(t *testing.T) {
	t.Parallel()
	if err := mcpBins(); err != nil {
		t.Fatal(err)
	}
	notes, secretDir := t.TempDir(), t.TempDir()
	secret := filepath.Join(secretDir, "secret.txt")
	if err := os.WriteFile(secret, []byte("the host's secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	notesBin, hostileBin := filepath.Join(binDir, "mcp-notes"), filepath.Join(binDir, "testmcp")
	r := newRig(t, `
provider "mock" {
  plugin   = "openai"
  base_url = "http://127.0.0.1:1/v1"
  model    = "mock-1"
}
chain "default" { providers = [provider.mock] }
tool "notes-mcp" {
  plugin  = "mcp"
  command = ["`+notesBin+`", "--root", "`+notes+`"]
  grant {
    read_only  = ["`+notesBin+`"]
    read_write = ["`+notes+`"]
  }
}
tool "hostile" {
  plugin  = "mcp"
  command = ["`+hostileBin+`"]
  timeout = "2s"
  grant { read_only = ["`+hostileBin+`"] }
}
tool "hostile-proxied" {
  plugin  = "mcp"
  command = ["`+hostileBin+`"]
  grant { read_only = ["`+hostileBin+`"] }
  egress {
    proxy = true
    allow = ["example.com"]
  }
}
`, Options{NoFaces: true})
	sup := r.broker.Supervisor()
	ctx := context.Background()
	instance := func(name string) interface {
		Tools(context.Context) ([]sdk.ToolSpec, error)
		Call(context.Context, sdk.Invocation) (sdk.ToolResult, error)
	} {
		in, err := sup.Instance(name)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	call := func(block, tool, input string) (sdk.ToolResult, error) {
		return instance(block).Call(ctx, sdk.Invocation{CallID: "c1", Name: tool, Input: json.RawMessage(input), IdempotencyKey: "r:c1"})
	}

	specs, err := instance("notes-mcp").Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]sdk.SideEffect{}
	for _, s := range specs {
		classes[s.Name] = s.SideEffect
	}
	if classes["read_note"] != sdk.SideEffectNone || classes["append_note"] != sdk.SideEffectUnsafe || len(classes) != 2 {
		t.Errorf("notes-mcp offers %v, want read_note none and append_note unsafe", classes)
	}
	if res, err := call("notes-mcp", "append_note", `{"note":"todo","text":"written from the jail"}`); err != nil || res.IsError {
		t.Fatalf("append_note: %+v, %v", res, err)
	}
	if res, err := call("notes-mcp", "read_note", `{"note":"todo"}`); err != nil || resultText(res) != "written from the jail\n" {
		t.Fatalf("read_note: %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(notes, "todo.md")); string(b) != "written from the jail\n" {
		t.Errorf("the granted directory holds %q", b)
	}

	// A direct connection: the jail has no route to the host's loopback.
	res, err := call("hostile", "dial", `{"addr":"`+l.Addr().String()+`"}`)
	if err != nil || !res.IsError || strings.HasPrefix(resultText(res), "ok") {
		t.Errorf("dial from the jail: %+v, %v", res, err)
	}
	t.Logf("dial from the jail: %s", resultText(res))
	l.(*net.TCPListener).SetDeadline(time.Now().Add(100 * time.Millisecond))
	if c, err := l.Accept(); err == nil {
		c.Close()
		t.Error("the host's listener accepted a connection from the jail")
	}
	// With the proxy on, the jail may open IPv4 sockets, but its loopback
	// is its own: the host's listener is not behind it.
	res, err = call("hostile-proxied", "dial", `{"addr":"`+l.Addr().String()+`"}`)
	if err != nil || !res.IsError || strings.HasPrefix(resultText(res), "ok") {
		t.Errorf("dial from a jail with the proxy: %+v, %v", res, err)
	}
	t.Logf("dial from a jail with the proxy: %s", resultText(res))
	l.(*net.TCPListener).SetDeadline(time.Now().Add(100 * time.Millisecond))
	if c, err := l.Accept(); err == nil {
		c.Close()
		t.Error("the host's listener accepted a connection from the proxied jail")
	}
	// A file outside the grants is not there at all.
	res, err = call("hostile", "read", `{"path":"`+secret+`"}`)
	if err != nil || !res.IsError || strings.Contains(resultText(res), "the host's secret") {
		t.Errorf("read outside the grant: %+v, %v", res, err)
	}
	t.Logf("read outside the grant: %s", resultText(res))
	// The server's own binary, granted, is there: the refusal above is the grant's.
	if res, err := call("hostile", "read", `{"path":"`+hostileBin+`"}`); err != nil || res.IsError {
		t.Errorf("read of the granted binary: %+v, %v", res, err)
	}

	for _, c := range []struct {
		tool string
		want *sdk.Error
	}{
		{"hang", sdk.ErrTimeout},
		{"crash", &sdk.Error{Class: sdk.ClassTransient, Code: "server_exited"}},
		{"garbage", &sdk.Error{Class: sdk.ClassTransient, Code: "server_failed"}},
	} {
		_, err := call("hostile", c.tool, `{}`)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.tool, err, c.want)
		}
		if res, err := call("hostile", "read", `{"path":"`+hostileBin+`"}`); err != nil || res.IsError {
			t.Errorf("the call after %s: %+v, %v", c.tool, res, err)
		}
	}

	for _, name := range []string{"notes-mcp", "hostile", "hostile-proxied"} {
		in, _ := sup.Instance(name)
		if got := in.Layers().String(); !strings.HasPrefix(got, "user,pid,mount,net,ipc,uts,cgroup,nocaps,nnp,seccomp") {
			t.Errorf("%s runs with sandbox %s", name, got)
		}
	}
}
