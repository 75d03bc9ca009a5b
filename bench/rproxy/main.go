// Command rproxy is the "floor" for one Go proxy hop: a plain
// net/http/httputil.ReverseProxy in front of one upstream, with pooled
// keep-alive connections and immediate flushing (so SSE streams pass through
// chunk by chunk). It does no parsing, auth, routing or logging, so any
// gateway's cost above it is the cost of what that gateway does per request.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9100", "listen address (loopback only)")
	upstream := flag.String("upstream", "http://127.0.0.1:9000", "upstream base URL (loopback only)")
	idle := flag.Int("max-idle", 1024, "max idle upstream connections kept (per host and total)")
	flag.Parse()

	u, err := url.Parse(*upstream)
	if err != nil || u.Scheme != "http" || !loopback(u.Hostname()) {
		fmt.Fprintln(os.Stderr, "rproxy: -upstream must be an http:// URL on a loopback address")
		os.Exit(2)
	}
	if h, _, err := net.SplitHostPort(*addr); err != nil || !loopback(h) {
		fmt.Fprintln(os.Stderr, "rproxy: -addr must be a loopback host:port")
		os.Exit(2)
	}

	tr := &http.Transport{
		Proxy:               nil, // never use HTTP(S)_PROXY from the environment
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        *idle,
		MaxIdleConnsPerHost: *idle,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = pr.In.Host
		},
		Transport:     tr,
		FlushInterval: -1, // flush after every write: SSE passes through unbuffered
		ErrorLog:      log.New(os.Stderr, "rproxy: ", 0),
	}
	// Full duplex: an HTTP/1.1 server otherwise consumes what is left of the
	// request body when the handler first writes, while the transport is
	// still copying it upstream; the transport then fails the request and
	// closes the upstream connection, cutting about one stream in thirty.
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex()
		rp.ServeHTTP(w, r)
	})
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rproxy:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "rproxy listening on http://%s -> %s\n", ln.Addr(), u)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "rproxy:", err)
		os.Exit(1)
	}
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
