// Package delegate is axon's MCP delegate server: the tools an
// orchestrating agent (any MCP client) calls to hand a sub-task to the
// backends axon routes to. It decides who takes a sub-task (the menu of
// providers that set can_delegate = true, and the precedence target, then
// task, then the free local tier) and leaves running it to a Broker,
// which goes through axon's chain machinery.
//
// It never calls a provider itself, and never offers the delegated model
// a tool: a delegated call is a leaf, so a sub-task cannot delegate again.
package delegate
