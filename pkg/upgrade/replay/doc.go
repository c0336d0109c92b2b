// Package replay replays the custom resources that exist under OLD
// through the upgrade of their CRD to NEW, with the server's code: each
// as OLD stores it, then under NEW a create of the same manifest, its next
// labels-only update with the server's ratcheting, the stored fields NEW
// prunes, and whether its stored version stays (ObjectResult, with
// findings as Outcomes under Rules).
//
// A Replayer also judges pkg/upgrade/compare's changes on the objects: it
// answers compare.Options.Present from them, and judges the tightenings
// (judgedRules: a refusal or a data loss at or below the change's field;
// a CEL rule evaluated alone, compare.CELChange). Changes returns the
// comparison with each such change's message saying how many objects
// were judged and which it breaks, and a tightening none of them breaks
// as a warning (a transition rule stays an error); Summary counts the
// objects. Objects can be replayed a page at a time, in parallel; none is
// kept.
//
// The server is reached only through pkg/engine: a version compiled by
// pkg/crd's CompileVersion (counted as the catalogue's compiles are), and
// the engine.Version's Create, UpdateFromStorage, Read (storage's
// decoding), Convert (the None strategy) and RuleErrors (one CEL rule
// alone); VersionError words the 404 of a version not served. Nothing
// here reads a file or a cluster: objects come in decoded (Object), and
// findings go out as Outcomes with a field in the object, which the
// caller positions (pkg/upgrade).
//
// Example:
//
//	r := replay.New(old, new, replay.Options{})
//	for _, obj := range objects { // decoded as the server decodes JSON
//		for _, o := range r.Replay(replay.Object{Value: obj}).Outcomes {
//			fmt.Println(o.Severity, o.Rule, o.Field, o.Message)
//		}
//	}
//	changes := r.Changes() // the comparison, with the tightenings judged
package replay
