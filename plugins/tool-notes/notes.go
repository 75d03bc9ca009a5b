package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/sdk"
)

// notes serves append_note, list_notes and read_note. The zero value is
// ready for Info; Configure must run before Call.
type notes struct {
	now func() time.Time // injected in tests; time.Now when nil
	log hclog.Logger

	root *os.Root // dir: every file access goes through it

	mu    sync.Mutex // serialises appends, and reads against them
	index *appliedIndex
}

var (
	_ sdk.Tool   = (*notes)(nil)
	_ sdk.Closer = (*notes)(nil)
)

func (n *notes) Info() sdk.Info {
	return sdk.Info{Name: "notes", Kind: sdk.KindTool, Version: version, Config: schema()}
}

func (n *notes) Configure(ctx context.Context, cfg sdk.Config) error {
	dir, err := parseConfig(cfg)
	if err != nil {
		return err
	}
	if n.now == nil {
		n.now = time.Now
	}
	n.log = cfg.Logger
	if n.log == nil {
		n.log = hclog.NewNullLogger()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return sdk.Permanentf("dir: %v", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return sdk.Permanentf("dir: %v", err)
	}
	index, err := openApplied(root, n.log)
	if err == nil {
		err = syncDir(root) // the index file may be new
	}
	if err != nil {
		root.Close()
		return sdk.Permanentf("dir %s: %v", dir, err)
	}
	n.root, n.index = root, index
	return nil
}

func (n *notes) Close() error {
	if n.root == nil {
		return nil
	}
	return errors.Join(n.index.Close(), n.root.Close())
}

func (n *notes) Tools(ctx context.Context) ([]sdk.ToolSpec, error) {
	return []sdk.ToolSpec{appendSpec(), listSpec(), readSpec()}, nil
}

func (n *notes) Call(ctx context.Context, inv sdk.Invocation) (sdk.ToolResult, error) {
	if n.root == nil {
		return sdk.ToolResult{}, sdk.Permanentf("notes: Call before Configure")
	}
	switch inv.Name {
	case toolAppend:
		return n.callAppend(inv)
	case toolList:
		return n.callList(inv)
	case toolRead:
		return n.callRead(inv)
	}
	return inv.Errorf("unknown tool %q: this plugin serves %s, %s and %s", inv.Name, toolAppend, toolList, toolRead), nil
}

// syncDir makes new directory entries in root durable.
func syncDir(root *os.Root) error {
	d, err := root.Open(".")
	if err != nil {
		return fmt.Errorf("open dir for fsync: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync dir: %w", err)
	}
	return nil
}
