// Package wal is the write-ahead log of one durable session: a single
// append-only file of opaque records, each numbered by a dense sequence
// number (wal_seq, starting at 1) and framed with its length and CRC32C
// checksums. The agent loop puts its JSON records in it (RunStarted,
// ModelStepFinished, ToolDispatchIntent, ToolResult, RunFinished,
// RunPaused); this package never looks inside them.
//
// # Durability contract
//
//   - Append writes all the records of one call with one write and makes them
//     durable with one fdatasync (F_FULLFSYNC on darwin) before it returns.
//     When Append returns nil, the records survive a crash of the process and,
//     on a disk that honours cache flushes, a power loss. The records of one
//     call are one batch, and a batch is atomic on recovery: all of it or none.
//   - When Append returns an error the outcome is unknown: the batch may or
//     may not be there after the next Open. The caller must not act on it
//     (must not dispatch the tool it announces). The WAL is then disabled for
//     good: every later call returns the same error (it matches ErrDisabled
//     and the I/O error). A failed fsync is never retried, because after a
//     failed writeback the kernel may have dropped the dirty pages and a
//     second fsync can succeed without persisting them ("fsyncgate"). The
//     failed batch is cut off the file at once (an ftruncate to the end of
//     the last durable batch, not synced): it was never acknowledged, and
//     bytes a failed fsync left in the page cache must not be read back as
//     written by an Open in this process. Close, then Open the file again
//     to recover; a crash before that Open leaves the batch's fate to
//     recovery, as for any unacknowledged batch.
//   - Open makes durable everything Replay will return (an fdatasync of the
//     file and an fsync of its directory) before it returns, so no record seen
//     by Replay can be taken away by a later crash, even one written by a
//     previous process that died before its own fsync.
//   - A new log is created under a temporary name, synced, renamed into place
//     and its directory synced, so the file either does not exist or has a
//     whole header with a fresh random lineage ID. A deleted and recreated log
//     therefore has a different Lineage, and frames of one lineage never
//     validate in another (the checksums are seeded with it).
//   - Only one writer holds a log: Open takes an exclusive flock on the
//     sibling file path+".lock" and fails with ErrLocked while another Open
//     (in this process or any other) holds it. The kernel drops the lock when
//     the holder dies, so a stale lease cannot exist. The state directory must
//     be on a local file system: flock is not reliable over NFS.
//
// # Recovery
//
// Open reads the frames from the start while each is whole, has valid
// checksums and carries the expected sequence number and batch position.
// The end of the last whole batch is the committed end. Bytes after it are
// either a torn tail (the last batch, whose Append never returned) or damage
// to data that had been synced. They are told apart by looking for evidence
// of a later write: if any byte offset after the committed end holds a whole,
// valid frame whose batch starts after the first damaged sequence number,
// that later batch was written only after the damaged one's fsync returned,
// so the damage is corruption and Open fails with ErrCorrupt, changing
// nothing. Otherwise the tail is torn: it is truncated to the committed end
// and the truncation is fsynced. Damage inside the last batch cannot be told
// apart from a torn write, so it is truncated like one (as in etcd and
// hashicorp/raft-wal). The README in this directory has the byte layout.
//
// The package must never retry a failed write or fsync, never drop bytes
// that may have been acknowledged when later data proves they were synced,
// and never interpret or log record payloads (they hold prompts and tool
// output).
package wal
