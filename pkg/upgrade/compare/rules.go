package compare

import (
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// Rule IDs. They are part of the tool's interface (--disable, JSON, SARIF,
// .crdlint.yaml): never rename or reuse one. Each rule has one severity,
// so that overriding it in the configuration means one thing.
const (
	RuleBoundTightened         = "upgrade-bound-tightened"
	RuleCELRuleAdded           = "upgrade-cel-rule-added"
	RuleCELRuleChanged         = "upgrade-cel-rule-changed"
	RuleCELRuleRemoved         = "upgrade-cel-rule-removed"
	RuleConversionChanged      = "upgrade-conversion-changed"
	RuleConversionRemoved      = "upgrade-conversion-removed"
	RuleDefaultChanged         = "upgrade-default-changed"
	RuleEmbeddedChanged        = "upgrade-embedded-changed"
	RuleEnumAdded              = "upgrade-enum-added"
	RuleEnumRemoved            = "upgrade-enum-removed"
	RuleFieldRemoved           = "upgrade-field-removed"
	RuleFormatChanged          = "upgrade-format-changed"
	RuleIntOrStringRemoved     = "upgrade-int-or-string-removed"
	RuleJunctorChanged         = "upgrade-junctor-changed"
	RuleKindChanged            = "upgrade-kind-changed"
	RuleListTypeChanged        = "upgrade-list-type-changed"
	RuleMergeStrategyChanged   = "upgrade-merge-strategy-changed"
	RuleMultipleOfChanged      = "upgrade-multiple-of-changed"
	RuleNamesChanged           = "upgrade-names-changed"
	RuleNullableRemoved        = "upgrade-nullable-removed"
	RulePatternChanged         = "upgrade-pattern-changed"
	RulePreserveUnknownRemoved = "upgrade-preserve-unknown-removed"
	RulePrinterColumnChanged   = "upgrade-printer-column-changed"
	RulePrinterColumnRemoved   = "upgrade-printer-column-removed"
	RuleRequiredAdded          = "upgrade-required-added"
	RuleRequiredAddedOptional  = "upgrade-required-added-optional-parent"
	RuleScaleChanged           = "upgrade-scale-changed"
	RuleScopeChanged           = "upgrade-scope-changed"
	RuleSelectableFieldRemoved = "upgrade-selectable-field-removed"
	RuleStatusSubresourceAdded = "upgrade-status-subresource-added"
	RuleStorageVersionChanged  = "upgrade-storage-version-changed"
	RuleStoredVersionRemoved   = "upgrade-stored-version-removed"
	RuleSubresourceRemoved     = "upgrade-subresource-removed"
	RuleTransitionRuleAdded    = "upgrade-transition-rule-added"
	RuleTypeChanged            = "upgrade-type-changed"
	RuleTypeWidened            = "upgrade-type-widened"
	RuleVersionDeprecated      = "upgrade-version-deprecated"
	RuleVersionRemoved         = "upgrade-version-removed"
	RuleVersionUnserved        = "upgrade-version-unserved"
)

// Rules are the comparison's rules, sorted by ID, each with its severity
// and a line of doc; their Why and Fix are the command's (upgrade.Rules).
// Severity follows one principle (docs/upgrade.md): Error when something
// that works today stops working or is lost (the server refuses the CRD
// update, refuses to create or update an object it accepted under OLD, or
// drops stored data); Warning when clients may notice but the server and
// the stored data do not. A rule's severity is the one without objects;
// a tightening the objects judge and none of them breaks is a warning
// instead (pkg/upgrade/replay's Replayer.Changes).
var Rules = []report.Rule{
	{ID: RuleBoundTightened, Severity: report.Error, Doc: "upgrade: a minimum, maximum, length, items or properties bound is added or tightened (or made exclusive): values OLD accepted are refused. With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleCELRuleAdded, Severity: report.Error, Doc: "upgrade: an x-kubernetes-validations rule without oldSelf is added to an existing field: it may refuse objects OLD accepted. With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleCELRuleChanged, Severity: report.Error, Doc: "upgrade: an x-kubernetes-validations rule's expression (or optionalOldSelf) changed: it may refuse objects OLD accepted. With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleCELRuleRemoved, Severity: report.Warning, Doc: "upgrade: an x-kubernetes-validations rule is removed: the server accepts more, but clients relying on its invariant (immutability, for a transition rule) may notice."},
	{ID: RuleConversionChanged, Severity: report.Warning, Doc: "upgrade: the conversion strategy becomes Webhook, or the webhook's endpoint or review versions change: reads and writes in other versions now depend on that webhook."},
	{ID: RuleConversionRemoved, Severity: report.Error, Doc: "upgrade: the conversion strategy goes from Webhook to None while several versions remain: objects are only relabelled between versions, and fields a version lacks are pruned."},
	{ID: RuleDefaultChanged, Severity: report.Warning, Doc: "upgrade: a default is added, changed or removed: objects read or created afterwards get a different value where the field is unset."},
	{ID: RuleEmbeddedChanged, Severity: report.Error, Doc: "upgrade: x-kubernetes-embedded-resource is added (apiVersion, kind and metadata become required and validated) or removed (they are pruned unless the schema lists them). With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleEnumAdded, Severity: report.Error, Doc: "upgrade: an enum is added to a field that had none: every other value OLD accepted is refused. With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleEnumRemoved, Severity: report.Error, Doc: "upgrade: values are removed from an enum: objects holding them are refused. With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleFieldRemoved, Severity: report.Error, Doc: "upgrade: a field (or every key of a map) is no longer in the schema and nothing preserves unknown fields there: stored values are pruned on the next write and clients setting it lose it. With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleFormatChanged, Severity: report.Error, Doc: "upgrade: a format the server validates is added or changed: values OLD accepted may be refused. Formats the server does not validate are not reported. With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleIntOrStringRemoved, Severity: report.Error, Doc: "upgrade: x-kubernetes-int-or-string is removed: values of the type no longer allowed are refused. With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleJunctorChanged, Severity: report.Error, Doc: "upgrade: allOf, anyOf, oneOf or not is added or changed: it may refuse values OLD accepted, which the comparison does not decide. With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleKindChanged, Severity: report.Error, Doc: "upgrade: spec.names.kind changed: the server refuses the update once the CRD is established."},
	{ID: RuleListTypeChanged, Severity: report.Error, Doc: "upgrade: x-kubernetes-list-type becomes set or map (from atomic, or set to map) or x-kubernetes-list-map-keys change: lists OLD accepted with duplicate items or keys are refused. With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleMergeStrategyChanged, Severity: report.Warning, Doc: "upgrade: a list becomes atomic (or map becomes set) or x-kubernetes-map-type changes: server-side apply merges and owns the field differently."},
	{ID: RuleMultipleOfChanged, Severity: report.Error, Doc: "upgrade: multipleOf is added, or changed to a value that does not divide the old one: values OLD accepted are refused. With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleNamesChanged, Severity: report.Warning, Doc: "upgrade: a short name or category is removed, or the singular or list kind changes: kubectl commands and clients using them stop finding the resource."},
	{ID: RuleNullableRemoved, Severity: report.Error, Doc: "upgrade: nullable: true is removed: null values are refused (or pruned where a default applies). With objects, a warning when none of the objects judged breaks it."},
	{ID: RulePatternChanged, Severity: report.Error, Doc: "upgrade: a pattern is added or changed: whether it refuses values OLD accepted cannot be decided in general, so it is reported as a tightening. With objects, a warning when none of the objects judged breaks it."},
	{ID: RulePreserveUnknownRemoved, Severity: report.Error, Doc: "upgrade: x-kubernetes-preserve-unknown-fields is removed: fields not in the schema are pruned on the next write (stored data is lost). With objects, a warning when none of the objects judged breaks it."},
	{ID: RulePrinterColumnChanged, Severity: report.Warning, Doc: "upgrade: an additionalPrinterColumns entry changes its jsonPath, type, format or priority: kubectl get shows something else."},
	{ID: RulePrinterColumnRemoved, Severity: report.Warning, Doc: "upgrade: an additionalPrinterColumns entry is removed: kubectl get no longer shows it."},
	{ID: RuleRequiredAdded, Severity: report.Error, Doc: "upgrade: a field without a default becomes required where its parent is always there (required up to the top level, or present in the given objects): objects without it are refused on create. With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleRequiredAddedOptional, Severity: report.Warning, Doc: "upgrade: a field without a default becomes required under an optional parent that no given object has: only clients that set the parent must now set the field."},
	{ID: RuleScaleChanged, Severity: report.Error, Doc: "upgrade: a scale subresource path changes, or labelSelectorPath is removed: kubectl scale and autoscalers read and write another field, or find no selector."},
	{ID: RuleScopeChanged, Severity: report.Error, Doc: "upgrade: spec.scope changed: the server refuses the update once the CRD is established."},
	{ID: RuleSelectableFieldRemoved, Severity: report.Error, Doc: "upgrade: a selectableFields entry is removed: list and watch requests with that field selector are refused."},
	{ID: RuleStatusSubresourceAdded, Severity: report.Error, Doc: "upgrade: the status subresource is added: writes of status through the main resource are silently ignored from now on."},
	{ID: RuleStorageVersionChanged, Severity: report.Warning, Doc: "upgrade: the storage version moves: new writes are stored in another version, and objects stored today stay in the old one until rewritten."},
	{ID: RuleStoredVersionRemoved, Severity: report.Error, Doc: "upgrade: a version in status.storedVersions is removed from spec.versions: the server refuses the update until stored objects are migrated."},
	{ID: RuleSubresourceRemoved, Severity: report.Error, Doc: "upgrade: the status or scale subresource is removed: requests to it fail."},
	{ID: RuleTransitionRuleAdded, Severity: report.Error, Doc: "upgrade: an x-kubernetes-validations rule with oldSelf is added to an existing field: transition rules are never ratcheted, so updates OLD allowed may be refused. It stays an error with objects: they show only that a labels-only update passes."},
	{ID: RuleTypeChanged, Severity: report.Error, Doc: "upgrade: a field's type changes (or a type is set where there was none): stored values of the old type are refused. With objects, a warning when none of the objects judged breaks it."},
	{ID: RuleTypeWidened, Severity: report.Warning, Doc: "upgrade: a field's type is widened (integer to number, int-or-string added, type removed): the server accepts more, clients decoding the old type may fail."},
	{ID: RuleVersionDeprecated, Severity: report.Warning, Doc: "upgrade: a version becomes deprecated: clients get a warning on every request."},
	{ID: RuleVersionRemoved, Severity: report.Error, Doc: "upgrade: a served version not in status.storedVersions is removed: requests for it fail."},
	{ID: RuleVersionUnserved, Severity: report.Error, Doc: "upgrade: a version is no longer served: requests for it fail."},
}

// severity is each rule's severity; a Change always carries its rule's.
var severity = func() map[string]report.Severity {
	m := make(map[string]report.Severity, len(Rules))
	for _, r := range Rules {
		m[r.ID] = r.Severity
	}
	return m
}()

// ServerRule is the comparison's rule for an error of the server's
// verdict on the CRD update (field in the user's notation, message the
// server's) that a comparison rule also reports: a stored version removed,
// the scope or kind changed. The server's refusal is reported once, with
// that rule and in the server's words, and the comparison's change of the
// rule is left out. "" for other errors.
func ServerRule(field, message string) string {
	switch {
	case strings.Contains(message, "was previously a storage version"):
		return RuleStoredVersionRemoved
	case field == "spec.scope" && strings.Contains(message, "field is immutable"):
		return RuleScopeChanged
	case field == "spec.names.kind" && strings.Contains(message, "field is immutable"):
		return RuleKindChanged
	}
	return ""
}
