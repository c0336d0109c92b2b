// Package gitrev reads files as a revision of the current repository has
// them, for arguments written REV:PATH (kubectl crdlint upgrade
// v1.0.0:config/crd/widget.yaml ...): Split tells such an argument from a
// path, and Read reads it with git itself (git show REV:PATH, as crdify's
// git:// source does; for a directory, git ls-tree and git cat-file), so
// that every revision syntax git knows works and nothing of git is
// reimplemented. A directory is read as a directory on disk is walked:
// its files with the given extensions, hidden ones left out, in lexical
// order.
//
// Errors are one line, the reason git gives without its "fatal: ", for a
// command to print as a usage error.
package gitrev
