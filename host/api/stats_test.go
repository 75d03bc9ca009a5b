package api

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// statsFake is a backend that records usage: it answers with what it was
// asked, refuses a since of "yesterday", and fails with err.
type statsFake struct {
	fakeBackend
	err error
}

func (s *statsFake) Stats(_ context.Context, since, by string) (any, error) {
	switch {
	case s.err != nil:
		return nil, s.err
	case since == "yesterday":
		return nil, fmt.Errorf("%w: since %q: want a duration back", ErrStatsQuery, since)
	}
	return map[string]string{"since": since, "by": by}, nil
}

func TestStatsRoute(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		backend Backend
		query   string
		status  int
		body    string // a substring
	}{
		{name: "defaults", backend: &statsFake{}, status: 200, body: `{"by":"","since":""}`},
		{name: "since and by", backend: &statsFake{}, query: "?since=36h&by=day", status: 200, body: `{"by":"day","since":"36h"}`},
		{name: "a query the backend cannot read", backend: &statsFake{}, query: "?since=yesterday", status: 400, body: `since \"yesterday\": want a duration back`},
		{name: "the store fails", backend: &statsFake{err: errors.New("disk on fire")}, status: 503, body: "disk on fire"},
		{name: "a backend that records nothing", backend: &fakeBackend{}, status: 404, body: "records no usage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, tc.backend)
			resp, err := srv.Client().Get(srv.URL + "/v1/stats" + tc.query)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if body := readAll(t, resp.Body); resp.StatusCode != tc.status || !strings.Contains(body, tc.body) {
				t.Fatalf("%d %s, want %d with %s", resp.StatusCode, body, tc.status, tc.body)
			}
		})
	}
}
