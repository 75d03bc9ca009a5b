package api

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

// TestInlineImages: an image's base64, decoded straight from the body's
// bytes or, with JSON escapes, through a string, comes out the same in
// every spelling the decoders accept, and bad data is refused with the
// same message either way.
func TestInlineImages(t *testing.T) {
	t.Parallel()
	raw := []byte{0xfb, 0xff, 0xfe, 0x00, 0x01, 0x3f, 0xbf}
	std := base64.StdEncoding.EncodeToString(raw) // has '+' and '/'
	spellings := map[string]string{
		"standard":            std,
		"unpadded":            base64.RawStdEncoding.EncodeToString(raw),
		"URL-safe":            base64.URLEncoding.EncodeToString(raw),
		"URL-safe unpadded":   base64.RawURLEncoding.EncodeToString(raw),
		"spaces around":       "  " + std + " ",
		"escaped slash":       strings.ReplaceAll(std, "/", `\/`),
		"unicode escape":      strings.Replace(std, "+", `\u002b`, 1),
		"escaped line breaks": std[:4] + `\r\n` + std[4:],
	}
	for name, data := range spellings {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, c := range []struct {
				d    dialect
				body string
			}{
				{openaiDialect{}, `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + data + `"}}]}]}`},
				{anthropicDialect{}, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + data + `"}}]}]}`},
			} {
				got, err := c.d.decode([]byte(c.body))
				if err != nil {
					t.Fatalf("%T: %v", c.d, err)
				}
				want := []sdk.Part{sdk.Image{MediaType: "image/png", Data: raw}}
				if diff := cmp.Diff(want, got.req.Messages[0].Parts); diff != "" {
					t.Errorf("%T (-want +got):\n%s", c.d, diff)
				}
			}
		})
	}
	for _, bad := range []string{"!!", `ab\/!`, "a"} {
		for _, c := range []struct {
			d          dialect
			body, want string
		}{
			{openaiDialect{}, `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + bad + `"}}]}]}`,
				"messages[0].content[0].image_url.url: the image data is not valid base64"},
			{anthropicDialect{}, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + bad + `"}}]}]}`,
				"messages[0].content[0].source.data: the image data is not valid base64"},
		} {
			if _, err := c.d.decode([]byte(c.body)); err == nil || err.Error() != c.want {
				t.Errorf("%T, data %q: error %v, want %q", c.d, bad, err, c.want)
			}
		}
	}
	// A data URL that is no base64 one, and a remote URL, take the string path.
	if _, err := (openaiDialect{}).decode([]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png,abc"}}]}]}`)); err == nil || !strings.Contains(err.Error(), "data:<media type>;base64,<data>") {
		t.Errorf("a data URL without ;base64: %v", err)
	}
	c, err := (openaiDialect{}).decode([]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https:\/\/example.com\/cat.png"}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]sdk.Part{sdk.Image{URL: "https://example.com/cat.png"}}, c.req.Messages[0].Parts); diff != "" {
		t.Errorf("remote image (-want +got):\n%s", diff)
	}
}
