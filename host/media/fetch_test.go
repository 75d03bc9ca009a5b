package media

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// png is the start of a PNG file: enough for content sniffing.
var png = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{7}, 100)...)

// server is an httptest server on 127.0.0.1 counting its requests.
type server struct {
	*httptest.Server
	calls atomic.Int64
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.calls.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func serve(contentType string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.Write(body)
	}
}

func fetcher(t *testing.T, cfg Config) *Fetcher {
	t.Helper()
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// allowing is a Config that lets the test servers be reached.
func allowing(servers ...*server) Config {
	var c Config
	for _, s := range servers {
		c.Allow = append(c.Allow, s.URL)
	}
	return c
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one saying %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q lacks %q", err, p)
		}
	}
}

func TestFetchServesTheBytesAndType(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, served string
		kind         Kind
		body         []byte
		want         string
	}{
		{"image as served", "image/jpeg", KindImage, png, "image/jpeg"},
		{"image sniffed from octet-stream", "application/octet-stream", KindImage, png, "image/png"},
		{"image sniffed when untyped", "", KindImage, png, "image/png"},
		{"pdf", "application/pdf", KindDocument, []byte("%PDF-1.7\n..."), "application/pdf"},
		{"text with charset", "text/plain; charset=utf-8", KindDocument, []byte("héllo"), "text/plain"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, serve(c.served, c.body))
			got, err := fetcher(t, allowing(s)).Fetch(context.Background(), s.URL+"/x", c.kind, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got.MediaType != c.want || !bytes.Equal(got.Data, c.body) {
				t.Errorf("got %s, %d bytes; want %s, %d bytes", got.MediaType, len(got.Data), c.want, len(c.body))
			}
		})
	}
}

func TestFetchRefusesWrongContentType(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, served string
		kind         Kind
		body         []byte
		want         string
	}{
		{"html for an image", "text/html", KindImage, []byte("<html>login</html>"), "served as text/html, not an image"},
		{"image for a document", "image/png", KindDocument, png, "served as image/png, not application/pdf or text/plain"},
		{"text that is not UTF-8", "text/plain", KindDocument, []byte{0xff, 0xfe, 'a'}, "not UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, serve(c.served, c.body))
			_, err := fetcher(t, allowing(s)).Fetch(context.Background(), s.URL, c.kind, 0)
			wantErr(t, err, c.want)
		})
	}
}

// TestFetchCountsWhileReading: a response whose Content-Length claims a
// few bytes but streams without end (chunked) is cut at the limit, and
// one whose Content-Length is over the limit is refused before reading.
func TestFetchCountsWhileReading(t *testing.T) {
	t.Parallel()
	var written atomic.Int64
	lying := newServer(t, func(w http.ResponseWriter, _ *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 16\r\nTransfer-Encoding: chunked\r\n\r\n")
		chunk := bytes.Repeat([]byte{1}, 64<<10)
		for range 1024 { // 64 MiB at most: the client should hang up long before
			if _, err := fmt.Fprintf(buf, "%x\r\n%s\r\n", len(chunk), chunk); err != nil {
				return
			}
			if buf.Flush() != nil {
				return
			}
			written.Add(int64(len(chunk)))
		}
		buf.WriteString("0\r\n\r\n")
		buf.Flush()
	})
	f := fetcher(t, Config{Allow: []string{lying.URL}, MaxPartBytes: 1 << 20})
	_, err := f.Fetch(context.Background(), lying.URL+"/big.png", KindImage, 0)
	wantErr(t, err, "larger than the 1 MiB limit")
	if n := written.Load(); n >= 64<<20 {
		t.Errorf("the server wrote all %d bytes: the fetch read past its limit", n)
	}

	declared := newServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Content-Length", fmt.Sprint(2<<20))
		w.Write(bytes.Repeat([]byte{1}, 2<<20))
	})
	f = fetcher(t, Config{Allow: []string{declared.URL}, MaxPartBytes: 1 << 20})
	_, err = f.Fetch(context.Background(), declared.URL, KindImage, 0)
	wantErr(t, err, "larger than the 1 MiB limit")

	// A smaller limit passed by the caller (what is left of the request's
	// budget) bounds the read too.
	small := newServer(t, serve("image/png", png))
	_, err = fetcher(t, allowing(small)).Fetch(context.Background(), small.URL, KindImage, 10)
	wantErr(t, err, "larger than the 10 bytes limit")
}

// TestFetchRefusesNonPublicDestinations: loopback is refused unless the
// origin is listed, a name resolving to loopback is caught at dial time,
// and a redirect from an allowed origin is checked afresh.
func TestFetchRefusesNonPublicDestinations(t *testing.T) {
	t.Parallel()
	target := newServer(t, serve("image/png", png))
	tlsTarget := httptest.NewTLSServer(serve("image/png", png))
	t.Cleanup(tlsTarget.Close)
	_, port, _ := net.SplitHostPort(tlsTarget.Listener.Addr().String())
	redirect := func(to string) *server {
		return newServer(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) })
	}
	for _, c := range []struct {
		name  string
		url   string
		allow []*server
		want  []string
	}{
		{"loopback https by default", tlsTarget.URL + "/a.png", nil, []string{"resolves to 127.0.0.1, a loopback address"}},
		{"a name resolving to loopback", "https://localhost:" + port + "/a.png", nil, []string{"a loopback address"}},
		{"plain http by default", target.URL + "/a.png", nil, []string{"plain http is fetched only from an origin", "use https"}},
		{"redirect to a private address", "", nil, []string{"resolves to 10.1.2.3, a private address"}},
		{"redirect to an unlisted loopback origin", "", nil, []string{"redirected to " + target.URL + "/a.png", "plain http"}},
		{"redirect to link-local metadata", "", nil, []string{"169.254.169.254, a link-local address"}},
		{"user info", "https://user:pw@example.com/a.png", nil, []string{"user info"}},
		{"not http", "file:///etc/passwd", nil, []string{`scheme "file" is not https`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := allowing(c.allow...)
			url := c.url
			switch c.name {
			case "redirect to a private address":
				r := redirect("https://10.1.2.3/a.png")
				cfg, url = allowing(r), r.URL
			case "redirect to an unlisted loopback origin":
				r := redirect(target.URL + "/a.png")
				cfg, url = allowing(r), r.URL
			case "redirect to link-local metadata":
				r := redirect("https://169.254.169.254/latest/meta-data")
				cfg, url = allowing(r), r.URL
			}
			before := target.calls.Load()
			_, err := fetcher(t, cfg).Fetch(context.Background(), url, KindImage, 0)
			wantErr(t, err, c.want...)
			if strings.Contains(c.name, "loopback origin") && target.calls.Load() != before {
				t.Error("the unlisted origin was reached")
			}
		})
	}
}

func TestFetchFollowsBoundedRedirects(t *testing.T) {
	t.Parallel()
	target := newServer(t, serve("image/png", png))
	hop := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/a.png", http.StatusFound)
	})
	got, err := fetcher(t, allowing(hop, target)).Fetch(context.Background(), hop.URL, KindImage, 0)
	if err != nil || !bytes.Equal(got.Data, png) {
		t.Fatalf("one listed redirect: %v", err)
	}
	var loop *server
	loop = newServer(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, loop.URL+"/again", http.StatusFound) })
	_, err = fetcher(t, Config{Allow: []string{loop.URL}, MaxRedirects: 3}).Fetch(context.Background(), loop.URL, KindImage, 0)
	wantErr(t, err, "more than 3 redirects")
	if n := loop.calls.Load(); n != 4 {
		t.Errorf("%d requests to the loop, want 4 (the first and 3 redirects)", n)
	}
}

func TestFetchSendsNoCredential(t *testing.T) {
	t.Parallel()
	var seen http.Header
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Clone()
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s3cret"})
		w.Header().Set("Content-Type", "image/png")
		w.Write(png)
	})
	f := fetcher(t, allowing(s))
	for range 2 { // the second request would carry a cookie the first set, with a jar
		if _, err := f.Fetch(context.Background(), s.URL, KindImage, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range []string{"Authorization", "Cookie", "Proxy-Authorization", "X-Api-Key"} {
		if v := seen.Get(h); v != "" {
			t.Errorf("request carried %s: %q", h, v)
		}
	}
}

func TestFetchHangGuard(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		h    http.HandlerFunc
	}{
		{"no headers", func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
		{"body stalls", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			w.Write(png[:8])
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, c.h)
			cfg := allowing(s)
			cfg.Timeout = 200 * time.Millisecond // a hang guard: the server never finishes
			_, err := fetcher(t, cfg).Fetch(context.Background(), s.URL, KindImage, 0)
			wantErr(t, err, "no complete answer within 200ms")
		})
	}
}

func TestFetchStatusAndOff(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "nope", http.StatusForbidden) })
	_, err := fetcher(t, allowing(s)).Fetch(context.Background(), s.URL, KindImage, 0)
	wantErr(t, err, "answered 403 Forbidden")

	ok := newServer(t, serve("image/png", png))
	cfg := allowing(ok)
	cfg.Off = true
	_, err = fetcher(t, cfg).Fetch(context.Background(), ok.URL, KindImage, 0)
	wantErr(t, err, "fetching media URLs is off")
	if ok.calls.Load() != 0 {
		t.Error("fetched although off")
	}
}

func TestNewRefusesWildcards(t *testing.T) {
	t.Parallel()
	if _, err := New(Config{Allow: []string{"*.lan"}}); err == nil {
		t.Error("a wildcard allow entry was accepted")
	}
	if _, err := New(Config{Allow: []string{"ftp://nas"}}); err == nil {
		t.Error("an ftp allow entry was accepted")
	}
}

func TestNonPublic(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback",
		"10.0.0.1": "private", "172.16.5.5": "private", "192.168.1.1": "private", "fd00::1": "private",
		"169.254.169.254": "link-local", "fe80::1": "link-local",
		"0.0.0.0": "unspecified", "::": "unspecified", "0.1.2.3": "reserved",
		"239.1.2.3": "multicast", "ff05::1": "multicast", "224.0.0.1": "link-local",
		"100.100.1.1": "reserved", "192.0.2.1": "reserved", "198.18.0.1": "reserved", "240.0.0.1": "reserved",
		"255.255.255.255": "reserved", "64:ff9b::a00:1": "reserved", "2002:a00:1::1": "reserved", "2001:db8::1": "reserved",
		"8.8.8.8": "", "1.1.1.1": "", "2606:4700:4700::1111": "", "100.128.0.1": "",
	} {
		if got := nonPublic(netip.MustParseAddr(addr)); got != want {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://bucket.s3.amazonaws.com/a.png?X-Amz-Signature=abc": "https://bucket.s3.amazonaws.com/a.png?…",
		"https://u:p@example.com/a.png#frag":                        "https://example.com/a.png",
		"https://example.com/a.png":                                 "https://example.com/a.png",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
