package session

import (
	"bytes"
	"testing"
)

// The in-memory tail keeps the newest records within its byte budget, and
// always the newest batch; older records are read from the WAL.
func TestLanesKeepTheNewestRecords(t *testing.T) {
	t.Parallel()
	l := newLanes(0)
	l.budget = 10
	rec := func(n int) []byte { return bytes.Repeat([]byte{'x'}, n) }
	l.advance(1, [][]byte{rec(4), rec(4)}) // seqs 1, 2: 8 bytes
	l.advance(3, [][]byte{rec(4)})         // 12 bytes: 1 goes
	l.advance(4, [][]byte{rec(20)})        // a batch over budget: kept alone
	for _, c := range []struct {
		from   uint64
		want   []uint64
		inMemo bool
	}{
		{1, nil, false}, {3, nil, false}, {4, []uint64{4}, true}, {5, nil, true},
	} {
		got, ok := l.since(c.from)
		var seqs []uint64
		for _, r := range got {
			seqs = append(seqs, r.seq)
		}
		if ok != c.inMemo || len(seqs) != len(c.want) || (len(seqs) > 0 && seqs[0] != c.want[0]) {
			t.Errorf("since(%d) = %v, %v; want %v, %v", c.from, seqs, ok, c.want, c.inMemo)
		}
	}
	if last, _ := l.position(); last != 4 {
		t.Errorf("last %d, want 4", last)
	}
}
