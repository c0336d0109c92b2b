package lint

import (
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Rule IDs. They are part of the tool's interface (--disable, JSON, SARIF):
// never rename or reuse one.
const (
	RuleCRDAPIApproval           = "crd-api-approval"
	RuleCRDAPIRemoved            = "crd-api-removed"
	RuleCRDCEL                   = "crd-cel"
	RuleCRDCELCost               = "crd-cel-cost"
	RuleCRDColumnPath            = "crd-column-path"
	RuleCRDConversion            = "crd-conversion"
	RuleCRDConversionNone        = "crd-conversion-none"
	RuleCRDDecode                = "crd-decode"
	RuleCRDDefault               = "crd-default"
	RuleCRDDuplicate             = "crd-duplicate"
	RuleCRDDeprecatedNoWarning   = "crd-deprecated-no-warning"
	RuleCRDEmptyObject           = "crd-empty-object"
	RuleCRDGroup                 = "crd-group"
	RuleCRDInvalid               = "crd-invalid"
	RuleCRDListSetObjects        = "crd-list-set-objects"
	RuleCRDListType              = "crd-list-type"
	RuleCRDMetadata              = "crd-metadata"
	RuleCRDMutability            = "crd-mutability"
	RuleCRDMutabilityUnenforced  = "crd-mutability-unenforced"
	RuleCRDNames                 = "crd-names"
	RuleCRDNoPruning             = "crd-no-pruning"
	RuleCRDPreserveUnknownFields = "crd-preserve-unknown-fields"
	RuleCRDPrinterColumns        = "crd-printer-columns"
	RuleCRDScalePath             = "crd-scale-path"
	RuleCRDSchema                = "crd-schema"
	RuleCRDScope                 = "crd-scope"
	RuleCRDSelectableFields      = "crd-selectable-fields"
	RuleCRDServerPanic           = "crd-server-panic"
	RuleCRDStatusNoSubresource   = "crd-status-without-subresource"
	RuleCRDStructural            = "crd-structural"
	RuleCRDSubresources          = "crd-subresources"
	RuleCRDUnrecognizedFormat    = "crd-unrecognized-format"
	RuleCRDVersions              = "crd-versions"
	RuleUnknownField             = "unknown-field"

	RuleUpdateCEL       = "update-cel"
	RuleUpdateImmutable = "update-immutable"
	RuleUpdateInvalid   = "update-invalid"
	RuleUpdateUnpaired  = "update-unpaired"

	RuleCRCEL           = "cr-cel"
	RuleCRCELSkipped    = "cr-cel-skipped"
	RuleCRCRDRejected   = "cr-crd-rejected"
	RuleCRDecode        = "cr-decode"
	RuleCRDeprecated    = "cr-deprecated-version"
	RuleCREmbedded      = "cr-embedded-resource"
	RuleCRListType      = "cr-list-type"
	RuleCRMetadata      = "cr-metadata"
	RuleCRNoCRD         = "cr-no-crd"
	RuleCRScale         = "cr-scale"
	RuleCRSchema        = "cr-schema"
	RuleCRServerPanic   = "cr-server-panic"
	RuleCRServerWarning = "cr-server-warning"
	RuleCRTypeMeta      = "cr-type-meta"
	RuleCRVersion       = "cr-version"
)

// Rules is the linter's rule list, sorted by ID. Severity is the default, except
// for unknown-field, which --validate sets: an error under strict (the
// default, kubectl apply's), this warning under warn, nothing under
// ignore (nor duplicate-field). Each rule's one-line
// Doc is here; its longer prose (Why, Fix) is in ruleProse below, kept
// apart so that this list stays one line per rule.
var Rules = report.WithProse([]report.Rule{
	{ID: RuleCRCEL, Severity: report.Error, Doc: "A custom resource fails an x-kubernetes-validations CEL rule (or its evaluation errs or runs out of budget); the server rejects it."},
	{ID: RuleCRCELSkipped, Severity: report.Error, Doc: "The server did not run the CEL rules (x-kubernetes-validations) because the object failed its other checks; it says so as one more error, and the rules run once the others are fixed."},
	{ID: RuleCRCRDRejected, Severity: report.Error, Doc: "The custom resource's CRD would itself be rejected, so the kind does not exist on the server."},
	{ID: RuleCRDecode, Severity: report.Error, Doc: "The custom resource cannot be decoded (malformed metadata, an embedded resource's apiVersion or kind not a string); the server answers 400."},
	{ID: RuleCRDeprecated, Severity: report.Warning, Doc: "The custom resource uses a deprecated version of its CRD; the server sends the CRD's deprecationWarning."},
	{ID: RuleCREmbedded, Severity: report.Error, Doc: "An x-kubernetes-embedded-resource object lacks apiVersion or kind, or has invalid metadata; the server rejects the custom resource."},
	{ID: RuleCRListType, Severity: report.Error, Doc: "A list with x-kubernetes-list-type set or map has duplicate items or keys; the server rejects the custom resource."},
	{ID: RuleCRMetadata, Severity: report.Error, Doc: "The custom resource's metadata is invalid (name, namespace for the scope, labels, annotations, finalizers); the server rejects it."},
	{ID: RuleCRNoCRD, Severity: report.Error, Doc: "No CRD among the inputs, --crd and crds: defines this kind, so the custom resource was not validated; the server answers 404 (give the CRD with --crd or crds: in .crdlint.yaml, which `config init` writes; --missing-crds=warn or ignore relaxes it)."},
	{ID: RuleCRScale, Severity: report.Error, Doc: "The value at the scale subresource's replicas path is not a valid replica count; the server rejects the custom resource."},
	{ID: RuleCRSchema, Severity: report.Error, Doc: "The custom resource fails its OpenAPI schema (type, format, enum, pattern, bounds, required, ...); the server rejects it."},
	{ID: RuleCRServerPanic, Severity: report.Error, Doc: "The API server's own code panics on this custom resource; the create fails with 500 Internal Server Error."},
	{ID: RuleCRServerWarning, Severity: report.Warning, Doc: "The server accepts the custom resource with a warning (for example a finalizer name that is not domain-qualified)."},
	{ID: RuleCRTypeMeta, Severity: report.Error, Doc: "The custom resource's apiVersion or kind does not match its CRD."},
	{ID: RuleCRVersion, Severity: report.Error, Doc: "The custom resource's version is not defined or not served by its CRD; the server answers 404."},
	{ID: RuleCRDAPIApproval, Severity: report.Error, Doc: "A CRD in a protected group (*.k8s.io, *.kubernetes.io) lacks a valid api-approved.kubernetes.io annotation; the server rejects it."},
	{ID: RuleCRDAPIRemoved, Severity: report.Error, Doc: "The CRD uses an apiextensions.k8s.io version no supported server serves (v1beta1 was removed in Kubernetes 1.22)."},
	{ID: RuleCRDCEL, Severity: report.Error, Doc: "An x-kubernetes-validations rule is malformed, does not compile, or exceeds the server's estimated cost budget; the server rejects the CRD."},
	{ID: RuleCRDCELCost, Severity: report.Warning, Doc: "A CEL rule's estimated cost (the server's own estimator) is above half of the per-rule or per-CRD budget: a small schema change may push it over."},
	{ID: RuleCRDColumnPath, Severity: report.Warning, Doc: "An additionalPrinterColumns jsonPath names a field the version's schema does not have, so the column is always empty."},
	{ID: RuleCRDConversion, Severity: report.Error, Doc: "spec.conversion is invalid (strategy, webhook client config, conversionReviewVersions); the server rejects the CRD."},
	{ID: RuleCRDConversionNone, Severity: report.Warning, Doc: "Several served versions have different schemas but conversion strategy None: objects are only relabelled between versions, not converted."},
	{ID: RuleCRDDecode, Severity: report.Error, Doc: "The CRD cannot be decoded (a field has the wrong type); the server answers 400 Bad Request."},
	{ID: RuleCRDDefault, Severity: report.Error, Doc: "A default value is invalid: not pruned, not valid against its schema, or placed where defaults are forbidden; the server rejects the CRD."},
	{ID: RuleCRDDeprecatedNoWarning, Severity: report.Warning, Doc: "A served version is deprecated but has no deprecationWarning: clients get only a generic warning."},
	{ID: RuleCRDDuplicate, Severity: report.Warning, Doc: "Two CRDs of the same kind with different content are among what one run reads: each custom resource is judged by one (--crd's and crds: over the inputs' over the cluster's; among the inputs, the nearest); the warning names both, which one judges and why."},
	{ID: RuleCRDEmptyObject, Severity: report.Warning, Doc: "An object schema has neither properties, additionalProperties nor x-kubernetes-preserve-unknown-fields: every field below it is silently pruned."},
	{ID: RuleCRDGroup, Severity: report.Error, Doc: "spec.group is missing or not a valid DNS subdomain with at least one dot; the server rejects the CRD."},
	{ID: RuleCRDInvalid, Severity: report.Error, Doc: "The server rejects the CRD for a reason no more specific rule covers."},
	{ID: RuleCRDListSetObjects, Severity: report.Warning, Doc: "x-kubernetes-list-type: set on items of type object or array is not supported by server-side apply or CEL validation rules (server warning)."},
	{ID: RuleCRDListType, Severity: report.Error, Doc: "x-kubernetes-list-type, x-kubernetes-list-map-keys or x-kubernetes-map-type is invalid; the server rejects the CRD."},
	{ID: RuleCRDMetadata, Severity: report.Error, Doc: "The CRD's metadata is invalid; its name must be spec.names.plural, a dot, and spec.group."},
	{ID: RuleCRDMutability, Severity: report.Error, Doc: "An x-kubernetes-mutability or x-kubernetes-key-mutability marker (Immutable Fields design) is misplaced or has an unknown value: at the root or in metadata, key-mutability on objects with properties or scalars, AddOnly/RemoveOnly on arrays and maps."},
	{ID: RuleCRDMutabilityUnenforced, Severity: report.Warning, Doc: "The CRD carries Immutable Fields markers, which no Kubernetes API server knows: they are dropped (the CRD is refused under --validate=strict, kubectl apply's default) and never enforced. kubectl crdlint immutable checks them offline."},
	{ID: RuleCRDNames, Severity: report.Error, Doc: "spec.names is invalid (plural, singular, kind, listKind, shortNames, categories); the server rejects the CRD."},
	{ID: RuleCRDNoPruning, Severity: report.Warning, Doc: "Pruning is disabled at the schema root (x-kubernetes-preserve-unknown-fields: true): unknown and misspelt fields are stored as they are."},
	{ID: RuleCRDPreserveUnknownFields, Severity: report.Error, Doc: "spec.preserveUnknownFields: true is not allowed in apiextensions.k8s.io/v1; the server rejects the CRD."},
	{ID: RuleCRDPrinterColumns, Severity: report.Error, Doc: "An additionalPrinterColumns entry is invalid (name, type, format, jsonPath); the server rejects the CRD."},
	{ID: RuleCRDScalePath, Severity: report.Warning, Doc: "A scale subresource path names a field the version's schema does not have."},
	{ID: RuleCRDSchema, Severity: report.Error, Doc: "The openAPIV3Schema breaks one of the server's API rules beyond structurality (patterns, embedded resources, int-or-string, metadata); the server rejects the CRD."},
	{ID: RuleCRDScope, Severity: report.Error, Doc: "spec.scope is missing or not Cluster or Namespaced; the server rejects the CRD."},
	{ID: RuleCRDSelectableFields, Severity: report.Error, Doc: "A selectableFields entry is invalid (too many, bad path, array or map, metadata, non-scalar type, duplicate); the server rejects the CRD."},
	{ID: RuleCRDServerPanic, Severity: report.Error, Doc: "The API server's own CRD validation panics on this CRD; the server recovers and the create fails with 500 Internal Server Error."},
	{ID: RuleCRDStatusNoSubresource, Severity: report.Warning, Doc: "The schema has a status property but the version has no status subresource: status is written with the main resource and by anyone who can update it."},
	{ID: RuleCRDStructural, Severity: report.Error, Doc: "The openAPIV3Schema is not structural (missing types, forbidden keywords, junctor rules, metadata restrictions); the server rejects the CRD."},
	{ID: RuleCRDSubresources, Severity: report.Error, Doc: "The status or scale subresource is invalid; the server rejects the CRD."},
	{ID: RuleCRDUnrecognizedFormat, Severity: report.Warning, Doc: "A schema uses a format the server does not recognize, so the format is not validated (server warning)."},
	{ID: RuleCRDVersions, Severity: report.Error, Doc: "spec.versions is invalid (names, duplicates, exactly one storage version, schema required, deprecationWarning); the server rejects the CRD."},
	{ID: source.RuleNotAnObject, Severity: report.Error, Doc: "A YAML document is a list or a scalar, not an object, in a file meant as manifests (one that names a kind, or a list of objects); kubectl cannot send it. A file that names no kind (data, translations, JSON 6902 patches) is skipped instead."},
	{ID: source.RuleDocumentSize, Severity: report.Error, Doc: "A document is larger than crdlint reads (64 MiB): it is skipped; the API server refuses request bodies over 3 MiB anyway."},
	{ID: source.RuleDuplicate, Severity: report.Warning, Doc: "A mapping of a Kubernetes object repeats a key: kubectl sends only the last value, so the first is silently lost (under --validate=strict too: the server never sees it)."},
	{ID: source.RuleJSONAsYAML, Severity: report.Warning, Doc: "A file that starts as JSON is not JSON from some point on (a trailing comma, YAML after an object): kubectl reads the rest as YAML and accepts it, but kubectl 1.32 and earlier and JSON tools refuse the file."},
	{ID: source.RuleList, Severity: report.Error, Doc: "kubectl cannot send a List's items: an item that is not an object, items that are not a list, or a List inside a List refuse the whole document; an item without kind or apiVersion is not sent."},
	{ID: source.RuleEtcdSize, Severity: report.Warning, Doc: "The object is larger than the 1.5 MiB etcd stores by default (--max-request-bytes): the API server accepts the request but fails to store it."},
	{ID: source.RuleRequestSize, Severity: report.Error, Doc: "The object is larger than the 3 MiB the API server reads of a request body: it is refused with 413 Request Entity Too Large."},
	{ID: RuleUnknownField, Severity: report.Warning, Doc: "A field is unknown to the schema: the server refuses the object under kubectl apply's default --validate=strict (an error), and drops the field under --validate=warn (a warning)."},
	{ID: RuleUpdateCEL, Severity: report.Error, Doc: "immutable: an x-kubernetes-validations rule (a transition rule with oldSelf, or any rule on a changed value) refuses the update from OLD to NEW."},
	{ID: RuleUpdateImmutable, Severity: report.Error, Doc: "immutable: the update breaks an x-kubernetes-mutability or x-kubernetes-key-mutability marker (Immutable Fields design); real servers ignore the markers, see --to-cel."},
	{ID: RuleUpdateInvalid, Severity: report.Error, Doc: "immutable: the server refuses the update for another reason (schema, metadata, list types), after ratcheting unchanged values."},
	{ID: RuleUpdateUnpaired, Severity: report.Warning, Doc: "immutable: an object is only in OLD or only in NEW, so there is no update to judge; or it changes version and its CRD converts by webhook, which crdlint cannot call."},
	{ID: source.RuleAliasBudget, Severity: report.Error, Doc: "A document's YAML aliases would expand beyond the budget crdlint reads (1,000,000 nodes or 16 MiB): the document is refused, as kubectl refuses excessive aliasing."},
	{ID: source.RuleSyntax, Severity: report.Error, Doc: "The file is not valid YAML (or has an invalid document separator). A document that is a Go template (every {{ ... }} a Go template action) is counted as a template instead, and a file that names no kind is skipped."},
	{ID: source.RuleYAML11Key, Severity: report.Warning, Doc: "An unquoted key such as on, off, yes, no, y or n in a Kubernetes object is read by kubectl's YAML 1.1 as a boolean: the object gets a field \"true\" or \"false\" instead."},
}, ruleProse)

// immutableOnly is the update rules' note in place of an example: they
// judge two revisions, which the immutable command's scripts
// (cmd/kubectl-crdlint/testdata/script/immutable.txtar) and pkg/immutable's
// tables test.
const immutableOnly = "Reported by `kubectl crdlint immutable OLD NEW`, which judges the update of each object from OLD to NEW; see [immutability](../immutability.md) for examples."

// ruleByID indexes Rules.
var ruleByID = func() map[string]report.Rule {
	m := make(map[string]report.Rule, len(Rules))
	for _, r := range Rules {
		m[r.ID] = r
	}
	return m
}()

// ruleProse is each rule's page beyond its one-line Doc: why it matters
// and how to fix it, in Markdown. The rule pages (docs/rules/<ID>.md),
// `kubectl crdlint explain` and SARIF's rule help all come from here.
// noExample is set for the few rules no fixture under testdata/rules/ can
// trigger, and says why on the rule's page.
var ruleProse = map[string]report.Prose{
	RuleCRCELSkipped: {
		Why: "The server runs a custom resource's CEL rules only when the object passes its schema, metadata and list checks: with those errors it answers one more, saying the rules were not checked. Fixing the other errors can reveal CEL failures that were hidden, so the object is not done once they are fixed.",
		Fix: "Fix the other errors of the object first (they are listed before this one), then check again: the CEL rules then run and report their own failures, if any.",
	},
	RuleCRCEL: {
		Why: "The server evaluates every `x-kubernetes-validations` rule of the schema on create and update and rejects the object when one is false, when its evaluation fails, or when it runs out of its runtime cost budget. The message is the rule's `message` (or `messageExpression`), so it says what the CRD's author wanted.\n\n" +
			"When the object also breaks its OpenAPI schema, the server does not evaluate the rules at all and says so with its own error (\"some validation rules were not checked because the object was invalid\"); fix the other errors first and the CEL rules are checked on the next run.",
		Fix: "Change the value so the rule holds; the message says what the rule expects, and the CRD's `x-kubernetes-validations` entry at the reported place is the rule itself. If the rule is wrong, fix it in the CRD.",
	},
	RuleCRCRDRejected: {
		Why: "A custom resource exists only once its CRD is established. A CRD the server rejects is never created, so `kubectl apply` of the custom resource fails with `no matches for kind`, whatever the resource says.",
		Fix: "Fix the CRD's own findings (reported at the CRD's document); the custom resource is then validated against it.",
	},
	RuleCRDecode: {
		Why: "The server decodes the request body into its types before any validation: `metadata` into ObjectMeta, and the `apiVersion` and `kind` of embedded resources as strings. A value of the wrong type there fails the request with 400 Bad Request, and nothing else is checked.",
		Fix: "Give the field the type the server expects: label and annotation values are strings (quote `\"true\"`, `\"1\"`), `metadata.name` is a string, `finalizers` a list of strings.",
	},
	RuleCRDeprecated: {
		Why: "The CRD marks the version `deprecated: true`; the server still serves it, but every request returns a warning, and a later release of the CRD may stop serving the version (then `kubectl apply` fails with `no matches for kind`).",
		Fix: "Move the manifest to the version the CRD's `deprecationWarning` names (usually its storage version), changing fields as that version's schema requires.",
	},
	RuleCREmbedded: {
		Why: "An object schema with `x-kubernetes-embedded-resource: true` holds a whole Kubernetes object (a pod template, a manifest to create). The server requires its `apiVersion` and `kind` and validates its `metadata` like a real object's.",
		Fix: "Give the embedded object `apiVersion` and `kind` (for a pod template: `apiVersion: v1`, `kind: Pod`), and valid `metadata`.",
	},
	RuleCRListType: {
		Why: "`x-kubernetes-list-type: set` lists may not hold a value twice, and `map` lists may not hold two items with the same keys: server-side apply merges them by value or key, so duplicates would be ambiguous. The server rejects them.",
		Fix: "Remove the duplicate item, or merge the two items that share their keys.",
	},
	RuleCRMetadata: {
		Why: "The server validates every custom resource's metadata as it does a built-in object's: the name must be a DNS subdomain (lower case, digits, `-` and `.`, at most 253 characters), the namespace must fit the CRD's scope, and label keys and values, annotations and finalizers have their own syntax.",
		Fix: "Follow the message: rename the object in lower case, set or remove `metadata.namespace` to match the CRD's `scope`, or fix the label or annotation named.",
	},
	RuleCRNoCRD: {
		Why: "Without its CRD the custom resource cannot be checked at all: every mistake in it goes unnoticed until `kubectl apply` meets the cluster. It is an error by default, as the server would answer 404 and as kubeconform and kubectl-validate treat a missing schema, so that a CI job cannot pass while checking nothing; where the CRD really comes from elsewhere (a chart installed separately, an operator that installs its own), `--missing-crds=warn` or `ignore` (or `missingCRDs:` in .crdlint.yaml) relaxes it.",
		Fix: "Give the CRD with `--crd FILE|DIR` (repeatable; a file, a directory or an `https://` URL), or once for every run in `crds:` of .crdlint.yaml: `kubectl crdlint config init` writes one that lists the repository's CRD directories. Or add the CRD to the inputs, or take the cluster's with `--crd-from-cluster`. If the kind is not a custom resource, it is a typo in `apiVersion` or `kind`.",
	},
	RuleCRScale: {
		Why: "With the scale subresource, the value at `specReplicasPath` (and `statusReplicasPath`) is what `kubectl scale` and autoscalers read and write. The server requires a non-negative integer that fits in 32 bits, and rejects the object otherwise.",
		Fix: "Set the replica count to a whole number from 0 to 2147483647 (not a string, not negative).",
	},
	RuleCRSchema: {
		Why: "The server validates every custom resource against the OpenAPI schema of its version and rejects a value of the wrong type, outside its enum, pattern or bounds, or a missing required field. While the schema is broken, CEL rules are not evaluated either.",
		Fix: "Change the value to what the message asks for; the CRD's schema at the reported field path says what is allowed.",
	},
	RuleCRServerPanic: {
		Why:       "The server recovers from the panic and fails the request with 500 Internal Server Error: the object cannot be created, and the error does not say why.",
		Fix:       "This is a bug in the Kubernetes version crdlint embeds; please report it with the object. Until then, change the object until the finding goes away (the other findings point at what is unusual about it).",
		NoExample: "No example: no known custom resource makes the server panic; the rule guards against one.",
	},
	RuleCRServerWarning: {
		Why: "The server accepts the object but returns a warning, which `kubectl apply` prints and CI logs hide. Warnings announce what a later release may reject (a finalizer that is not domain-qualified, for example).",
		Fix: "Do what the warning says; for finalizers, qualify the name with a domain you own (`example.com/cleanup`).",
	},
	RuleCRTypeMeta: {
		Why:       "The server checks that an object's `apiVersion` and `kind` are those of the CRD version the request was routed to.",
		Fix:       "Set `apiVersion` to `<group>/<version>` and `kind` to `spec.names.kind` of the CRD.",
		NoExample: "No example: crdlint finds a custom resource's CRD by the resource's own apiVersion and kind, so they always match; the rule is kept for the server's check.",
	},
	RuleCRVersion: {
		Why: "The server serves a custom resource only at the versions of its CRD that have `served: true`. Any other version is answered with 404 Not Found (`kubectl apply`: `no matches for kind`).",
		Fix: "Use a version the CRD lists and serves (its storage version is always a safe choice), or add and serve the version in the CRD.",
	},
	RuleCRDAPIApproval: {
		Why: "Groups ending in `.k8s.io` or `.kubernetes.io` belong to the Kubernetes project. The server accepts a CRD in such a group only when its `api-approved.kubernetes.io` annotation links the approved API review (a URL), or says `unapproved, ...` with a reason, to mark an experimental API.",
		Fix: "Use a group under a domain you own. For a Kubernetes project API, set `api-approved.kubernetes.io` to the URL of the pull request that approved it, or to `unapproved, <reason>`.",
	},
	RuleCRDAPIRemoved: {
		Why: "Kubernetes 1.22 stopped serving `apiextensions.k8s.io/v1beta1`; every supported release answers it with `no matches for kind \"CustomResourceDefinition\"`. The v1 API also requires what v1beta1 allowed to be left out (a structural schema per version).",
		Fix: "Convert the CRD to `apiextensions.k8s.io/v1`: `spec.version` and `spec.validation` become a `spec.versions` list with a `schema.openAPIV3Schema` per version, `additionalPrinterColumns` and `subresources` move into each version, `JSONPath` becomes `jsonPath`, and `preserveUnknownFields: true` becomes `x-kubernetes-preserve-unknown-fields` where it is needed. controller-gen and kubebuilder generate v1.",
	},
	RuleCRDCEL: {
		Why: "The server compiles every `x-kubernetes-validations` rule when the CRD is created and rejects the CRD when a rule is missing, does not compile against the schema (an unknown field, a type error, a result that is not a boolean), or its estimated cost exceeds the budget. A rejected CRD takes every custom resource of the kind with it.",
		Fix: "Correct the rule as the compiler's message says (the caret points at the column in the rule). For a cost error, bound what the rule iterates over: `maxItems` on lists, `maxProperties` on maps, `maxLength` on strings.",
	},
	RuleCRDCELCost: {
		Why: "The server estimates the worst-case cost of each CEL rule from the schema's bounds and rejects a CRD whose rule exceeds 10,000,000 or whose rules together exceed 100,000,000. A rule above half of either budget is accepted today, but a small change (a longer `maxLength`, one more rule) can push the CRD over and make it fail to apply.",
		Fix: "Tighten the bounds the rule iterates over (`maxItems`, `maxProperties`, `maxLength`) to what real objects need, or simplify the rule. `kubectl crdlint check --cel-costs` prints every rule's estimate.",
	},
	RuleCRDColumnPath: {
		Why: "The server accepts any well-formed `jsonPath` in `additionalPrinterColumns`, but a path that names no field of the schema is always empty: `kubectl get` shows a blank column, usually because of a typo or a renamed field.",
		Fix: "Point the column at a field the version's schema has (`.spec.color`, `.status.phase`), or remove the column.",
	},
	RuleCRDConversion: {
		Why: "`spec.conversion` tells the server how to convert objects between versions. An unknown strategy, or `Webhook` without a client config or `conversionReviewVersions`, is rejected, and with it the CRD.",
		Fix: "Use `strategy: None` (the default) when the versions have the same schema, or `strategy: Webhook` with `webhook.clientConfig` (a `service` or a `url`) and `webhook.conversionReviewVersions: [v1]`.",
	},
	RuleCRDConversionNone: {
		Why: "With strategy `None` the server converts an object between versions by changing its `apiVersion` only. When the versions' schemas differ, an object written in one version and read in another has fields the other version's schema prunes or does not expect: data is silently lost or misread.",
		Fix: "Add a conversion webhook that maps the fields between versions, or keep the served versions' schemas identical.",
	},
	RuleCRDDecode: {
		Why: "The server decodes a CRD into its Go types before validating it; a field of the wrong type (a list where a string belongs, `\"true\"` where a boolean does) fails the whole request with 400 Bad Request, and no other problem is reported.",
		Fix: "Give the field the type the CustomResourceDefinition API expects: `served` and `storage` are booleans (unquoted `true`), `group` is a string.",
	},
	RuleCRDDefault: {
		Why: "The server checks each `default` when the CRD is created: it must be valid against its own schema, must survive pruning unchanged (no fields the schema does not have), and may not appear where defaults are forbidden (inside `allOf`, `anyOf`, `oneOf` and `not`, and most of `metadata`). A rejected default rejects the CRD.",
		Fix: "Make the default a value its schema accepts (within `enum`, `minimum`, `pattern`; only known fields), or remove it.",
	},
	RuleCRDDuplicate: {
		Why: "A custom resource is judged against one CRD of its kind, as a server holds one. When two different CRDs of a kind are read (gateway-api's standard and experimental channels side by side, a release bundle beside config/crd/bases, an old copy under vendor/), one judges and the other is ignored, for all custom resources or for those nearer to the first: a custom resource may pass or fail against the wrong revision. Which one judges: the CRDs of `--crd` and `crds:` before those among the inputs (the later one given wins); among the inputs, the one nearest the custom resource in the tree, where a release bundle, an install manifest or a copy under releases/, dist/, vendor/, third_party/ or an OLM bundle/ yields to a source; within one file (a Helm render, a kustomize build), the later one. docs/configuration.md states the rule in full.",
		Fix: "Name the CRDs your custom resources are meant for in `crds:` in .crdlint.yaml or with `--crd` (`kubectl crdlint config init` proposes a repository's CRD sources): they then judge every custom resource of their kinds. Or keep one revision of each CRD among the inputs and exclude the others (`exclude:` in .crdlint.yaml, `--exclude`). Identical copies are fine and not reported.",
	},
	RuleCRDDeprecatedNoWarning: {
		Why: "A deprecated version without `deprecationWarning` sends clients the generic `example.com/v1beta1 Widget is deprecated` with no hint of what to use instead.",
		Fix: "Add `deprecationWarning` to the version, naming its replacement: `example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget`.",
	},
	RuleCRDEmptyObject: {
		Why: "The server prunes every field a structural schema does not describe. An object schema with no `properties`, no `additionalProperties` and no `x-kubernetes-preserve-unknown-fields` describes no field, so whatever users write below it is silently dropped on every write: the object is always stored empty.",
		Fix: "Describe the object's fields with `properties`, use `additionalProperties` for a map, or set `x-kubernetes-preserve-unknown-fields: true` to keep arbitrary content (for an embedded object, add `x-kubernetes-embedded-resource: true` too).",
	},
	RuleCRDGroup: {
		Why: "A CRD's group must be a DNS subdomain with at least one dot, so that groups of different owners cannot collide. The server rejects any other.",
		Fix: "Use a domain you own (`example.com`, `widgets.example.com`), and rename the CRD to `<plural>.<group>`.",
	},
	RuleCRDInvalid: {
		Why:       "The server rejects the CRD. crdlint gives the server's errors specific rule IDs; this one is the fallback for an error no other rule covers, which should not happen.",
		Fix:       "Follow the server's message. Please report the finding, so that it gets a rule of its own.",
		NoExample: "No example: no known CRD reaches this rule, and the differential tests against the server fail when one does.",
	},
	RuleCRDListSetObjects: {
		Why: "Server-side apply merges a `set` list by comparing whole items, and CEL cannot address one object of a set; for items of type object or array the server accepts the schema but warns that neither works as expected.",
		Fix: "Use `x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys` naming the fields that identify an item (make them `required`), or `atomic` to replace the list as a whole.",
	},
	RuleCRDListType: {
		Why: "`x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and `x-kubernetes-map-type` tell server-side apply how to merge. The server rejects combinations it cannot use: a `map` list without keys, keys that are not scalar fields of the items that are required or defaulted, a `set` of non-atomic objects, list types on non-arrays.",
		Fix: "For a list of objects identified by some of their fields, use `map` with those fields in `x-kubernetes-list-map-keys` and `required`; for scalars, `set`; otherwise `atomic`.",
	},
	RuleCRDMetadata: {
		Why: "The server requires a CRD's name to be exactly `<spec.names.plural>.<spec.group>`, the name under which the resource is served.",
		Fix: "Rename the CRD to `<plural>.<group>` (`widgets.example.com`), or change `spec.names.plural` or `spec.group` to match it.",
	},
	RuleCRDMutability: {
		Why: "The Immutable Fields design allows its markers only where they have a meaning: not at the schema root or in `metadata`, `x-kubernetes-key-mutability` only on maps and keyed lists, `AddOnly` and `RemoveOnly` only on collections. A misplaced marker means the intended rule is not what `kubectl crdlint immutable` (or a future server) would enforce.",
		Fix: "Move the marker to the field it is meant for, use a value the design knows (`Immutable`, `AddOnly`, `RemoveOnly`), or remove it. See [Immutable fields](https://github.com/kubectl-crdlint/kubectl-crdlint/blob/main/docs/immutability.md).",
	},
	RuleCRDMutabilityUnenforced: {
		Why: "`x-kubernetes-mutability` and `x-kubernetes-key-mutability` come from a Kubernetes design that was never implemented: every API server drops them as unknown fields (and refuses the CRD under `fieldValidation=Strict`, which `kubectl apply` sends by default), so the fields they mark can be changed freely.",
		Fix: "Express the rule as a CEL transition rule, which servers enforce (CRD validation rules are on by default since Kubernetes 1.25): `x-kubernetes-validations: [{rule: self == oldSelf, message: ...}]`. `kubectl crdlint immutable --to-cel` translates the markers.",
	},
	RuleCRDNames: {
		Why: "`spec.names` defines how the resource is addressed: the server requires lower-case DNS labels for `plural`, `singular` and `shortNames`, a `kind` and `listKind` that are valid and different, and rejects the CRD otherwise.",
		Fix: "Use a lower-case `plural` and `singular` (`widgets`, `widget`), a CamelCase `kind` (`Widget`) and a `listKind` of `<Kind>List`.",
	},
	RuleCRDNoPruning: {
		Why: "With `x-kubernetes-preserve-unknown-fields: true` at the root, the server keeps every field it does not know: a misspelt field (`replicsa: 3`) is stored as written and silently ignored by the controller, and `kubectl apply` never warns about it.",
		Fix: "Remove the root `x-kubernetes-preserve-unknown-fields` and describe the fields; keep it only on the sub-objects that really hold arbitrary content.",
	},
	RuleCRDPreserveUnknownFields: {
		Why: "`spec.preserveUnknownFields: true` was the v1beta1 way to turn pruning off for the whole object; `apiextensions.k8s.io/v1` forbids it and the server rejects the CRD.",
		Fix: "Remove `spec.preserveUnknownFields` (or set it to `false`), and put `x-kubernetes-preserve-unknown-fields: true` on the parts of the schema that must keep unknown fields.",
	},
	RuleCRDPrinterColumns: {
		Why: "The server rejects an `additionalPrinterColumns` entry with an unknown `type` or `format`, a missing name, or a `jsonPath` that is not a valid simple JSONPath (it must start with a dot).",
		Fix: "Use one of the types `integer`, `number`, `string`, `boolean` and `date`, and a `jsonPath` such as `.spec.size` or `.metadata.creationTimestamp`.",
	},
	RuleCRDScalePath: {
		Why: "The server accepts scale subresource paths that name no field of the schema, but `kubectl scale` and autoscalers then read and write a field the schema prunes: scaling silently does nothing.",
		Fix: "Point `specReplicasPath` and `statusReplicasPath` at the integer fields the schema has (`.spec.replicas`, `.status.replicas`), or add them to the schema.",
	},
	RuleCRDSchema: {
		Why: "Besides structurality, the server checks the schema's own values: `pattern` must be a valid regular expression, `x-kubernetes-int-or-string` and `x-kubernetes-embedded-resource` must be used as designed, every version needs a schema, and more. A violation rejects the CRD.",
		Fix: "Follow the message at the reported schema field (for a pattern, test it as an RE2 regular expression, which is what the server uses).",
	},
	RuleCRDScope: {
		Why: "`spec.scope` says whether objects live in a namespace. The server knows only `Namespaced` and `Cluster` (case matters) and rejects anything else.",
		Fix: "Set `scope: Namespaced` or `scope: Cluster`.",
	},
	RuleCRDSelectableFields: {
		Why: "`selectableFields` make fields usable in `kubectl get --field-selector`. The server accepts at most 8 per version, each a JSONPath to a field the schema has that is a string, integer or boolean outside lists, maps and `metadata`, and rejects the CRD otherwise.",
		Fix: "Select only scalar fields that exist in the version's schema, at most 8, each once.",
	},
	RuleCRDServerPanic: {
		Why: "The server's own validation code crashes on this CRD; it recovers and answers 500 Internal Server Error, so the CRD cannot be created, and the error says nothing about why. It happens with inputs the server's code does not expect, such as `selectableFields` together with a schema that is not structural.",
		Fix: "Fix the other findings of the CRD (a non-structural schema is the usual cause); the panic goes away with them.",
	},
	RuleCRDStatusNoSubresource: {
		Why: "Without the status subresource, `status` is an ordinary part of the object: users who can update the object can also write its status, `kubectl apply` overwrites what the controller recorded, and `metadata.generation` changes on every status write.",
		Fix: "Add `subresources: {status: {}}` to the version; the controller then writes status through the `/status` endpoint.",
	},
	RuleCRDStructural: {
		Why: "Since apiextensions.k8s.io/v1, every schema must be structural: every field has a `type`, `properties` and `additionalProperties` are not combined, junctors (`allOf`, `anyOf`, `oneOf`, `not`) only add constraints, `$ref` is not allowed, and under the root `metadata` only `name` and `generateName` may be constrained. The server needs that to prune, default and validate; it rejects the CRD otherwise.",
		Fix: "Give every property a `type`; use `properties` for known fields or `additionalProperties` for maps, not both; move types and defaults out of junctors; inline `$ref`s (controller-gen does this). See the Kubernetes documentation on structural schemas.",
	},
	RuleCRDSubresources: {
		Why: "The scale subresource's paths must be JSONPaths under `.spec` (`specReplicasPath`) and `.status` (`statusReplicasPath`, `labelSelectorPath`), and the server rejects the CRD otherwise.",
		Fix: "Write the paths as `.spec.replicas`, `.status.replicas` and `.status.selector` (or wherever the fields are under spec and status).",
	},
	RuleCRDUnrecognizedFormat: {
		Why: "The server validates only the formats it knows (`int32`, `int64`, `date-time`, `email`, `uri`, ...). Any other `format` is accepted but ignored: the schema looks like it checks the value and does not.",
		Fix: "Use a format the server knows, or express the constraint with `pattern`, `minimum`/`maximum` or a CEL rule.",
	},
	RuleCRDVersions: {
		Why: "The server requires at least one version, unique DNS-label names, exactly one `storage: true` version, a schema for each (in v1), and `deprecationWarning` only on deprecated versions; it rejects the CRD otherwise.",
		Fix: "Mark exactly one version `storage: true` (the one objects are stored in), and set `deprecated: true` on versions that carry a `deprecationWarning`.",
	},
	source.RuleNotAnObject: {
		Why: "kubectl sends each YAML document as one object; a document that is a list or a plain value cannot be sent, and kubectl refuses the whole file before anything is validated. It is usually a patch among the manifests, objects written as a YAML list, or an indentation mistake. Files that are not meant for kubectl are not reported: a file none of whose documents names a `kind` at its top level (Hugo data, translations, a JSON 6902 patch, test data) is skipped and counted as not a Kubernetes object, unless it is a list of objects.",
		Fix: "Make the document a mapping with `apiVersion`, `kind` and `metadata`, or move the data to a file of its own (or out of the inputs). Several objects go into separate documents (`---`) or a `kind: List`.",
	},
	source.RuleDuplicate: {
		Why: "YAML parsers disagree on repeated keys; kubectl keeps the last value, so the first one is silently lost, and a reader of the file sees a value that is not applied. kubectl decodes the file before it sends the object, so the server never sees the repeated key and `kubectl apply --validate=strict` does not refuse it (the server refuses a body that repeats a key under `fieldValidation=Strict`, but only clients that send the file's text unchanged reach that). Only documents that are Kubernetes objects are read for it: what kubectl never sends is no concern. Under `--validate=ignore` it is not reported.",
		Fix: "Keep one of the keys and merge what both meant into it.",
	},
	RuleUnknownField: {
		Why: "The server drops fields its schema does not know (for CRDs, fields the CustomResourceDefinition API lacks; for custom resources, fields the CRD's schema prunes). It is usually a typo, a field of another version, or an indentation mistake. `kubectl apply` sends `fieldValidation=Strict` unless told otherwise (`--validate`, default `strict`): the server then refuses the whole object with 400 Bad Request (`strict decoding error: unknown field \"spec.replicsa\"`) before validating anything else, so crdlint reports an error and nothing else about the object. Under `--validate=warn` the server drops the value with a warning and validates the rest; under `--validate=ignore` it drops it silently, and crdlint says nothing (`kubectl crdlint prune --dry-run` still shows what is dropped).",
		Fix: "Correct the spelling or indentation, or move the field to where the schema has it. If the field should be kept, add it to the CRD's schema.",
	},
	RuleUpdateCEL: {
		Why:       "Transition rules (`x-kubernetes-validations` that use `oldSelf`) judge an update by comparing the new value with the old. The server rejects an update that breaks one, so the change cannot be applied to an existing object.",
		Fix:       "Keep the value the rule protects, or replace the object (delete and create) if the change is intended.",
		NoExample: immutableOnly,
	},
	RuleUpdateImmutable: {
		Why:       "The field is marked immutable (or add-only, remove-only) by the Immutable Fields markers. Real servers do not enforce the markers (see `crd-mutability-unenforced`), so the update would be accepted and the intended rule broken.",
		Fix:       "Keep the value, or translate the markers to CEL with `kubectl crdlint immutable --to-cel` so that servers enforce them.",
		NoExample: immutableOnly,
	},
	RuleUpdateInvalid: {
		Why:       "The server validates an update like a create, except that it ratchets: values that did not change may keep breaking rules the old object already broke. What is left is a problem the update introduces.",
		Fix:       "Follow the message; the update's changed fields are the cause.",
		NoExample: immutableOnly,
	},
	RuleUpdateUnpaired: {
		Why:       "`kubectl crdlint immutable` pairs objects of OLD and NEW by group, kind, namespace and name, as the server knows them; an object found on one side only is a create or a delete, which transition rules do not judge. An object whose apiVersion changes between OLD and NEW is the same object, read back in NEW's version: under the CRD's None conversion it is relabelled and pruned by that version's schema and the update judged; under Webhook conversion the server asks the webhook, which crdlint cannot call, so the update is not judged.",
		Fix:       "Check that the object was not renamed or moved to another namespace by mistake; otherwise nothing to do.",
		NoExample: immutableOnly,
	},
	source.RuleAliasBudget: {
		Why: "YAML aliases (`*name`) repeat an anchored value (`&name`) wherever they appear, and aliases of aliases multiply: a few lines can expand to gigabytes (the \"billion laughs\"). kubectl refuses a document whose aliases expand too far (\"document contains excessive aliasing\"), and crdlint refuses it before expanding anything, so that one hostile file cannot exhaust the machine that checks it.",
		Fix: "Write the repeated values out, or anchor less: an alias of a large value that itself holds aliases is usually a generator's mistake. If the document is not meant to be applied, keep it out of the inputs (`--exclude`, `exclude:` in .crdlint.yaml).",
	},
	source.RuleDocumentSize: {
		Why:       "The API server refuses request bodies over 3 MiB, so a document this large is no manifest that can be applied; crdlint bounds what it reads so that a huge or endless input (a log, a dump, `/dev/zero`) costs one finding rather than all the memory of the machine. The rest of the file is still read.",
		Fix:       "Keep generated data, archives and dumps out of the inputs (`--exclude`, `exclude:` in .crdlint.yaml), or split a real manifest into several objects.",
		NoExample: "No example: the rule needs a document over 64 MiB, too large for a fixture; pkg/source's tests read one from a generated stream.",
	},
	source.RuleJSONAsYAML: {
		Why: "kubectl reads a file that starts with `{` as a stream of JSON values. Since Kubernetes 1.33, when a value does not decode as JSON, it reads the rest of the file as YAML, which allows what JSON does not (trailing commas, unquoted strings, `---` between documents): the file applies. kubectl 1.32 and earlier refuse it with the JSON decoder's error (`error parsing FILE: json: offset 193: invalid character '}' looking for beginning of object key string`), and so do `jq`, editors and every other JSON tool; the reported position is that error's.",
		Fix: "Make the file valid JSON (remove the trailing comma, quote the string), or, if it is meant to be YAML, write it as YAML and name it `.yaml`.",
	},
	source.RuleList: {
		Why: "kubectl reads any object with an `items` field as a list and sends each item as an object of its own. It cannot when an item is not an object or `items` is not a list (`unable to decode`), nor when an item is itself a list, and then sends nothing of the document; an item without `kind` or `apiVersion` is not sent (an item with neither takes the list's, `ConfigMapList` giving `ConfigMap`).",
		Fix: "Give every item `apiVersion` and `kind`, make every item an object, and put the items of an inner list directly in the outer one.",
	},
	source.RuleEtcdSize: {
		Why: "The API server stores every object in etcd, which refuses a write larger than its `--max-request-bytes`, 1.5 MiB by default: the server accepts the request and then fails to store the object (`etcdserver: request is too large`), even after dropping its managedFields. Custom resources are stored as the JSON kubectl sends, with the server's metadata added, so the size reported (the request body of `kubectl create` or `kubectl apply --server-side`) is the least they take; built-in kinds may be stored as protobuf, usually a little smaller, and a cluster's etcd may allow more. Client-side `kubectl apply` sends the object twice, the second time in its `last-applied-configuration` annotation, which the server refuses over 256 KiB (`metadata.annotations: Too long: must have at most 262144 bytes`).",
		Fix: "Keep large data out of the object (a volume, an object store, several smaller ConfigMaps or Secrets); for a CRD, trim descriptions from its schema (controller-gen `crd:maxDescLen=0`) or split it by version.",
	},
	source.RuleRequestSize: {
		Why: "The API server reads at most 3 MiB (3,145,728 bytes) of a create, update or patch request, a bound no flag changes, and answers a larger one with `413 Request Entity Too Large`. The size reported is the body `kubectl create` and `kubectl apply --server-side` send: the object's JSON; client-side `kubectl apply` sends more.",
		Fix: "Keep large data out of the object (a volume, an object store, several smaller objects); for a CRD, trim descriptions from its schema (controller-gen `crd:maxDescLen=0`) or split it by version.",
	},
	source.RuleYAML11Key: {
		Why: "kubectl reads YAML with the YAML 1.1 rules of sigs.k8s.io/yaml, in which the unquoted words `y`, `n`, `yes`, `no`, `on` and `off` (in any case) are booleans. As a key, such a word becomes the string `\"true\"` or `\"false\"`: `on: push` is sent as `\"true\": push`, and the field the author meant is missing (or pruned, or unknown). YAML 1.2 tools and editors show the word, so the mistake is invisible in review. Only documents that are Kubernetes objects are read for it: a GitHub workflow's `on:` is never sent by kubectl.",
		Fix: "Quote the key (`\"on\": push`, `'y': 1`) so that it stays a string; or rename the field if the schema has another name for it.",
	},
	source.RuleSyntax: {
		Why: "A file that is not valid YAML cannot be read by kubectl at all: nothing in it is applied, and every later document of the file is lost with it. Two kinds of files are not reported, as they are not meant for kubectl as they are: a document with Go template actions (`{{ .Values.x }}`, every `{{ ... }}` one that text/template parses) that does not parse is counted as a Go template, to render first (Helm's `files/`, clusterloader2 or Hugo templates; Helm's `templates/` are skipped by their path); and a file none of whose documents names a `kind` (KEP metadata, tool configuration) is skipped as not a Kubernetes object. Braces that are no Go template action, such as Argo's `{{args.x-y}}` unquoted, stay a syntax error: kubectl refuses them. Where go.yaml.in/yaml/v2 words a bad key as a Go value (`map[interface {}]interface {}{...}`), the message shows the key as YAML.",
		Fix: "Fix the syntax at the reported line: quote strings that contain `: ` or start with a special character, indent with spaces (never tabs), and put nothing but a comment after a `---` separator.",
	},
}
