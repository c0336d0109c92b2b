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
// or updating an object it accepted under OLD, or drops stored data),
// Warning when clients may notice but the server and the data do not.
// Documentation (descriptions, titles, examples, external docs) is never a
// change. docs/upgrade.md gives every rule and the reasons.
//
// The package is pure: plain values in, sorted data out, no I/O. It does
// not ask the server anything and judges no object: the server's verdict on
// the CRD update (PrepareForUpdate and ValidateUpdate of the CRD registry)
// belongs to pkg/crd, and replaying existing objects through NEW (create,
// a labels-only update with ratcheting, pruning) to the command. That
// replay is what decides CEL changes on real objects: a Change of a CEL rule
// carries the rule, its node and the field its self is bound to
// (CELChange, Change.Field). Options.Present lets a caller that has the
// objects turn a field newly required under an optional parent into an
// error when objects set that parent; Has answers it from decoded objects.
//
// Positions are the caller's: Change.Path resolves in NEW (or OLD) with
// pkg/source's Document.Locate; a path to a field the server's defaulting
// added (spec.conversion.strategy) resolves to its nearest ancestor.
//
// Example:
//
//	for _, c := range upgrade.Compare(old, new, upgrade.Options{}) {
//		fmt.Println(c.Severity, c.Rule, c.Path, c.Message)
//	}
//	// error upgrade-bound-tightened spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas].maximum maximum tightened from 10 to 5: values above 5 are refused
package upgrade
