// Package compare is the breaking-change comparison of kubectl crdlint
// upgrade: it compares two revisions of a CustomResourceDefinition, OLD
// and NEW, and says what upgrading from one to the other breaks or
// changes for clients and for the objects stored today.
//
// Revisions takes both CRDs as the server stores them
// (apiextensions.k8s.io/v1, decoded and defaulted) and returns the changes
// sorted, each with a stable rule ID from Rules, the rule's severity, the
// place in the server's v1 notation (in NEW, or in OLD for what was
// removed), the custom resource field it is about, a message and the
// values compared. It compares:
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
// and the data do not. Revisions gives each rule's severity without
// objects: a tightening is an error there, since nothing shows it is safe.
// Documentation (descriptions, titles, examples, external docs) is never a
// change. docs/upgrade.md gives every rule and the reasons.
//
// The comparison is pure: plain values in, sorted data out, an Options
// struct, no I/O, nothing kept between calls. Of the server it asks only
// which formats it validates and whether a rule is a transition rule
// (pkg/engine's UnrecognizedFormats and UsesOldSelf). It leaves to
// others:
//
//   - the server's verdict on the CRD update itself (PrepareForUpdate and
//     ValidateUpdate of the CRD registry): pkg/engine. ServerRule names the
//     three refusals that have a comparison rule too, so that a command
//     reports each once;
//   - judging the changes on the objects that exist: pkg/upgrade/replay,
//     which answers Options.Present from them (Has) and turns a tightening
//     none of them breaks into a warning;
//   - positions: Change.Path resolves in NEW (or OLD) with pkg/source's
//     Document.Locate; a path to a field the server's defaulting added
//     (spec.conversion.strategy) resolves to its nearest ancestor;
//   - the rules' prose (Why, Fix) and reading the CRDs: pkg/upgrade and
//     pkg/upgrade/read.
//
// Example:
//
//	for _, c := range compare.Revisions(old, new, compare.Options{}) {
//		fmt.Println(c.Severity, c.Rule, c.Path, c.Message)
//	}
//	// error upgrade-bound-tightened spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas].maximum maximum tightened from 10 to 5: values above 5 are refused
package compare
