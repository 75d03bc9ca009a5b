package edit

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// Edit is one change to one field, as the panel sends it.
type Edit struct {
	Block string `json:"block"`          // "provider", "chain" or "billing"
	Name  string `json:"name,omitempty"` // provider or chain name; "" for billing
	// Field is, for a provider: enabled, tier, good_at, budget,
	// pricing.input, pricing.output, pricing.cache_read, pricing.cache_write;
	// for a chain: providers, strategy, classifier; for billing: enabled.
	Field string `json:"field"`
	// Value is the field's new value in JSON; null removes the attribute
	// or block.
	Value json.RawMessage `json:"value"`
}

// EditError is an edit Apply cannot make: an unknown block or field, a
// provider or chain the file does not define, or a value of the wrong JSON
// type. Nothing is applied when Apply returns one.
type EditError struct {
	Index int // position in the edits given to Apply
	Edit  Edit
	Msg   string
}

func (e *EditError) Error() string {
	return fmt.Sprintf("edit %d (%s): %s", e.Index, e.Edit.label(), e.Msg)
}

func (e Edit) label() string {
	if e.Name == "" {
		return e.Block + " " + e.Field
	}
	return fmt.Sprintf("%s %q %s", e.Block, e.Name, e.Field)
}

// Result is the source after every edit.
type Result struct {
	Src []byte
	// Ranges[i] is, in Src, what edits[i] wrote: the attribute, or for
	// budget and classifier the block. For an edit that removed something
	// it is the header of the innermost block still holding the place (so
	// that "provider is never routed" after removing enabled = true lands
	// on it), or a zero range when no such block is left.
	Ranges []hcl.Range
}

// Apply makes edits, in order, to src, the text of the file filename, and
// returns the new text. Bytes no edit touches are kept as they were, and so
// are the comments beside and above a changed attribute. The result is not
// checked against the schema: that is Validate's job.
func Apply(filename string, src []byte, edits []Edit) (*Result, error) {
	if err := roundTrips(filename, src); err != nil {
		return nil, err
	}
	places := make([]place, len(edits))
	for i, e := range edits {
		p, steps, err := plan(e)
		if err != nil {
			return nil, &EditError{Index: i, Edit: e, Msg: err.Error()}
		}
		for _, s := range steps {
			if src, err = run(filename, src, s); err != nil {
				return nil, &EditError{Index: i, Edit: e, Msg: err.Error()}
			}
		}
		places[i] = p
	}
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		// A bug here, not the user's: every token written came from hclwrite.
		return nil, fmt.Errorf("edits to %s produced text that does not parse: %w", filename, diags)
	}
	res := &Result{Src: src, Ranges: make([]hcl.Range, len(edits))}
	for i, p := range places {
		res.Ranges[i] = p.locate(f.Body.(*hclsyntax.Body), filename)
	}
	return res, nil
}

// roundTrips refuses a file hclwrite cannot give back byte for byte (tabs
// between tokens come back as spaces), since every line of it would change.
func roundTrips(filename string, src []byte) error {
	f, diags := hclwrite.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return fmt.Errorf("%s does not parse: %w", filename, diags)
	}
	if !bytes.Equal(f.BuildTokens(nil).Bytes(), src) {
		return fmt.Errorf("%s has tabs between tokens, which editing it would turn into spaces on every line; indent it with spaces first", filename)
	}
	return nil
}

// run applies one step to a fresh parse of src. A step that changed the
// tree in a way its next part cannot see (it rebuilt a body from tokens)
// asks to run again on the new text.
func run(filename string, src []byte, s step) ([]byte, error) {
	for range 8 {
		f, diags := hclwrite.ParseConfig(src, filename, hcl.InitialPos)
		if diags.HasErrors() {
			return nil, fmt.Errorf("the text so far does not parse: %w", diags)
		}
		again, err := s(f.Body())
		if err != nil {
			return nil, err
		}
		// BuildTokens, not Bytes: Bytes reformats the whole file.
		src = f.BuildTokens(nil).Bytes()
		if !again {
			return src, nil
		}
	}
	return nil, fmt.Errorf("internal error: the step did not settle")
}
