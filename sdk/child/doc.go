// Package child runs the programs a plugin starts (a vendor's command-line
// client, an MCP server): each in a process group of its own, so that it
// and everything it starts are killed together; always reaped; and, when
// the plugin is its PID namespace's init (the sandbox makes it so), with
// the orphans they leave behind reaped too, never a child os/exec still
// waits for.
//
// It never starts a program itself beyond cmd.Start, never runs a shell,
// and never kills a process group that may no longer be its child's: a
// group is killed only while its leader is unreaped (WaitExited), so its
// id cannot have been reused.
package child
