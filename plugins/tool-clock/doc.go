// Command axon-tool-clock is the axon tool plugin that tells the time: the
// current time in an IANA zone (now) and a time converted from one zone to
// another (convert_time).
//
// Both tools are pure (side effect none): the agent loop may re-run them
// after a crash. The plugin embeds the time zone database (time/tzdata)
// because plugins start with only HOME and TMPDIR in their environment and a
// Pi image may ship no tzdata. It never touches the network or the disk
// beyond reading the system's local zone, and never sets or changes a clock.
package main
