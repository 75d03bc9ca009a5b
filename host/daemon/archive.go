package daemon

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/session"
)

// archiveEvery is how often axon serve runs the archive pass when the
// configuration has axon { archive { after = … } }; it also runs once at
// start.
const archiveEvery = time.Hour

// archiveBatch bounds one container of the daemon's passes: the pass holds
// the writer lease of every log of the container it is writing, and a
// request for one of those sessions meanwhile is refused as locked.
const archiveBatch = 64

// archiver runs the scheduled archive pass over the daemon's sessions.
// Sessions the daemon is using hold their writer lease, and a session with
// an open run has its index entry, so neither is archived underneath it.
type archiver struct {
	after    func() time.Duration // the current configuration's archive.after; 0: off
	sessions *session.Manager
	logger   hclog.Logger
	every    time.Duration

	stop context.CancelFunc
	wg   sync.WaitGroup
}

// startArchiver starts the schedule. A configuration without the block
// (now or after a reload) runs no pass.
func (b *Daemon) startArchiver(sessions *session.Manager, logger hclog.Logger) *archiver {
	a := &archiver{
		after:    func() time.Duration { return b.current().cfg.Axon.Archive.After },
		sessions: sessions, logger: logger.Named("archive"), every: archiveEvery,
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.stop = cancel
	a.wg.Go(func() { a.loop(ctx) })
	return a
}

func (a *archiver) loop(ctx context.Context) {
	t := time.NewTicker(a.every)
	defer t.Stop()
	for {
		a.pass(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// pass archives the logs last written at least after ago.
func (a *archiver) pass(ctx context.Context) {
	after := a.after()
	if after <= 0 {
		return
	}
	res, err := a.sessions.Archive(ctx, session.ArchiveOptions{OlderThan: after, MaxSessions: archiveBatch})
	if err != nil && ctx.Err() == nil {
		a.logger.Error("archive pass failed (the sessions it did not reach stay live)", "error", err)
	}
	kept := 0
	for _, s := range res.Skipped {
		if !s.Recent {
			kept++
			a.logger.Debug("session not archived", "session", s.Session, "reason", s.Reason)
		}
	}
	if len(res.Archived) > 0 || len(res.Superseded) > 0 || len(res.Removed) > 0 {
		a.logger.Info("archived old session logs", "sessions", len(res.Archived), "containers", len(res.Containers),
			"superseded", len(res.Superseded), "removed_containers", len(res.Removed), "kept_for_cause", kept)
	}
}

// close stops the schedule, cancelling a pass in progress (a pass stops
// between sessions; what it did is durable), and waits for it.
func (a *archiver) close() {
	a.stop()
	a.wg.Wait()
}
