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

// Rules is the catalogue, sorted by ID. Severity is the default; --strict
// raises duplicate-field and unknown-field to errors.
var Rules = []report.Rule{
	{ID: RuleCRCEL, Severity: report.Error, Doc: "A custom resource fails an x-kubernetes-validations CEL rule (or its evaluation errs or runs out of budget); the server rejects it."},
	{ID: RuleCRCRDRejected, Severity: report.Error, Doc: "The custom resource's CRD would itself be rejected, so the kind does not exist on the server."},
	{ID: RuleCRDecode, Severity: report.Error, Doc: "The custom resource cannot be decoded (malformed metadata, an embedded resource's apiVersion or kind not a string); the server answers 400."},
	{ID: RuleCRDeprecated, Severity: report.Warning, Doc: "The custom resource uses a deprecated version of its CRD; the server sends the CRD's deprecationWarning."},
	{ID: RuleCREmbedded, Severity: report.Error, Doc: "An x-kubernetes-embedded-resource object lacks apiVersion or kind, or has invalid metadata; the server rejects the custom resource."},
	{ID: RuleCRListType, Severity: report.Error, Doc: "A list with x-kubernetes-list-type set or map has duplicate items or keys; the server rejects the custom resource."},
	{ID: RuleCRMetadata, Severity: report.Error, Doc: "The custom resource's metadata is invalid (name, namespace for the scope, labels, annotations, finalizers); the server rejects it."},
	{ID: RuleCRNoCRD, Severity: report.Warning, Doc: "No CRD among the inputs and --crd defines this kind, so the custom resource was not validated (an error with --require-crds)."},
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
	{ID: RuleCRDEmptyObject, Severity: report.Warning, Doc: "An object schema has neither properties, additionalProperties nor x-kubernetes-preserve-unknown-fields: every field below it is silently pruned."},
	{ID: RuleCRDGroup, Severity: report.Error, Doc: "spec.group is missing or not a valid DNS subdomain with at least one dot; the server rejects the CRD."},
	{ID: RuleCRDInvalid, Severity: report.Error, Doc: "The server rejects the CRD for a reason no more specific rule covers."},
	{ID: RuleCRDListSetObjects, Severity: report.Warning, Doc: "x-kubernetes-list-type: set on items of type object or array is not supported by server-side apply or CEL validation rules (server warning)."},
	{ID: RuleCRDListType, Severity: report.Error, Doc: "x-kubernetes-list-type, x-kubernetes-list-map-keys or x-kubernetes-map-type is invalid; the server rejects the CRD."},
	{ID: RuleCRDMetadata, Severity: report.Error, Doc: "The CRD's metadata is invalid; its name must be <spec.names.plural>.<spec.group>."},
	{ID: RuleCRDMutability, Severity: report.Error, Doc: "An x-kubernetes-mutability or x-kubernetes-key-mutability marker (Immutable Fields design) is misplaced or has an unknown value: at the root or in metadata, key-mutability on objects with properties or scalars, AddOnly/RemoveOnly on arrays and maps."},
	{ID: RuleCRDMutabilityUnenforced, Severity: report.Warning, Doc: "The CRD carries Immutable Fields markers, which no Kubernetes API server knows: they are dropped (rejected under --strict) and never enforced. kubectl crdlint immutable checks them offline."},
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
	{ID: source.RuleNotAnObject, Severity: report.Error, Doc: "A YAML document is a list or a scalar, not an object; kubectl cannot send it."},
	{ID: source.RuleDuplicate, Severity: report.Warning, Doc: "A mapping repeats a key: kubectl sends only the last value, so the first is silently lost. An error with --strict."},
	{ID: RuleUnknownField, Severity: report.Warning, Doc: "A field is unknown to the schema and would be dropped by the server; rejected under fieldValidation=Strict (--strict)."},
	{ID: RuleUpdateCEL, Severity: report.Error, Doc: "immutable: an x-kubernetes-validations rule (a transition rule with oldSelf, or any rule on a changed value) refuses the update from OLD to NEW."},
	{ID: RuleUpdateImmutable, Severity: report.Error, Doc: "immutable: the update breaks an x-kubernetes-mutability or x-kubernetes-key-mutability marker (Immutable Fields design); real servers ignore the markers, see --to-cel."},
	{ID: RuleUpdateInvalid, Severity: report.Error, Doc: "immutable: the server refuses the update for another reason (schema, metadata, list types), after ratcheting unchanged values."},
	{ID: RuleUpdateUnpaired, Severity: report.Warning, Doc: "immutable: an object is only in OLD or only in NEW, so there is no update to judge."},
	{ID: source.RuleSyntax, Severity: report.Error, Doc: "The file is not valid YAML (or has an invalid document separator)."},
}

// ruleByID indexes Rules.
var ruleByID = func() map[string]report.Rule {
	m := make(map[string]report.Rule, len(Rules))
	for _, r := range Rules {
		m[r.ID] = r
	}
	return m
}()
