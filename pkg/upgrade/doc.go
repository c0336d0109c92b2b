// Package upgrade is the breaking-change report of kubectl crdlint upgrade:
// it compares two revisions of a CustomResourceDefinition, OLD and NEW, and
// says what upgrading from one to the other breaks or changes for clients
// and for the objects stored today.
//
// Compare takes both CRDs as the server stores them (apiextensions.k8s.io/v1,
// decoded and defaulted) and returns the changes sorted, each with a stable
// rule ID from Rules, the rule's severity, the place in the server's v1
// notation (in NEW, or in OLD for what was removed), the custom resource
// field it is about, a message and the values compared. It compares:
//
//   - the CRD as a whole: scope, kind and other names, conversion;
//   - the versions: removed (refused by the server while still in
//     status.storedVersions), no longer served, deprecated, the storage
//     version moved;
//   - per version present in both, and for OLD's storage version against
//     NEW's when the storage version moved under conversion None: the
//     schemas node by node (properties, items, additionalProperties), the
//     x-kubernetes-validations rules, the subresources, printer columns and
//     selectable fields.
//
// The severity principle: Error when something that works today stops
// working or is lost (the server refuses the CRD update, refuses creating
// or updating an object it accepted under OLD, refuses a client's request,
// or drops stored data), Warning when clients may notice but the server
// and the data do not. Compare gives each rule's severity without
// objects: a tightening is an error there, since nothing shows it is safe.
// Documentation (descriptions, titles, examples, external docs) is never a
// change. docs/upgrade.md gives every rule and the reasons.
//
// Compare is pure: plain values in, sorted data out, no I/O, and it asks the
// server nothing. The server's verdict on the CRD update itself
// (PrepareForUpdate and ValidateUpdate of the CRD registry) belongs to
// pkg/crd; ServerRule names the three refusals that have a comparison rule
// too, so that a command reports each once.
//
// The Replayer replays the objects that exist today through the upgrade,
// through pkg/crd (the server's code): each as OLD stores it, then under
// NEW a create of the same manifest, its next labels-only update with the
// server's ratcheting, the stored fields NEW prunes, and whether its stored
// version stays (ObjectResult, with findings as Outcomes under ReplayRules).
// It answers Options.Present from the objects (Has), and judges the
// tightenings on them (judgedRules: a refusal or a data loss at or below
// the change's field; a CEL rule evaluated alone, CELChange): Changes
// returns the comparison with each such change's message saying how many
// objects were judged and which it breaks, and a tightening none of them
// breaks as a warning (a transition rule stays an error). CountBreaking
// puts the changes left as errors in each CRD's summary. Objects can be
// replayed a page at a time, in parallel; none is kept.
//
// Positions are the caller's: Change.Path resolves in NEW (or OLD) with
// pkg/source's Document.Locate; a path to a field the server's defaulting
// added (spec.conversion.strategy) resolves to its nearest ancestor.
//
// Judge is the command's work on top of both, with findings positioned as
// check positions its own (pkg/lint): CRDs takes the CRDs of a file of
// OLD or NEW; Judge pairs OLD's with NEW's by name, reports those of one
// side only, and adds the server's verdict on each update (a refusal the
// comparison knows too under the comparison's rule, reported once); the
// Pairs it returns replay a file of objects (File) or an object read from
// storage (Stored), and Report gives the comparison's changes and each
// CRD's report.UpgradeSummary once every object is replayed. ReadCRDs
// reads OLD or NEW from files, directories or a git revision (REV:PATH, a
// file or a directory),
// LiveCRDs OLD from a cluster; ReplayFiles replays object files in
// parallel, ReplayLive every stored object of each CRD a page at a time.
// The configuration and the inline suppressions are the command's: each
// file's findings go through its Review.
//
// Example:
//
//	for _, c := range upgrade.Compare(old, new, upgrade.Options{}) {
//		fmt.Println(c.Severity, c.Rule, c.Path, c.Message)
//	}
//	// error upgrade-bound-tightened spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas].maximum maximum tightened from 10 to 5: values above 5 are refused
//
//	r := upgrade.NewReplayer(old, new, upgrade.Options{})
//	for _, obj := range objects { // decoded as the server decodes JSON
//		for _, o := range r.Replay(upgrade.Object{Value: obj}).Outcomes {
//			fmt.Println(o.Severity, o.Rule, o.Field, o.Message)
//		}
//	}
//	changes := r.Changes() // Compare, with the CEL changes judged
//
//	pairs, findings := upgrade.Judge(l, oldCRDs, newCRDs, upgrade.JudgeOptions{})
//	for _, f := range objectFiles {
//		fs, sum := pairs.File(f)
//		...
//	}
//	changes, summaries := pairs.Report()
package upgrade
