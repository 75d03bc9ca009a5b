package pi_test

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// repo is the checkout's root, relative to this package.
const repo = "../.."

// TestPluginList checks that install.sh installs exactly the plugins of
// plugins/ (and so none of examples/).
func TestPluginList(t *testing.T) {
	script, err := os.ReadFile("install.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^plugins="([^"]*)"$`).FindSubmatch(script)
	if m == nil {
		t.Fatal(`install.sh has no plugins="..." line`)
	}
	got := strings.Fields(string(m[1]))
	want := firstParty(t)
	if !slices.Equal(got, want) {
		t.Errorf("install.sh plugins = %v, want the plugins of plugins/: %v", got, want)
	}
}

func firstParty(t *testing.T) []string {
	mains, err := filepath.Glob(filepath.Join(repo, "plugins", "*", "main.go"))
	if err != nil || len(mains) == 0 {
		t.Fatalf("no plugins/*/main.go: %v", err)
	}
	var names []string
	for _, m := range mains {
		names = append(names, filepath.Base(filepath.Dir(m)))
	}
	slices.Sort(names)
	return names
}

// TestReadmeInstall does what the README's "Raspberry Pi" section says:
// copies the paths of its rsync line (with a host-arch bin/linux-arm64),
// runs hardware/pi/install.sh from that copy into a temporary root, twice,
// and checks the installed tree, then runs axon check on it as the axon
// user that install.sh wrote into that root's passwd.
func TestReadmeInstall(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("install.sh runs as root (it chowns files to the axon user); run the test as root")
	}
	for _, tool := range []string{"useradd", "groupadd", "usermod", "setpriv"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: %v", tool, err)
		}
	}
	paths := readmeRsyncPaths(t)

	// The checkout as rsync leaves it on the Pi: ~/axon/<path>.
	stage := filepath.Join(t.TempDir(), "axon")
	bin := filepath.Join(stage, "bin", "linux-arm64")
	for _, p := range paths {
		if p == "bin/linux-arm64" {
			continue // built below, for this machine
		}
		copyTree(t, filepath.Join(repo, p), filepath.Join(stage, p))
	}
	if !slices.Contains(paths, "bin/linux-arm64") {
		t.Fatalf("README rsync line %v does not send bin/linux-arm64", paths)
	}
	buildBin(t, bin)

	dest := filepath.Join(t.TempDir(), "root")
	if err := os.MkdirAll(dest, 0o755); err != nil {
		t.Fatal(err)
	}
	// t.TempDir's directories are 0700: let the axon user reach dest.
	for _, d := range []string{filepath.Dir(dest), filepath.Dir(filepath.Dir(dest))} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	prefix := filepath.Join(dest, "usr/local/lib/axon")
	calls := filepath.Join(t.TempDir(), "systemctl.calls")
	fake := filepath.Join(t.TempDir(), "systemctl")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$*\" >> "+calls+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func() {
		t.Helper()
		// As the README runs it: sudo axon/hardware/pi/install.sh, no argument.
		cmd := exec.Command(filepath.Join(stage, "hardware/pi/install.sh"))
		cmd.Dir = filepath.Dir(stage)
		cmd.Env = append(os.Environ(), "DESTDIR="+dest, "SYSTEMCTL="+fake)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("install.sh: %v\n%s%s", err, out, stderr.String())
		}
		if stderr.Len() > 0 {
			t.Errorf("install.sh warned:\n%s", stderr.String())
		}
	}

	run()
	uid, gid := checkTree(t, dest, stage)
	tree1 := listTree(t, dest)

	// A second run keeps the edited config and the keys, adds no second
	// user or subordinate range, and removes an example plugin an earlier
	// version of the script installed.
	cfg := filepath.Join(dest, "etc/axon/axon.hcl")
	secrets := filepath.Join(dest, "etc/axon/secrets.env")
	edited := append(readFile(t, cfg), "\n# edited\n"...)
	writeKeep(t, cfg, edited)
	writeKeep(t, secrets, []byte("ZAI_API_KEY=test\n"))
	if err := os.WriteFile(filepath.Join(prefix, "axon-provider-echo"), []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	run()
	checkTree(t, dest, stage)
	if got := string(readFile(t, cfg)); got != string(edited) {
		t.Error("the second run replaced the edited axon.hcl")
	}
	if got := string(readFile(t, secrets)); got != "ZAI_API_KEY=test\n" {
		t.Errorf("the second run changed secrets.env: %q", got)
	}
	if tree2 := listTree(t, dest); !slices.Equal(tree1, tree2) {
		t.Errorf("the second run left a different tree:\nfirst:  %v\nsecond: %v", tree1, tree2)
	}
	for _, f := range []string{"passwd", "group", "subuid", "subgid"} {
		for _, line := range strings.Split(string(readFile(t, filepath.Join(dest, "etc", f))), "\n") {
			if n := strings.Count(string(readFile(t, filepath.Join(dest, "etc", f))), line+"\n"); line != "" && n != 1 {
				t.Errorf("etc/%s has %q %d times", f, line, n)
			}
		}
	}
	want := "--root=" + dest + " enable axon.service\n"
	if got := string(readFile(t, calls)); got != want+want {
		t.Errorf("systemctl calls:\n%s\nwant twice: %s", got, want)
	}

	// axon check, as the README says: sudo -u axon axon check --config
	// /etc/axon/axon.hcl. The axon user exists only in dest's passwd, so by
	// its numeric ids; the plugins are under dest, not /usr/local/lib/axon.
	check := exec.Command("setpriv", "--reuid="+uid, "--regid="+gid, "--clear-groups",
		filepath.Join(prefix, "axon"), "check", "--config", cfg, "--plugin-dir", prefix)
	check.Dir = "/"
	check.Env = []string{"PATH=/usr/bin:/bin", "ZAI_API_KEY=test"}
	out, err := check.CombinedOutput()
	t.Logf("axon check as uid %s:\n%s", uid, out)
	for _, block := range []string{"ok  provider glm ", "ok  provider local "} {
		if !strings.Contains(string(out), block) {
			t.Errorf("axon check did not pass %q", block)
		}
	}
	if err == nil {
		return
	}
	// The face's grants name the Pi's device tree and SPI port; off a Pi
	// that block, and only it, fails.
	if _, serr := os.Stat("/sys/firmware/devicetree/base"); serr == nil {
		t.Fatalf("axon check failed: %v", err)
	}
	if !strings.Contains(string(out), `display "face"`) || !strings.Contains(string(out), "1 of 3 plugin blocks failed") {
		t.Fatalf("axon check failed other than on the Pi-only display grants: %v", err)
	}
}

// readmeRsyncPaths returns the paths the README's Raspberry Pi section
// sends to the Pi.
func readmeRsyncPaths(t *testing.T) []string {
	f, err := os.Open(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := false
	var rsync, install string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "### Raspberry Pi":
			in = true
		case in && strings.HasPrefix(line, "#"):
			in = false
		case in && strings.HasPrefix(line, "rsync "):
			rsync = line
		case in && install == "" && strings.Contains(line, "install.sh"):
			install = line
		}
	}
	fields := strings.Fields(rsync)
	if len(fields) < 4 || fields[1] != "-a" || fields[2] != "--relative" || !strings.HasSuffix(fields[len(fields)-1], ":axon/") {
		t.Fatalf("README Raspberry Pi section: no `rsync -a --relative PATH... HOST:axon/` line: %q", rsync)
	}
	if !strings.Contains(install, "'sudo axon/hardware/pi/install.sh'") {
		t.Fatalf("README Raspberry Pi section: no `sudo axon/hardware/pi/install.sh` line: %q", install)
	}
	return fields[3 : len(fields)-1]
}

// buildBin builds what axon check starts for examples/pi-pet.hcl, writes
// stand-ins for the other first-party plugins, and adds example plugins
// that install.sh must leave out.
func buildBin(t *testing.T, bin string) {
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	built := map[string]string{
		"axon":                    "./host/cmd/axon",
		"axon-provider-anthropic": "./plugins/provider-anthropic",
		"axon-provider-openai":    "./plugins/provider-openai",
		"axon-display-epd":        "./plugins/display-epd",
	}
	for name, pkg := range built {
		abs, err := filepath.Abs(filepath.Join(bin, name))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "build", "-o", abs, pkg)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	stub := []byte("#!/bin/sh\nexit 1\n")
	for _, p := range append(firstParty(t), "provider-echo", "provider-anthropic-sdk") {
		name := "axon-" + p
		if _, ok := built[name]; ok {
			continue
		}
		if err := os.WriteFile(filepath.Join(bin, name), stub, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// checkTree checks the installed files, their modes and owners, and
// returns the axon user's uid and gid from dest's passwd.
func checkTree(t *testing.T, dest, stage string) (uid, gid string) {
	t.Helper()
	passwd := parseDB(t, filepath.Join(dest, "etc/passwd"))
	group := parseDB(t, filepath.Join(dest, "etc/group"))
	u, ok := passwd["axon"]
	if !ok {
		t.Fatal("no axon user in etc/passwd")
	}
	uid, gid = u[2], u[3]
	if g := group["axon"]; len(g) < 3 || g[2] != gid {
		t.Fatalf("axon's primary group %s is not group axon: %v", gid, g)
	}
	if u[5] != "/var/lib/axon" || u[6] != "/usr/sbin/nologin" {
		t.Errorf("axon user: home %s, shell %s", u[5], u[6])
	}
	for _, g := range []string{"spi", "gpio"} {
		if e, ok := group[g]; !ok || !slices.Contains(strings.Split(e[3], ","), "axon") {
			t.Errorf("axon is not in group %s: %v", g, e)
		}
	}
	if sub := string(readFile(t, filepath.Join(dest, "etc/subuid"))); !strings.Contains(sub, "axon:200000:65536\n") {
		t.Errorf("etc/subuid: %q", sub)
	}
	if sub := string(readFile(t, filepath.Join(dest, "etc/subgid"))); !strings.Contains(sub, "axon:200000:65536\n") {
		t.Errorf("etc/subgid: %q", sub)
	}
	g, _ := strconv.Atoi(gid)
	o, _ := strconv.Atoi(uid)
	for _, f := range []struct {
		path     string
		mode     fs.FileMode
		uid, gid int
	}{
		{"etc/axon", fs.ModeDir | 0o750, 0, g},
		{"etc/axon/axon.hcl", 0o640, 0, g},
		{"etc/axon/secrets.env", 0o600, 0, 0},
		{"etc/systemd/system/axon.service", 0o644, 0, 0},
		{"usr/local/lib/axon/axon", 0o755, 0, 0},
		{"usr/local/share/doc/axon/README.md", 0o644, 0, 0},
		{"var/lib/axon", fs.ModeDir | 0o750, o, g},
		{"var/lib/axon/epd", fs.ModeDir | 0o750, o, g},
	} {
		fi, err := os.Lstat(filepath.Join(dest, f.path))
		if err != nil {
			t.Error(err)
			continue
		}
		st := fi.Sys().(*syscall.Stat_t)
		if fi.Mode() != f.mode || int(st.Uid) != f.uid || int(st.Gid) != f.gid {
			t.Errorf("%s: %v %d:%d, want %v %d:%d", f.path, fi.Mode(), st.Uid, st.Gid, f.mode, f.uid, f.gid)
		}
	}
	if got, want := string(readFile(t, filepath.Join(dest, "etc/systemd/system/axon.service"))), string(readFile(t, "axon.service")); got != want {
		t.Error("the installed unit is not hardware/pi/axon.service")
	}
	if got, want := string(readFile(t, filepath.Join(dest, "usr/local/share/doc/axon/README.md"))), string(readFile(t, filepath.Join(stage, "hardware/README.md"))); got != want {
		t.Error("the installed README is not hardware/README.md")
	}
	if l, err := os.Readlink(filepath.Join(dest, "usr/local/bin/axon")); err != nil || l != "/usr/local/lib/axon/axon" {
		t.Errorf("usr/local/bin/axon -> %q, %v; want /usr/local/lib/axon/axon", l, err)
	}
	entries, err := os.ReadDir(filepath.Join(dest, "usr/local/lib/axon"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{"axon"}
	for _, p := range firstParty(t) {
		want = append(want, "axon-"+p)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("usr/local/lib/axon holds %v, want %v (first-party plugins only)", got, want)
	}
	return uid, gid
}

func parseDB(t *testing.T, path string) map[string][]string {
	db := map[string][]string{}
	for _, line := range strings.Split(string(readFile(t, path)), "\n") {
		if f := strings.Split(line, ":"); len(f) >= 4 {
			db[f[0]] = f
		}
	}
	return db
}

// listTree lists every path under dir with its mode and owner.
func listTree(t *testing.T, dir string) []string {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel+" "+fi.Mode().String()+" "+strconv.Itoa(int(st.Uid))+":"+strconv.Itoa(int(st.Gid)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeKeep rewrites path's contents, keeping its mode and owner.
func writeKeep(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err == nil {
		_, err = f.Write(b)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
}

// copyTree copies a file or a directory tree, keeping file modes, as
// rsync -a does.
func copyTree(t *testing.T, src, dst string) {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatalf("copy %s (README rsync list): %v", src, err)
	}
}
