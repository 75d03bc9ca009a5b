package config

import (
	"io"

	"github.com/hashicorp/hcl/v2"
)

// WriteDiagnostics prints diags as HCL does: severity, summary, the file
// and line, the source line with the offending part marked, and the detail.
// files is Loader.Files (plus LoadLock's files for lock diagnostics).
func WriteDiagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics) error {
	return hcl.NewDiagnosticTextWriter(w, files, 0, false).WriteDiagnostics(diags)
}
