package media

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/axonhq/axon/sdk"
)

// CodeFetch is the sdk.Error code of a hop that failed because a part
// given by URL could not be fetched within the limits: permanent, so the
// chain falls back to a hop that may take the URL itself.
const CodeFetch = "media_fetch"

// Session is one client request's fetches: each URL is fetched at most
// once however many hops and retries need it (a failure is remembered
// too), and all of them together stay within the request limit. It is
// safe for concurrent use.
type Session struct {
	f       *Fetcher
	ctx     context.Context // the client request's: its fetches end with it
	mu      sync.Mutex
	used    int64
	entries map[entryKey]*entry
}

type entryKey struct {
	url  string
	kind Kind
}

type entry struct {
	done chan struct{}
	got  Fetched
	err  error
}

// NewSession starts the fetches of one client request, whose context ctx
// is: its fetches end when it does (and each within the fetch timeout).
func (f *Fetcher) NewSession(ctx context.Context) *Session {
	return &Session{f: f, ctx: ctx, entries: map[entryKey]*entry{}}
}

// HasURLParts reports whether req holds an image or document given only
// by URL, in a message or a tool result: only then is there anything to
// fetch.
func HasURLParts(req *sdk.Request) bool {
	for _, m := range req.Messages {
		if hasURL(m.Parts) {
			return true
		}
	}
	return false
}

func hasURL(ps []sdk.Part) bool {
	for _, p := range ps {
		switch v := p.(type) {
		case sdk.Image:
			if v.URL != "" && len(v.Data) == 0 {
				return true
			}
		case *sdk.Image:
			if v != nil && v.URL != "" && len(v.Data) == 0 {
				return true
			}
		case sdk.Document:
			if v.URL != "" && len(v.Data) == 0 {
				return true
			}
		case *sdk.Document:
			if v != nil && v.URL != "" && len(v.Data) == 0 {
				return true
			}
		case sdk.ToolResult:
			if hasURL(v.Content) {
				return true
			}
		case *sdk.ToolResult:
			if v != nil && hasURL(v.Content) {
				return true
			}
		}
	}
	return false
}

// Inline replaces, in req, every image and document given only by URL
// with an inline copy: Data filled, URL cleared, MediaType the one served
// when the part declares none. req must be the hop's own copy (the chain
// clones it per attempt). The first part that cannot be fetched ends it
// with a permanent sdk.Error (CodeFetch) naming the part, its URL without
// the query, and why.
func (s *Session) Inline(ctx context.Context, req *sdk.Request) error {
	for i := range req.Messages {
		if err := s.parts(ctx, req.Messages[i].Parts, fmt.Sprintf("messages[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) parts(ctx context.Context, ps []sdk.Part, where string) error {
	for j, p := range ps {
		at := fmt.Sprintf("%s.parts[%d]", where, j)
		switch v := p.(type) {
		case sdk.Image:
			if err := s.image(ctx, &v, at); err != nil {
				return err
			}
			ps[j] = v
		case *sdk.Image:
			if v == nil {
				continue
			}
			c := *v
			if err := s.image(ctx, &c, at); err != nil {
				return err
			}
			ps[j] = c
		case sdk.Document:
			if err := s.document(ctx, &v, at); err != nil {
				return err
			}
			ps[j] = v
		case *sdk.Document:
			if v == nil {
				continue
			}
			c := *v
			if err := s.document(ctx, &c, at); err != nil {
				return err
			}
			ps[j] = c
		case sdk.ToolResult:
			if err := s.parts(ctx, v.Content, at+".content"); err != nil {
				return err
			}
		case *sdk.ToolResult:
			if v != nil {
				if err := s.parts(ctx, v.Content, at+".content"); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (s *Session) image(ctx context.Context, p *sdk.Image, at string) error {
	if p.URL == "" || len(p.Data) > 0 {
		return nil
	}
	got, err := s.fetch(ctx, p.URL, KindImage)
	if err != nil {
		return fetchError(ctx, at, KindImage, p.URL, err)
	}
	// The type served describes the bytes; a declared one may not.
	p.MediaType, p.Data, p.URL = got.MediaType, got.Data, ""
	return nil
}

func (s *Session) document(ctx context.Context, p *sdk.Document, at string) error {
	if p.URL == "" || len(p.Data) > 0 {
		return nil
	}
	got, err := s.fetch(ctx, p.URL, KindDocument)
	if err == nil && p.MediaType != "" && p.MediaType != got.MediaType {
		err = fmt.Errorf("it is declared %s but served as %s", p.MediaType, got.MediaType)
	}
	if err != nil {
		return fetchError(ctx, at, KindDocument, p.URL, err)
	}
	p.MediaType, p.Data, p.URL = got.MediaType, got.Data, ""
	return nil
}

// fetchError is the hop's failure over one part; the caller's own end
// (its context) is returned as it is, for the chain to read.
func fetchError(ctx context.Context, at string, kind Kind, url string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &sdk.Error{
		Class: sdk.ClassPermanent, Code: CodeFetch,
		Message: fmt.Sprintf("%s: the %s at %s could not be fetched for a provider that takes only inline data: %v", at, kind, Redact(url), err),
	}
}

// fetch returns url's bytes, fetching them on the first call only. The
// fetch belongs to the session, not to the hop that asked first: it runs
// on the session's context, so a hop given up on (its first-token timer,
// a retry) leaves it running for the next attempt, which waits for it.
// The bytes are shared: a caller must not change them (the plugin
// boundary copies them anyway).
func (s *Session) fetch(ctx context.Context, url string, kind Kind) (Fetched, error) {
	k := entryKey{url: url, kind: kind}
	s.mu.Lock()
	e, ok := s.entries[k]
	if !ok {
		e = &entry{done: make(chan struct{})}
		s.entries[k] = e
		go s.run(e, url, kind)
	}
	s.mu.Unlock()
	select {
	case <-e.done:
		return e.got, e.err
	case <-ctx.Done():
		return Fetched{}, ctx.Err()
	}
}

// run fetches one entry within what is left of the request's limit.
func (s *Session) run(e *entry, url string, kind Kind) {
	defer close(e.done)
	s.mu.Lock()
	left := s.f.cfg.MaxRequestBytes - s.used
	s.mu.Unlock()
	if left <= 0 {
		e.err = fmt.Errorf("the request's parts already reach the %s limit per request", Size(s.f.cfg.MaxRequestBytes))
		return
	}
	e.got, e.err = s.f.Fetch(s.ctx, url, kind, left)
	var le *limitError
	if errors.As(e.err, &le) {
		e.err = fmt.Errorf("it is larger than the %s limit per part (axon { media { max_part_bytes } })", Size(le.limit))
		if le.limit < s.f.cfg.MaxPartBytes {
			e.err = s.overRequest()
		}
	}
	if e.err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used+int64(len(e.got.Data)) > s.f.cfg.MaxRequestBytes { // a concurrent fetch took the room
		e.got, e.err = Fetched{}, s.overRequest()
		return
	}
	s.used += int64(len(e.got.Data))
}

func (s *Session) overRequest() error {
	return fmt.Errorf("with the parts before it, it is larger than the %s limit per request (axon { media { max_request_bytes } })", Size(s.f.cfg.MaxRequestBytes))
}
