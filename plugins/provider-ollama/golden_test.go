package main

import (
	"flag"
	"path/filepath"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden from the current output")

// golden is the path of the golden file called name.
func golden(name string) string { return filepath.Join("testdata", "golden", name+".json") }
