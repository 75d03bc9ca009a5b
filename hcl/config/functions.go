package config

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// evalContext is the evaluation context of one configuration file. It has
// two functions and no variables:
//
//	env("NAME")  → "env:NAME"
//	file("PATH") → "file:/abs/PATH" (~ expanded, relative to the file's dir)
//
// Neither reads anything: they build credential references that the host
// resolves lazily. They validate with credref, as the credential attribute
// is parsed, so a reference they return always parses. dir is the configuration file's directory ("" for
// configurations that are not files); home expands "~".
func evalContext(dir, home string) *hcl.EvalContext {
	return &hcl.EvalContext{Functions: map[string]function.Function{
		"env":  envFunc,
		"file": fileFunc(dir, home),
	}}
}

var envFunc = function.New(&function.Spec{
	Description: "A credential reference to the environment variable NAME. The variable is not read.",
	Params:      []function.Parameter{{Name: "name", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		name := args[0].AsString()
		ref, err := credref.Env(name)
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "%q is not an environment variable name (letters, digits and _)", name)
		}
		return cty.StringVal(ref.String()), nil
	},
})

func fileFunc(dir, home string) function.Function {
	return function.New(&function.Spec{
		Description: "A credential reference to the file at PATH. The file is not read.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p, err := expandPath(args[0].AsString(), dir, home)
			if err != nil {
				return cty.NilVal, function.NewArgError(0, err)
			}
			ref, err := credref.File(p)
			if err != nil {
				return cty.NilVal, function.NewArgError(0, err)
			}
			return cty.StringVal(ref.String()), nil
		},
	})
}

// expandPath expands a leading "~" with home and makes a relative path
// relative to dir (left relative when dir is "").
func expandPath(p, dir, home string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("path is empty")
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return "", errors.New("cannot expand ~: the home directory is unknown")
		}
		p = filepath.Join(home, p[1:])
	case strings.HasPrefix(p, "~"):
		return "", errors.New("~user paths are not supported; write the full path")
	case !filepath.IsAbs(p) && dir != "":
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p), nil
}
