package archtest

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// sdkPackages are the packages a plugin author reads with go doc.
var sdkPackages = []string{"sdk", "sdk/serve", "sdk/sse", "sdk/sdktest"}

// TestSDKIsDocumented holds every exported name of the SDK packages to a doc
// comment, so `go doc github.com/axonhq/axon/sdk.X` always says what X is.
// Grouped constants and variables may share their group's comment; a method
// needs its own.
func TestSDKIsDocumented(t *testing.T) {
	t.Parallel()
	for _, rel := range sdkPackages {
		dir := filepath.Join("../../..", rel)
		fset := token.NewFileSet()
		var files []*ast.File
		entries, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(entries) == 0 {
			t.Fatalf("%s: no Go files (%v)", rel, err)
		}
		for _, name := range entries {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		p, err := doc.NewFromFiles(fset, files, module+"/"+rel)
		if err != nil {
			t.Fatal(err)
		}
		if p.Doc == "" {
			t.Errorf("%s: no package comment", rel)
		}
		missing := func(kind, name, text string) {
			if strings.TrimSpace(text) == "" {
				t.Errorf("%s: %s %s has no doc comment", rel, kind, name)
			}
		}
		values := func(vs []*doc.Value, kind string) {
			for _, v := range vs {
				if v.Doc != "" {
					continue
				}
				for _, n := range v.Names {
					if ast.IsExported(n) && !specDocumented(v.Decl, n) {
						missing(kind, n, "")
					}
				}
			}
		}
		values(p.Consts, "const")
		values(p.Vars, "var")
		for _, f := range p.Funcs {
			missing("func", f.Name, f.Doc)
		}
		for _, ty := range p.Types {
			missing("type", ty.Name, ty.Doc)
			values(ty.Consts, "const")
			values(ty.Vars, "var")
			for _, f := range ty.Funcs {
				missing("func", f.Name, f.Doc)
			}
			for _, m := range ty.Methods {
				if ast.IsExported(m.Name) {
					missing("method", ty.Name+"."+m.Name, m.Doc)
				}
			}
		}
	}
}

// specDocumented reports whether the spec that declares name in a grouped
// declaration carries its own comment (a doc comment above it or a line
// comment beside it).
func specDocumented(decl *ast.GenDecl, name string) bool {
	for _, s := range decl.Specs {
		vs, ok := s.(*ast.ValueSpec)
		if !ok {
			continue
		}
		for _, n := range vs.Names {
			if n.Name == name {
				return vs.Doc.Text() != "" || vs.Comment.Text() != ""
			}
		}
	}
	return false
}
