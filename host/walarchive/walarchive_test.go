package walarchive

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/host/wal"
)

// logs writes n small logs under dir and returns their sources.
func logs(t *testing.T, dir string, n int) []Source {
	t.Helper()
	var out []Source
	for i := range n {
		id := string(rune('a'+i)) + "session"
		path := filepath.Join(dir, id)
		w, err := wal.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j <= i; j++ {
			if _, err := w.Append([]byte(strings.Repeat("x", 100*j+1)), []byte("y")); err != nil {
				t.Fatal(err)
			}
		}
		e := Entry{Session: id, Lineage: w.Lineage().String(), Records: w.LastSeq(), LastWrite: time.Unix(1700000000, 0).UTC()}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		e.SHA256, e.Size, err = Digest(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Source{Entry: e, Path: path})
	}
	return out
}

func TestWriteReadVerify(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srcs := logs(t, dir, 3)
	var hits []string
	path, err := Write(filepath.Join(dir, "archive"), time.Unix(1700000100, 0), srcs, func(s string) { hits = append(hits, s) })
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	if want := "archive_container_synced archive_container_renamed"; strings.Join(hits, " ") != want {
		t.Errorf("steps %v, want %s", hits, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o400 {
		t.Errorf("sealed container %v, %v: want a read-only file", fi, err)
	}
	if rep := Verify(path); !rep.OK() || len(rep.Entries) != 3 {
		t.Fatalf("Verify: %+v", rep)
	}
	c, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	for _, s := range srcs {
		b, im, err := c.Log(s.Entry.Session)
		if err != nil {
			t.Fatalf("Log(%s): %v", s.Entry.Session, err)
		}
		orig, _ := os.ReadFile(s.Path)
		if !bytes.Equal(b, orig) || im.LastSeq() != s.Entry.Records {
			t.Errorf("%s: archived bytes differ from the log's, or %d records (want %d)", s.Entry.Session, im.LastSeq(), s.Entry.Records)
		}
	}
	// Writing the same logs again makes the same container: same manifest, same name.
	again, err := Write(filepath.Join(dir, "archive"), time.Unix(1700000100, 0), srcs, nil)
	if err != nil || again != path {
		t.Errorf("second Write: %s, %v; want %s", again, err, path)
	}
}

// A log that changed between its digest and its copy is not sealed.
func TestWriteRefusesAChangedLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srcs := logs(t, dir, 2)
	f, _ := os.OpenFile(srcs[1].Path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write([]byte("late"))
	f.Close()
	if _, err := Write(filepath.Join(dir, "archive"), time.Now(), srcs, nil); err == nil || !strings.Contains(err.Error(), "changed while it was archived") {
		t.Fatalf("Write of a changed log: %v", err)
	}
	if names, _ := List(filepath.Join(dir, "archive")); len(names) != 0 {
		t.Errorf("containers %v after a failed Write", names)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "archive"))
	if len(ents) != 0 {
		t.Errorf("left behind %v", ents)
	}
}

// Verify catches damage anywhere: in the manifest (its digest is the
// name), in a log (its digest is in the manifest), in the layout.
func TestVerifyCatchesDamage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srcs := logs(t, dir, 2)
	path, err := Write(filepath.Join(dir, "archive"), time.Now(), srcs, nil)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	mlen := bytes.Index(good[512:], []byte("\x00")) // the manifest's JSON ends at the first NUL of its padding
	logAt := int64(512 + (mlen+511)/512*512 + 512)  // first log's data: after the manifest's blocks and its own header
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
		want   string
	}{
		{"a byte of the manifest", func(b []byte) []byte { b[512+10] ^= 1; return b }, "not the container's name"},
		{"a byte of a log", func(b []byte) []byte { b[logAt+40] ^= 1; return b }, "digest mismatch"},
		{"cut short", func(b []byte) []byte { return b[:logAt+20] }, ""},
		{"an entry added", func(b []byte) []byte {
			extra := append([]byte(nil), b[logAt-512:logAt]...) // a copy of the first log's header block
			end := len(b) - 1024                                // before the two zero blocks that end the tar
			return append(append(append([]byte(nil), b[:end]...), extra...), make([]byte, 512+1024)...)
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), filepath.Base(path))
			if err := os.WriteFile(bad, tc.damage(append([]byte(nil), good...)), 0o600); err != nil {
				t.Fatal(err)
			}
			rep := Verify(bad)
			if rep.OK() {
				t.Fatalf("Verify of a container with %s: ok", tc.name)
			}
			all := errors.Join(rep.Err)
			for _, e := range rep.Entries {
				all = errors.Join(all, e.Err)
			}
			if !errors.Is(all, ErrDamaged) {
				t.Errorf("errors %v do not match ErrDamaged", all)
			}
			if tc.want != "" && !strings.Contains(all.Error(), tc.want) {
				t.Errorf("errors %q do not say %q", all, tc.want)
			}
		})
	}
	// Read refuses the damaged log, naming the container, the session and both digests.
	bad := filepath.Join(t.TempDir(), filepath.Base(path))
	b := append([]byte(nil), good...)
	b[logAt+40] ^= 1
	os.WriteFile(bad, b, 0o600)
	c, err := Open(bad)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Read(srcs[0].Entry.Session)
	var de *DigestError
	if !errors.As(err, &de) || de.Want != srcs[0].Entry.SHA256 || de.Got == de.Want || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), de.Got) || !strings.Contains(err.Error(), srcs[0].Entry.Session) {
		t.Errorf("Read of a damaged log: %v", err)
	}
}
