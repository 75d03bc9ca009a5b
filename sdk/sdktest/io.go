package sdktest

import (
	"bytes"
	"io"
)

func readAll(r io.Reader) ([]byte, error) { return io.ReadAll(r) }

func bytesReader(b []byte) io.Reader {
	if b == nil {
		return nil
	}
	return bytes.NewReader(b)
}
