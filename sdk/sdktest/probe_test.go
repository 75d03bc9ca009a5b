package sdktest

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// probe is a testing.TB that records failures instead of reporting them,
// to test the kit's own checks.
type probe struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (p *probe) Helper() {}

func (p *probe) Errorf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.errs = append(p.errs, fmt.Sprintf(format, args...))
}

func (p *probe) Error(args ...any) { p.Errorf("%s", fmt.Sprint(args...)) }

func (p *probe) Fatalf(format string, args ...any) {
	p.Errorf(format, args...)
	runtime.Goexit()
}

func (p *probe) Fatal(args ...any) { p.Fatalf("%s", fmt.Sprint(args...)) }

// failures runs check against a probe and returns what it reported.
func failures(t *testing.T, check func(tb testing.TB)) []string {
	t.Helper()
	p := &probe{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(p)
	}()
	<-done
	return p.errs
}
