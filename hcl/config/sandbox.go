package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Grant is one host path a plugin block shows its plugin inside the sandbox.
type Grant struct {
	Path string
	Mode string // "ro", "rw" or "dev"
}

// IDRange is the host uid/gid block a root host gives its plugins.
type IDRange struct {
	First, Count int
}

// DefaultPluginIDs is the block used when the axon block sets no
// plugin_ids: above the ranges systemd hands out to containers and below
// 2^31 (tools that read ids as signed numbers).
var DefaultPluginIDs = IDRange{First: 1879048192, Count: 65536}

type rawGrant struct {
	ReadOnly  hcl.Expression `hcl:"read_only,optional"`
	ReadWrite hcl.Expression `hcl:"read_write,optional"`
	Devices   hcl.Expression `hcl:"devices,optional"`
	DefRange  hcl.Range      `hcl:",def_range"`
}

func (r *reader) sandbox(e hcl.Expression) (Sandbox, bool) {
	s, ok := r.str(e, "sandbox")
	if !ok {
		return "", false
	}
	if s != "netns" {
		if s, ok = r.oneOf(e, "sandbox", string(SandboxFull), string(SandboxNone)); !ok {
			return "", false
		}
	} else {
		r.warnf(e.Range(), "sandbox = \"netns\" is now \"full\"",
			"The network-only sandbox is gone: every plugin runs in the full sandbox (user, PID, mount, network, IPC, UTS namespaces, no capabilities, seccomp). Write sandbox = \"full\", or drop the line.")
		s = string(SandboxFull)
	}
	if Sandbox(s) == SandboxFull && r.goos != "linux" {
		r.errorf(e.Range(), "Sandbox not available", "The plugin sandbox needs Linux namespaces; on %s use sandbox = \"none\".", r.goos)
		return "", false
	}
	return Sandbox(s), true
}

// grants reads a block's grant { read_only, read_write, devices } lists.
func (r *reader) grants(raw *rawGrant) []Grant {
	if raw == nil {
		return nil
	}
	var out []Grant
	for _, g := range []struct {
		e    hcl.Expression
		name string
		mode string
	}{{raw.ReadOnly, "read_only", "ro"}, {raw.ReadWrite, "read_write", "rw"}, {raw.Devices, "devices", "dev"}} {
		paths, ok := r.strs(g.e, g.name)
		if !ok {
			continue
		}
		for _, s := range paths {
			p, err := expandPath(s, r.dir, r.home)
			if err == nil && !strings.HasPrefix(p, "/") {
				err = fmt.Errorf("%q is not an absolute path (or ~/…)", s)
			}
			if err == nil && p == "/" {
				err = fmt.Errorf("%q would show the plugin the whole file system; grant the directories it needs", s)
			}
			if err == nil && g.mode == "dev" && !strings.HasPrefix(p, "/dev/") {
				err = fmt.Errorf("%q is not under /dev; devices lists device nodes such as \"/dev/spidev0.0\"", s)
			}
			if err != nil {
				r.errorf(g.e.Range(), fmt.Sprintf("Invalid value for %q", g.name), "%s.", capitalize(err.Error()))
				continue
			}
			out = append(out, Grant{Path: p, Mode: g.mode})
		}
	}
	return out
}

// pluginIDs reads plugin_ids = "FIRST-LAST".
func (r *reader) pluginIDs(e hcl.Expression) (IDRange, bool) {
	s, ok := r.str(e, "plugin_ids")
	if !ok {
		return IDRange{}, false
	}
	lo, hi, found := strings.Cut(s, "-")
	first, err1 := strconv.Atoi(strings.TrimSpace(lo))
	last, err2 := strconv.Atoi(strings.TrimSpace(hi))
	if !found || err1 != nil || err2 != nil || first < 1000 || last < first || last > 1<<31-2 || last-first < 1 {
		r.errorf(e.Range(), `Invalid value for "plugin_ids"`,
			"%q is not a range of host ids such as \"1879048192-1879113727\": FIRST-LAST, at least two ids, above the system's own (1000) and below 2^31-1.", s)
		return IDRange{}, false
	}
	return IDRange{First: first, Count: last - first + 1}, true
}
