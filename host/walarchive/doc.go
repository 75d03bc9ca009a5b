// Package walarchive is the sealed container that old session logs are
// moved into: one tar file (archive/tar, the standard library) whose first
// entry, manifest.json, lists every log it holds (session, lineage, record
// count, size, SHA-256 of the file's bytes, last write), followed by the
// logs themselves, <session>.wal, in manifest order.
//
// A container is sealed by its name: <sha256 of manifest.json>.tar. The
// name covers the manifest and the manifest covers every log, so any
// changed byte of a sealed container shows in Verify, and a log whose
// bytes do not hash to its manifest digest is never handed out (a
// *DigestError names the container, the session and both digests).
// Write builds a container under a temporary name in the archive
// directory, syncs it, makes it read-only, renames it into place and syncs
// the directory: a crash leaves either no container (and a temporary file
// the next Write of that container replaces, or Clean removes) or a whole
// one.
//
// The package knows nothing of sessions beyond their ids and never
// changes a sealed container: which archived copy of a session is current
// (superseded entries, live logs) is host/session's business.
package walarchive
