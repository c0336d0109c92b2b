// Package gitrev reads a file as a revision of the current repository has
// it, for arguments written REV:PATH (kubectl crdlint upgrade
// v1.0.0:config/crd/widget.yaml ...): Split tells such an argument from a
// path, and Show reads it with git show REV:PATH, as crdify's git://
// source does, so that every revision syntax git knows works and nothing
// of git is reimplemented.
//
// Errors are one line, the reason git gives without its "fatal: ", for a
// command to print as a usage error.
package gitrev
