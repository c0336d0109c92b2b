// Package prune writes back what the API server's pruning (and, when
// asked, defaulting) makes of custom resources: it turns the server's
// stored object, computed by pkg/engine with the server's own pruning
// library (on the version of the CRD pkg/crd's catalogue compiled, and,
// for an object of another version than the storage version, through
// the storage version and back as the server's storage codec takes it:
// crd.Entry.RoundTrip), into
// edits of the user's YAML text that remove exactly the pruned keys with
// their comments and keep every other byte, key order and comment.
//
// Every rewrite is checked by decoding the result: a text that would not
// decode to exactly the server's object is an error, never a silent
// difference. Shared text (anchors, aliases, merge keys) that would have
// to change is refused with a clear error.
//
// File is the prune command's work on a parsed file. Printer renders
// results (the stored objects as YAML or a List, or a unified diff by
// pkg/diff); Output is the command's output, batch by batch: the notes
// and errors said on stderr, the files rewritten in place, and live
// objects pruned a page at a time, with an output that stops short
// saying so. Which flags choose what, and the exit codes, are the
// command's.
//
//	f := source.Parse("widget.yaml", data)
//	out, err := prune.Rewrite(f, data, []prune.Doc{{Document: f.Documents[0], Object: stored}})
package prune
