package supervisor

import (
	"io"
	"os"
)

// childBinDirEnv tells a re-executed test binary where the plugins are.
const childBinDirEnv = "AXON_TEST_UNPRIVILEGED_BINDIR"

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
