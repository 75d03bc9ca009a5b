package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Selectors are CSS selectors; a step acts on the first element that
// matches.

// WaitVisible waits until an element matching sel is rendered visible.
func (b *Browser) WaitVisible(sel string) {
	b.t.Helper()
	b.step("waiting for "+sel+" to be visible", chromedp.WaitVisible(chromedp.CSS(sel)))
}

// WaitGone waits until no element matches sel.
func (b *Browser) WaitGone(sel string) {
	b.t.Helper()
	b.step("waiting for "+sel+" to be gone", chromedp.WaitNotPresent(chromedp.CSS(sel)))
}

// WaitText waits until the text of the element matching sel (its innerText,
// what a reader sees) contains want, and returns that text. The element may
// appear, and its text change, while it waits: live updates are what it is
// for.
func (b *Browser) WaitText(sel, want string) string {
	b.t.Helper()
	pred := fmt.Sprintf(`(() => { const el = document.querySelector(%s); return el && el.innerText.includes(%s) ? el.innerText : ""; })()`, quote(sel), quote(want))
	got, err := poll[string](b, pred)
	if err != nil {
		b.t.Fatalf("browser: waiting for %s to contain %q: %v; it shows %s", sel, want, b.explain(err), b.describe(sel))
	}
	return got
}

// poll evaluates pred in the page until it is truthy and returns its value,
// for up to the step timeout. A poll ends with the page it runs in, so one
// that a navigation or reload cut short starts again in the new page.
func poll[T any](b *Browser, pred string) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, b.timeout)
	defer cancel()
	for {
		left := time.Until(deadline(ctx))
		v, err := chromedp.Run(ctx, chromedp.Poll[T](pred,
			chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(left)))
		var thrown *chromedp.ExceptionError
		if err == nil || ctx.Err() != nil || errors.Is(err, chromedp.ErrPollingTimeout) || errors.As(err, &thrown) {
			return v, err
		}
		// The page went away under the poll: wait for the next one.
		if _, werr := chromedp.Run(ctx, chromedp.WaitReady(chromedp.CSS("body"))); werr != nil {
			return v, err
		}
	}
}

func deadline(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// describe says what a failed wait saw, in a fresh bounded call.
func (b *Browser) describe(sel string) string {
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	js := fmt.Sprintf(`(() => { const el = document.querySelector(%s); return el ? JSON.stringify(el.innerText) : "no such element"; })()`, quote(sel))
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return s
}

// Click waits for the element matching sel to be visible and clicks its
// centre with the mouse, as a user would (so an element covering it gets
// the click instead).
func (b *Browser) Click(sel string) {
	b.t.Helper()
	b.step("clicking "+sel, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// SetValue sets the value of the input or textarea matching sel and
// dispatches input and change, the events a page listens for when a user
// types.
func (b *Browser) SetValue(sel, value string) {
	b.t.Helper()
	b.onElement("setting "+sel+" to "+quote(value), sel, `(el, v) => {
		if (!("value" in el)) return "not an input";
		el.focus();
		el.value = v;
		el.dispatchEvent(new Event("input", {bubbles: true}));
		el.dispatchEvent(new Event("change", {bubbles: true}));
		return "";
	}`, value)
}

// Select chooses the option with value in the <select> matching sel, and
// dispatches input and change.
func (b *Browser) Select(sel, value string) {
	b.t.Helper()
	b.onElement("selecting "+quote(value)+" in "+sel, sel, `(el, v) => {
		if (el.tagName !== "SELECT") return "not a <select>";
		const opt = Array.from(el.options).find(o => o.value === v);
		if (!opt) return "no option with that value (has " + Array.from(el.options).map(o => JSON.stringify(o.value)).join(", ") + ")";
		el.value = v;
		el.dispatchEvent(new Event("input", {bubbles: true}));
		el.dispatchEvent(new Event("change", {bubbles: true}));
		return "";
	}`, value)
}

// SetChecked clicks the checkbox or radio matching sel if it is not already
// in the state checked, and fails if the click did not change it.
func (b *Browser) SetChecked(sel string, checked bool) {
	b.t.Helper()
	if b.checked(sel) == checked {
		return
	}
	b.Click(sel)
	if b.checked(sel) != checked {
		b.t.Fatalf("browser: clicking %s did not make it checked=%v", sel, checked)
	}
}

func (b *Browser) checked(sel string) bool {
	b.t.Helper()
	b.WaitVisible(sel)
	return Eval[bool](b, fmt.Sprintf(`!!document.querySelector(%s).checked`, quote(sel)))
}

// onElement waits for sel to be visible, then runs fn(el, arg) in the page;
// fn returns "" or why it could not act.
func (b *Browser) onElement(what, sel, fn string, arg any) {
	b.t.Helper()
	b.WaitVisible(sel)
	js := fmt.Sprintf(`(%s)(document.querySelector(%s), %s)`, fn, quote(sel), quote(arg))
	if why := Eval[string](b, js); why != "" {
		b.t.Fatalf("browser: %s: %s", what, why)
	}
}

// Text waits for an element to match sel and returns its innerText.
func (b *Browser) Text(sel string) string {
	b.t.Helper()
	b.step("waiting for "+sel, chromedp.WaitReady(chromedp.CSS(sel)))
	return Eval[string](b, fmt.Sprintf(`document.querySelector(%s).innerText`, quote(sel)))
}

// Attribute waits for an element to match sel and returns its attribute
// name, and whether it has it.
func (b *Browser) Attribute(sel, name string) (string, bool) {
	b.t.Helper()
	res, err := run(b, chromedp.AttributeValue(chromedp.CSS(sel), name))
	if err != nil {
		b.t.Fatalf("browser: reading %s's %s: %v", sel, name, b.explain(err))
	}
	return res.Value, res.Exists
}

// Eval evaluates the JavaScript expression in the page, awaits it if it is
// a promise, and decodes its JSON value into T. A thrown error fails the
// test.
func Eval[T any](b *Browser, js string) T {
	b.t.Helper()
	v, err := run(b, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("browser: evaluating %s: %v", js, b.explain(err))
	}
	return v
}

// ImageSize waits for the <img> matching sel to finish loading and returns
// its natural size in pixels; a broken image fails the test.
func (b *Browser) ImageSize(sel string) (w, h int) {
	b.t.Helper()
	b.step("waiting for "+sel, chromedp.WaitReady(chromedp.CSS(sel)))
	pred := fmt.Sprintf(`(() => { const el = document.querySelector(%s);
		if (!el || !el.complete) return null;
		return {w: el.naturalWidth, h: el.naturalHeight, src: el.currentSrc}; })()`, quote(sel))
	size, err := poll[struct {
		W   int    `json:"w"`
		H   int    `json:"h"`
		Src string `json:"src"`
	}](b, pred)
	if err != nil {
		b.t.Fatalf("browser: waiting for image %s to load: %v", sel, b.explain(err))
	}
	if size.W == 0 {
		b.t.Fatalf("browser: image %s (%s) is broken: it loaded with no pixels", sel, size.Src)
	}
	return size.W, size.H
}

// ImageBytes fetches, from the page, the file the <img> matching sel shows,
// with the page's origin and cookies, and returns its bytes.
func (b *Browser) ImageBytes(sel string) []byte {
	b.t.Helper()
	b.step("waiting for "+sel, chromedp.WaitReady(chromedp.CSS(sel)))
	js := fmt.Sprintf(`(async () => {
		const el = document.querySelector(%s);
		const src = el.currentSrc || el.src;
		const res = await fetch(src);
		if (!res.ok) throw new Error(src + ": HTTP " + res.status);
		const blob = await res.blob();
		return await new Promise((ok, fail) => {
			const r = new FileReader();
			r.onload = () => ok(r.result.slice(r.result.indexOf(",") + 1));
			r.onerror = () => fail(r.error);
			r.readAsDataURL(blob);
		});
	})()`, quote(sel))
	data, err := base64.StdEncoding.DecodeString(Eval[string](b, js))
	if err != nil {
		b.t.Fatalf("browser: image %s: decoding its bytes: %v", sel, err)
	}
	return data
}

// Screenshot saves the whole page, beyond the viewport, as a PNG at path
// (its directory is created), one pixel per CSS pixel.
func (b *Browser) Screenshot(path string) {
	b.t.Helper()
	png, err := run(b, func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		m, err := cdp.Call(ctx, t, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, err
		}
		if m.CSSContentSize == nil {
			return nil, errors.New("the page reported no content size")
		}
		res, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format:                page.CaptureScreenshotFormatPng,
			CaptureBeyondViewport: ptr(true),
			FromSurface:           ptr(true),
			Clip: &page.Viewport{
				Width:  math.Ceil(m.CSSContentSize.Width),
				Height: math.Ceil(m.CSSContentSize.Height),
				Scale:  1,
			},
		})
		if err != nil {
			return nil, err
		}
		return res.Data, nil
	})
	if err != nil {
		b.t.Fatalf("browser: screenshot: %v", b.explain(err))
	}
	b.save(path, png)
}

// ScreenshotElement saves the element matching sel, once visible, as a PNG
// at path (its directory is created).
func (b *Browser) ScreenshotElement(sel, path string) {
	b.t.Helper()
	png, err := run(b, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("browser: screenshot of %s: %v", sel, b.explain(err))
	}
	b.save(path, png)
}

func (b *Browser) save(path string, data []byte) {
	b.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.t.Fatalf("browser: screenshot: %v", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.t.Fatalf("browser: screenshot: %v", err)
	}
}

// quote makes v a JavaScript literal.
func quote(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		panic(err) // only strings and bools reach here
	}
	return string(out)
}

func ptr[T any](v T) *T { return &v }
