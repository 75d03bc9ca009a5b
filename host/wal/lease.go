package wal

import "errors"

// Lease is the writer lease of a log held without the log open, so that
// its file can be moved into or out of place (archived, restored from an
// archive) while no writer can open it. A Lease is used by one goroutine.
type Lease struct {
	path string
	ls   *lease // nil once released or handed to a WAL
}

// Lock takes the writer lease of the log at path, as Open does (ErrLocked
// while another holder has it), without opening the log, which need not
// exist.
func Lock(path string) (*Lease, error) {
	ls, err := acquireLease(path + ".lock")
	if err != nil {
		return nil, err
	}
	return &Lease{path: path, ls: ls}, nil
}

// Path is the log the lease is for.
func (l *Lease) Path() string { return l.path }

// Open opens the log under the lease, as Open does, except that a missing
// log is created only with create and is otherwise an error matching
// fs.ErrNotExist. On success the WAL owns the lease (its Close releases
// it) and l is spent; on failure l still holds it.
func (l *Lease) Open(create bool) (*WAL, error) {
	if l.ls == nil {
		return nil, errLeaseSpent
	}
	w, err := openLeased(l.path, l.ls, nil, create)
	if err != nil {
		return nil, err
	}
	l.ls = nil
	return w, nil
}

// Release lets the lease go. It is a no-op on a spent lease.
func (l *Lease) Release() error {
	if l.ls == nil {
		return nil
	}
	ls := l.ls
	l.ls = nil
	return ls.release()
}

var errLeaseSpent = errors.New("wal: lease released or handed to a WAL")
