// Package edit changes a focused set of host-owned fields in an axon.hcl
// (a provider's enabled, tier, good_at, budget and pricing; a chain's
// providers, strategy and classifier; the billing gate) the way a person
// with an editor would: Apply rewrites only the attributes and blocks an
// edit names, through hclwrite, and leaves every other byte of the file as
// it was; Validate runs the new text through the loader axon check uses and
// ties each diagnostic to the edit that caused it; WriteFile replaces the
// file atomically after keeping a timestamped backup beside it.
//
// It must never write a file the loader refused (callers write only after
// Validate reported no error, and WriteFile itself refuses text that does
// not parse), never lose a comment it was not asked to remove with its
// attribute or block, never build HCL by pasting user input into source
// text, and never touch a path other than the one it is given and the
// backup and temporary files beside it: a symbolic link is refused, not
// followed.
package edit
