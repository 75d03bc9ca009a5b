package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/hcl/edit"
	"github.com/axonhq/axon/host/panel"
)

// knobs is the panel's Editor: hcl/edit's comment-preserving edits, the
// loader axon check uses as their judge, and an atomic write with a
// timestamped backup. It writes nothing the loader refuses.
type knobs struct{ opts config.Options }

var _ panel.Editor = knobs{}

func (k knobs) Edit(_ context.Context, path string, src []byte, reqs []panel.EditRequest) (panel.EditOutcome, error) {
	edits := make([]edit.Edit, len(reqs))
	for i, r := range reqs {
		edits[i] = edit.Edit{Block: r.Block, Name: r.Name, Field: r.Field, Value: r.Value}
	}
	res, err := edit.Apply(path, src, edits)
	var ee *edit.EditError
	switch {
	case errors.As(err, &ee):
		r := reqs[ee.Index]
		return panel.EditOutcome{Diagnostics: []panel.Diagnostic{{Block: r.Block, Name: r.Name, Field: r.Field, Summary: "Cannot write this value", Detail: ee.Msg}}}, nil
	case err != nil:
		return panel.EditOutcome{}, err
	}
	diags := edit.Validate(path, res.Src, k.opts, res.Ranges)
	if edit.HasErrors(diags) {
		var out []panel.Diagnostic
		for _, d := range diags {
			if d.Severity != "error" {
				continue
			}
			pd := panel.Diagnostic{Summary: d.Summary, Detail: d.Detail}
			if d.Edit >= 0 && d.Edit < len(reqs) {
				pd.Block, pd.Name, pd.Field = reqs[d.Edit].Block, reqs[d.Edit].Name, reqs[d.Edit].Field
			}
			out = append(out, pd)
		}
		return panel.EditOutcome{Diagnostics: out}, nil
	}
	backup, err := edit.WriteFile(path, res.Src, time.Now())
	if err != nil {
		return panel.EditOutcome{Backup: backup}, err
	}
	return panel.EditOutcome{Backup: backup}, nil
}
