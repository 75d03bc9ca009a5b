package egress

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/sdk"
)

// BenchmarkDo is one plugin request through the egress to a loopback
// upstream answering as the bench harness's mock does (a 4.6 kB stream of
// 18 flushed events), read to its end with one buffer, as the plugin
// protocol's server reads it. The upstream's own cost is in the figures.
func BenchmarkDo(b *testing.B) {
	event := `data: {"id":"chatcmpl-mock-1","object":"chat.completion.chunk","created":1764633600,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"lorem "},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		for range 18 {
			io.WriteString(w, event)
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	al, err := NewAllowList(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	s := New(Grant{Plugin: "p", Allow: al, Inject: al, Auth: sdk.Auth{Scheme: sdk.AuthBearer}, Credential: credref.MustParse("env:KEY"), MaxConcurrent: 64},
		hclog.NewNullLogger(), WithEnv(env))
	defer s.Close()
	body := []byte(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Say hello."}],"stream":true}`)
	header := http.Header{"Content-Type": {"application/json"}, "Accept": {"text/event-stream, application/json"}}
	buf := make([]byte, 32<<10)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := s.Do(ctx, &sdk.EgressRequest{Method: "POST", URL: srv.URL + "/v1/chat/completions", Header: header, Body: bytes.NewReader(body)})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			k, err := resp.Body.Read(buf)
			n += k
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		resp.Body.Close()
		if n != 18*len(event) {
			b.Fatalf("read %d bytes", n)
		}
	}
}
