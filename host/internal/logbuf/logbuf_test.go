package logbuf

import (
	"testing"
	"time"
)

func TestWaitForWakesOnWrite(t *testing.T) {
	t.Parallel()
	var b Buffer
	done := make(chan bool)
	go func() { done <- b.WaitFor("plugin process lost", time.Minute) }()
	b.Write([]byte("[INFO] unrelated\n"))
	b.Write([]byte("[WARN] plugin process lost; will restart\n"))
	if !<-done {
		t.Fatal("WaitFor did not see the line")
	}
	if b.WaitFor("never written", time.Millisecond) {
		t.Error("WaitFor reported a line that was never written")
	}
}
