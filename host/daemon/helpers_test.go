package daemon

import (
	"time"

	"github.com/axonhq/axon/host/supervisor"
	"io"
	"net/http"
	"strconv"
)

func strconvItoa(n int) string { return strconv.Itoa(n) }

func io_Copy(w io.Writer, resp *http.Response) (int64, error) { return io.Copy(w, resp.Body) }

func supervisorFast() supervisor.Options {
	return supervisor.Options{BackoffBase: time.Millisecond}
}
