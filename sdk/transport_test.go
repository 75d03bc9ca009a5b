package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sse"
)

// summary is what a caller acts on in an error.
type summary struct {
	Class   sdk.Class
	Code    string
	Message string
}

func summarize(err error) summary {
	var e *sdk.Error
	if errors.As(err, &e) {
		return summary{e.Class, e.Code, e.Message}
	}
	return summary{Message: fmt.Sprint(err)}
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestTransportError(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want summary
	}{
		{"a broken connection", context.Background(), errors.New(`Post "https://api.example.test": dial tcp: refused`),
			summary{sdk.ClassTransient, "", "p: request failed before a response"}},
		{"the egress's verdict passes", context.Background(), fmt.Errorf("egress: %w", sdk.ErrTimeout), summary{sdk.ClassTransient, "timeout", ""}},
		{"the caller's cancellation stays itself", cancelled(), errors.New("whatever"), summary{Message: "context canceled"}},
	} {
		if diff := cmp.Diff(c.want, summarize(sdk.TransportError(c.ctx, "p", c.err))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestReadError(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want summary
	}{
		{"a cut body", context.Background(), io.ErrUnexpectedEOF, summary{sdk.ClassTransient, "cut_stream", "p: reading the reply failed"}},
		{"the egress's limit passes", context.Background(), fmt.Errorf("read: %w", sdk.ErrEgressLimit), summary{sdk.ClassPermanent, "egress_limit", ""}},
		{"a decoder's limit", context.Background(), sse.ErrEventTooLarge, summary{sdk.ClassPermanent, "event_too_large", "p: stream event too large"}},
		{"the caller's cancellation stays itself", cancelled(), sse.ErrEventTooLarge, summary{Message: "context canceled"}},
	} {
		if diff := cmp.Diff(c.want, summarize(sdk.ReadError(c.ctx, "p", c.err, sse.ErrEventTooLarge))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestDecodeError(t *testing.T) {
	t.Parallel()
	decode := func(body string) error {
		var v struct{ N int }
		return json.NewDecoder(strings.NewReader(body)).Decode(&v)
	}
	for _, c := range []struct {
		name string
		err  error
		want summary
	}{
		{"cut", decode(`{"N":`), summary{sdk.ClassTransient, "cut_stream", "p: response body ended early"}},
		{"empty", decode(``), summary{sdk.ClassTransient, "cut_stream", "p: response body ended early"}},
		{"not JSON", decode(`<html>`), summary{sdk.ClassPermanent, "", "p: response body is not a reply"}},
		{"the wrong shape", decode(`{"N":"x"}`), summary{sdk.ClassPermanent, "", "p: response body is not a reply"}},
		{"the body broke", errors.New("connection reset"), summary{sdk.ClassTransient, "cut_stream", "p: reading the reply failed"}},
	} {
		if diff := cmp.Diff(c.want, summarize(sdk.DecodeError(context.Background(), "p", "a reply", c.err))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestCodes: an error made from a code sentinel matches it and keeps its
// class.
func TestCodes(t *testing.T) {
	t.Parallel()
	for _, sentinel := range []*sdk.Error{sdk.ErrNoText, sdk.ErrCutStream, sdk.ErrEventTooLarge, sdk.ErrMalformedToolCall} {
		err := sentinel.Newf("p: %s", "detail")
		if !errors.Is(err, sentinel) || err.Class != sentinel.Class || err.Message != "p: detail" {
			t.Errorf("%s: got %+v", sentinel.Code, err)
		}
		if errors.Is(err, sdk.ErrTimeout) {
			t.Errorf("%s matches another code", sentinel.Code)
		}
	}
}
