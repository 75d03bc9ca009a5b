package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/axonhq/axon/sdk"
)

const (
	toolFetch    = "fetch"
	maxRedirects = 5
	accept       = "text/html, application/xhtml+xml, text/plain;q=0.9, application/json;q=0.9, */*;q=0.5"
	excerptBytes = 512 // of an error page, shown with a non-2xx status
)

func fetchSpec() sdk.ToolSpec {
	return sdk.ToolSpec{
		Name: toolFetch,
		Description: "HTTP GET a web page or API URL and return its content as text: HTML reduced to headings, " +
			"paragraphs, list items and link text; plain text and JSON unchanged; long responses cut. " +
			"Only the origins this tool is configured for can be fetched.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"url":{"type":"string","description":"absolute http or https URL"}` +
			`},"required":["url"],"additionalProperties":false}`),
		SideEffect: sdk.SideEffectIdempotent,
	}
}

type fetchInput struct {
	URL string `json:"url"`
}

// refusal is a request the plugin will not make; its text is for the model.
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

func (f *fetcher) callFetch(ctx context.Context, inv sdk.Invocation) (sdk.ToolResult, error) {
	var in fetchInput
	if err := inv.Decode(&in); err != nil {
		return inv.Errorf("%v", err), nil
	}
	u, err := f.target(in.URL)
	if err != nil {
		return inv.Errorf("%v", err), nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return inv.Errorf("cannot request %s: %v", u, err), nil
	}
	req.Header.Set("User-Agent", f.set.userAgent)
	req.Header.Set("Accept", accept)
	resp, err := f.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return sdk.ToolResult{}, fmt.Errorf("fetch %s: %w", u, ctx.Err())
		}
		return inv.Errorf("%s", explain(u, err)), nil
	}
	defer resp.Body.Close()
	body, truncated, err := readLimited(resp.Body, f.set.maxBytes)
	if err != nil {
		if ctx.Err() != nil {
			return sdk.ToolResult{}, fmt.Errorf("fetch %s: read: %w", u, ctx.Err())
		}
		return inv.Errorf("the response from %s broke off: %v", u, err), nil
	}
	page, renderErr := render(resp.Header.Get("Content-Type"), body, truncated)

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := fmt.Sprintf("HTTP %d %s from %s", resp.StatusCode, http.StatusText(resp.StatusCode), resp.Request.URL)
		if renderErr == nil && page.body != "" {
			msg += "\n\n" + cutText(page.body, excerptBytes)
		}
		return inv.Errorf("%s", msg), nil
	}
	if renderErr != nil {
		return inv.Errorf("%s: %v", resp.Request.URL, renderErr), nil
	}
	return inv.Result(page.text(u, resp.Request.URL, f.set.maxBytes)), nil
}

// target validates the URL the model asked for against the allow list.
func (f *fetcher) target(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case raw == "":
		return nil, &refusal{"url is required"}
	case err != nil || !u.IsAbs():
		return nil, &refusal{fmt.Sprintf("%q is not an absolute URL", raw)}
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, &refusal{fmt.Sprintf("%q: only http and https URLs can be fetched", raw)}
	case u.Host == "":
		return nil, &refusal{fmt.Sprintf("%q has no host", raw)}
	case u.User != nil:
		return nil, &refusal{"URLs with a user name or password are refused"}
	case !f.set.allow.allows(u):
		return nil, &refusal{fmt.Sprintf("%s is not in this tool's allow list (%s)", u.Scheme+"://"+u.Host, f.set.allow)}
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// checkRedirect holds every hop of a redirect to the same rules as the
// first request; the host's egress would refuse a hop outside its own list
// anyway, but with a less helpful message.
func (f *fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return &refusal{fmt.Sprintf("stopped after %d redirects", maxRedirects)}
	}
	if req.URL.User != nil || !f.set.allow.allows(req.URL) {
		return &refusal{fmt.Sprintf("%s redirects to %s, which is not in this tool's allow list (%s)",
			via[0].URL, req.URL.Redacted(), f.set.allow)}
	}
	return nil
}

// explain turns a transport failure into a short message for the model.
func explain(u *url.URL, err error) string {
	var r *refusal
	var se *sdk.Error
	switch {
	case errors.As(err, &r):
		return r.msg
	case errors.Is(err, sdk.ErrEgressDenied):
		return fmt.Sprintf("the host refused to fetch %s: its origin is not in the tool block's egress allow list", u)
	case errors.Is(err, sdk.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("timed out fetching %s", u)
	case errors.As(err, &se):
		return fmt.Sprintf("fetching %s failed: %s", u, se.Error())
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Sprintf("fetching %s failed: %v", u, err)
}

// readLimited reads at most limit bytes of r and says whether there was
// more. A host-side size limit (sdk.ErrEgressLimit) that fires first also
// counts as truncation: what arrived is still worth showing.
func readLimited(r io.Reader, limit int) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	switch {
	case errors.Is(err, sdk.ErrEgressLimit):
		return b, true, nil
	case err != nil:
		return nil, false, err
	case len(b) > limit:
		return b[:limit], true, nil
	}
	return b, false, nil
}
