package api

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
)

func TestJSONValuesCountsWithoutDecoding(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{
		`{}`:                     2,
		`{"a":1,"b":[1,2,3]}`:    6,
		`{"s":"a,b,{c}[d]\",e"}`: 2, // separators inside a string do not count
		`[{},{},{}]`:             7,
		`{"s":"\\\\","t":[1]}`:   4,
	} {
		if got := jsonValues([]byte(in)); got != want {
			t.Errorf("%s: %d, want %d", in, got, want)
		}
	}
}

// TestManyTinyValuesAreRefused: a body of millions of tiny content blocks
// (each a struct of a few hundred bytes once decoded) is refused with 400
// in the client's format before it is decoded, holding no more memory than
// its own bytes.
func TestManyTinyValuesAreRefused(t *testing.T) {
	blocks := strings.Repeat("{},", 3<<20) + "{}"
	for _, tc := range []struct{ path, body string }{
		{"/v1/messages", `{"model":"default","max_tokens":10,"messages":[{"role":"user","content":[` + blocks + `]}]}`},
		{"/v1/chat/completions", `{"model":"default","messages":[` + blocks + `]}`},
	} {
		srv := newServer(t, &fakeBackend{events: okEvents})
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		resp, err := srv.Client().Post(srv.URL+tc.path, "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		runtime.ReadMemStats(&after)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", tc.path, resp.StatusCode)
		}
		// Before the bound, decoding this body allocated about 2 GB.
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 200<<20 {
			t.Errorf("%s: %d MiB allocated for a %d MiB body", tc.path, grew>>20, len(tc.body)>>20)
		}
	}
}
