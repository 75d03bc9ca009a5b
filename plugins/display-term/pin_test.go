package main

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPinSequences(t *testing.T) {
	t.Parallel()
	p := pin{rows: 30, cols: 80, height: 4}
	cases := []struct{ name, got, want string }{
		{"setup", p.setup(), "\n\n\n\n" + "\x1b7" + "\x1b[1;26r" + "\x1b8" + "\x1b[4A"},
		{"draw", p.draw([]string{"face", "", "text", "status"}),
			"\x1b7\x1b[0m" + "\x1b[27;1Hface\x1b[K" + "\x1b[28;1H\x1b[K" + "\x1b[29;1Htext\x1b[K" + "\x1b[30;1Hstatus\x1b[K" + "\x1b8"},
		{"release", p.release(), "\x1b7" + "\x1b[r" + "\x1b[27;1H" + "\x1b[J" + "\x1b8"},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	for _, tc := range []struct {
		p     pin
		width int
		want  bool
	}{
		{pin{rows: 26, cols: 64, height: 24}, 64, true},
		{pin{rows: 25, cols: 64, height: 24}, 64, false}, // one row is no region
		{pin{rows: 50, cols: 63, height: 24}, 64, false}, // the face would wrap
		{pin{height: 24}, 64, false},                     // a terminal that reports no size
	} {
		if got := tc.p.fits(tc.width); got != tc.want {
			t.Errorf("%+v fits %d columns = %v, want %v", tc.p, tc.width, got, tc.want)
		}
	}
}

func TestOpenHints(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path string
		err  error
		want string
	}{
		{"/dev/tty", fs.ErrNotExist, `add grant { devices = ["/dev/tty"] }`},
		{"/dev/tty", syscall.ENXIO, "axon has no terminal"},
		{"/srv/face/screen", syscall.ENXIO, "set tty to a file and grant its directory"},
		{"/srv/face/screen", fs.ErrPermission, "set tty to a terminal device or a file this block grants"},
	} {
		err := &fs.PathError{Op: "open", Path: tc.path, Err: tc.err}
		if got := openHint(tc.path, err); !strings.Contains(got, tc.want) {
			t.Errorf("openHint(%s, %v) = %q, want it to say %q", tc.path, errors.Unwrap(err), got, tc.want)
		}
	}
}
