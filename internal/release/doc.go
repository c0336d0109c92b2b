// Package release holds no code: its tests check the release files
// (the krew manifest, goreleaser configuration) against the rules the
// tools that consume them enforce, since krew's own validator is not
// installable offline.
package release
