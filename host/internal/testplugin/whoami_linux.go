//go:build linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
)

// identity is what whoami reports: who the process is and which layers of
// a sandbox it can see. Each XxxError is set when Xxx could not be read.
type identity struct {
	UID            int               `json:"uid"`
	GID            int               `json:"gid"`
	EUID           int               `json:"euid"`
	Groups         []int             `json:"groups"`
	GroupsError    string            `json:"groups_error,omitempty"`
	PID            int               `json:"pid"`
	PPID           int               `json:"ppid"`
	Hostname       string            `json:"hostname"`
	HostnameError  string            `json:"hostname_error,omitempty"`
	Status         map[string]string `json:"status,omitempty"`
	StatusError    string            `json:"status_error,omitempty"`
	MountinfoLines int               `json:"mountinfo_lines"`
	MountinfoError string            `json:"mountinfo_error,omitempty"`
	Proc1Readable  bool              `json:"proc1_cmdline_readable"`
	Proc1Cmdline   string            `json:"proc1_cmdline,omitempty"`
	Proc1Error     string            `json:"proc1_cmdline_error,omitempty"`
	Cwd            string            `json:"cwd"`
	CwdError       string            `json:"cwd_error,omitempty"`
	Root           []string          `json:"root"`
	RootError      string            `json:"root_error,omitempty"`
	FDs            map[string]string `json:"fds,omitempty"` // every open descriptor and what it is (readlink)
	FDsError       string            `json:"fds_error,omitempty"`
}

// statusKeys are the /proc/self/status lines that show the privilege layers.
var statusKeys = []string{"CapEff", "CapPrm", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp"}

func whoami(context.Context, []string) string {
	id := identity{UID: os.Getuid(), GID: os.Getgid(), EUID: os.Geteuid(), PID: os.Getpid(), PPID: os.Getppid()}
	var err error
	if id.Groups, err = os.Getgroups(); err != nil {
		id.GroupsError = err.Error()
	}
	if id.Groups == nil {
		id.Groups = []int{}
	}
	if id.Hostname, err = os.Hostname(); err != nil {
		id.HostnameError = err.Error()
	}
	if b, err := os.ReadFile("/proc/self/status"); err != nil {
		id.StatusError = err.Error()
	} else {
		id.Status = map[string]string{}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(line, ":")
			for _, want := range statusKeys {
				if k == want {
					id.Status[k] = strings.TrimSpace(v)
				}
			}
		}
	}
	if b, err := os.ReadFile("/proc/self/mountinfo"); err != nil {
		id.MountinfoError = err.Error()
	} else {
		id.MountinfoLines = strings.Count(string(b), "\n")
	}
	if b, err := os.ReadFile("/proc/1/cmdline"); err != nil {
		id.Proc1Error = err.Error()
	} else {
		id.Proc1Readable, id.Proc1Cmdline = true, nulsToSpaces(b)
	}
	if id.Cwd, err = os.Getwd(); err != nil {
		id.CwdError = err.Error()
	}
	if entries, err := os.ReadDir("/"); err != nil {
		id.RootError = err.Error()
	} else {
		for _, e := range entries {
			id.Root = append(id.Root, e.Name())
		}
	}
	if entries, err := os.ReadDir("/proc/self/fd"); err != nil {
		id.FDsError = err.Error()
	} else {
		id.FDs = map[string]string{}
		for _, e := range entries {
			link, err := os.Readlink("/proc/self/fd/" + e.Name())
			if err != nil {
				link = "error: " + err.Error()
			}
			id.FDs[e.Name()] = link
		}
	}
	b, err := json.Marshal(id)
	if err != nil {
		return "broken: " + err.Error()
	}
	return string(b)
}
