// Package facerender turns a semantic display frame (sdk.Frame: an expression, a
// text line and a small status map) into a 1-bit image of any size, for
// E-Ink panels, PNG files and terminals alike.
//
// Choices, and why:
//   - Faces are vector shapes (ellipses, arcs, thick segments) designed on a
//     100-unit grid. Each coordinate is rounded once to half pixels and every
//     inside-or-outside test is integer arithmetic, so a face is
//     bit-identical on amd64 and arm64 (no fused multiply-add can move a
//     pixel) and scales to any panel size without a glyph font (the Go fonts
//     lack the kaomoji glyphs pwnagotchi-style faces need; see
//     docs/eink.md#vector-faces).
//   - On a small face a detail whose strokes would touch is drawn thinner,
//     or left out when even one-pixel strokes would: the blush beside the
//     grin and the sleeping Zs would otherwise fuse into bars and blots.
//   - Text uses the Go fonts (golang.org/x/image/font/gofont, BSD-3, already
//     in the module: no font file to ship, no apt). Glyphs are rasterised
//     anti-aliased and thresholded at Ink (coverage above ~37%), which reads
//     better on 1 bit than the usual 50%. A glyph the font lacks (CJK, emoji)
//     shows as the font's notdef box.
//   - Text is laid out, never clipped: words wrap, an over-long word breaks
//     between runes, and text that needs more lines than fit ends with "…".
//
// This package draws pixels and nothing else: it never talks to hardware,
// never writes files, and holds no global mutable state.
package facerender
