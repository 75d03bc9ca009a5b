package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// proxyGet fetches rawURL through the HTTPS proxy the host offered
// (sdk.Config.Proxy), as a vendor client given HTTPS_PROXY would. It
// checks no certificate: the claim under test is the route, not the
// upstream's name.
func (h *hostile) proxyGet(ctx context.Context, rawURL string) string {
	if h.proxy == "" {
		return "proxy-get: no proxy offered"
	}
	pu, err := url.Parse(h.proxy)
	if err != nil {
		return "proxy-get: bad proxy URL: " + err.Error()
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		Proxy:           http.ProxyURL(pu),
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return "proxy-get: " + err.Error()
	}
	resp, err := client.Do(req)
	if err != nil {
		return "proxy-get error: " + err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return fmt.Sprintf("proxy-get %d %s", resp.StatusCode, b)
}
