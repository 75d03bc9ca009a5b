//go:build !(failpoints && unix)

package session

// failpoints are compiled out of ordinary builds: see failpoint_on.go.
type failpoints struct{}

func newFailpoints(func(string) (string, bool)) *failpoints { return nil }

func (*failpoints) hit(string) {}
