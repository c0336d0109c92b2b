// Package prune writes back what the API server's pruning (and, when
// asked, defaulting) makes of custom resources: it turns the server's
// stored object, computed by pkg/crd with the server's own pruning library,
// into edits of the user's YAML text that remove exactly the pruned keys
// with their comments and keep every other byte, key order and comment.
//
// Every rewrite is checked by decoding the result: a text that would not
// decode to exactly the server's object is an error, never a silent
// difference. Shared text (anchors, aliases, merge keys) that would have
// to change is refused with a clear error.
//
// It prints nothing: the prune command renders, diffs (pkg/diff) and
// writes files.
//
//	out, err := prune.Rewrite("widget.yaml", data, []prune.Doc{{Document: d, Object: stored}})
package prune
