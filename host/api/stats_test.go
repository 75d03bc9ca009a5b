package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	usagestats "github.com/axonhq/axon/host/usage"
)

// statsFake is a backend that records usage: it answers with a report of
// the query it was asked.
type statsFake struct {
	fakeBackend
	err error
	got usagestats.Query
}

func (s *statsFake) Stats(_ context.Context, q usagestats.Query) (*usagestats.Report, error) {
	s.got = q
	if s.err != nil {
		return nil, s.err
	}
	return &usagestats.Report{Since: q.Since, Until: q.Until, By: q.By, Rows: []usagestats.Row{{Key: "glm", Requests: 3}}, Total: usagestats.Row{Requests: 3}}, nil
}

func TestStatsRoute(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		backend Backend
		query   string
		status  int
		body    string // a substring
		since   time.Duration
		by      usagestats.By
	}{
		{name: "defaults", backend: &statsFake{}, status: 200, body: `"rows":[{"key":"glm","requests":3,`, since: 7 * 24 * time.Hour, by: usagestats.ByProvider},
		{name: "since and by", backend: &statsFake{}, query: "?since=36h&by=day", status: 200, body: `"by":"day"`, since: 36 * time.Hour, by: usagestats.ByDay},
		{name: "a bad since", backend: &statsFake{}, query: "?since=yesterday", status: 400, body: `"param":"since"`},
		{name: "a bad by", backend: &statsFake{}, query: "?by=model", status: 400, body: `cannot group by \"model\"`},
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
			body := readAll(t, resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(body, tc.body) {
				t.Fatalf("%d %s, want %d with %s", resp.StatusCode, body, tc.status, tc.body)
			}
			if sf, ok := tc.backend.(*statsFake); ok && tc.status == http.StatusOK {
				if got := testTime.Sub(sf.got.Since); got != tc.since || sf.got.By != tc.by || !sf.got.Until.After(testTime) {
					t.Errorf("asked since %v back, by %q, until %v; want %v, %q, after %v", got, sf.got.By, sf.got.Until, tc.since, tc.by, testTime)
				}
			}
		})
	}
}
