package broker

import (
	"io"
	"net/http"
	"strconv"
)

func strconvItoa(n int) string { return strconv.Itoa(n) }

func io_Copy(w io.Writer, resp *http.Response) (int64, error) { return io.Copy(w, resp.Body) }
