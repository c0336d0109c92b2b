package upgrade

import (
	"slices"
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/compare"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/replay"
)

// RuleCRDUnpaired is the rule of pairing OLD's CRDs with NEW's (Judge).
// Like every rule ID, never renamed or reused.
const RuleCRDUnpaired = "upgrade-crd-unpaired"

// RuleOldV1beta1 is OLD's CRD written as apiextensions.k8s.io/v1beta1
// (FileCRDs).
const RuleOldV1beta1 = "upgrade-old-v1beta1"

// Rules are the upgrade command's rules, sorted by ID, each with its Why
// and Fix (below): the comparison's (compare.Rules), the replay's
// (replay.Rules) and pairing's. pkg/ruleset joins them with the other
// packages' rules.
var Rules = withSeverity(report.WithProse(slices.SortedFunc(slices.Values(slices.Concat(compare.Rules, replay.Rules, []report.Rule{
	{ID: RuleCRDUnpaired, Severity: report.Warning, Doc: "upgrade: a CRD is only in OLD or only in NEW (or not installed in the cluster): nothing to compare; applying NEW leaves a CRD only in OLD as it is."},
	{ID: RuleOldV1beta1, Severity: report.Warning, Doc: "upgrade: OLD's CRD is apiextensions.k8s.io/v1beta1: it is compared as the v1 CRD the server stores for it, v1beta1's defaults applied (preserveUnknownFields true unless set)."},
})), func(a, b report.Rule) int { return strings.Compare(a.ID, b.ID) }), prose))

// withSeverity ends each rule's Why (filled from prose: the rule's page,
// docs/rules/<ID>.md, `kubectl crdlint explain` and SARIF's help) with
// the rule's defence of its severity, where it has one.
func withSeverity(rules []report.Rule) []report.Rule {
	for i, r := range rules {
		if sev := severityProse[r.ID]; sev != "" {
			rules[i].Why += "\n\n**Severity.** " + sev
		}
	}
	return rules
}

// judgedSeverity is the severity defence of the rules the objects judge
// (judgedRules): what breaking the rule means for one object follows it.
const judgedSeverity = "An error without objects: nothing shows that no object in use is refused. " +
	"With objects (`OBJECTS`, or `--live`), each is replayed through NEW; when at least one was judged in the change's version " +
	"(its create or its labels-only update, accepted by OLD) and none breaks the change, nothing that exists stops working: " +
	"the change is a warning that says how many objects were judged and how many of them set the field. " +
	"An object that breaks it keeps the error, at the object, and so does the change. " +
	"A change to `status` is judged only by objects that store a status: manifests have none, `--live` reads the cluster's. "

// severityProse defends each comparison rule's severity against what the
// server and clients do (docs/upgrade.md#severity).
var severityProse = map[string]string{
	compare.RuleBoundTightened:         judgedSeverity + "An object breaks it when NEW refuses its create or update at or below the field.",
	compare.RuleCELRuleAdded:           judgedSeverity + "The rule is evaluated on each object as NEW reads it: an object breaks it when the rule refuses it.",
	compare.RuleCELRuleChanged:         judgedSeverity + "The new rule is evaluated on each object as NEW reads it, the old one as OLD does: an object breaks it when the new rule refuses what the old one accepted. When the new rule uses `oldSelf`, it stays an error, as `upgrade-transition-rule-added` does.",
	compare.RuleCELRuleRemoved:         "A warning: the server accepts everything it accepted before and no stored value changes; only clients relying on the rule's guarantee can notice.",
	compare.RuleConversionChanged:      "A warning: the server accepts the update and the objects as before; whether the webhook answers at its endpoint is a matter of deployment, which neither the CRDs nor the objects show.",
	compare.RuleConversionRemoved:      "An error: the server refuses nothing, but what the webhook converted between versions is relabelled instead, and fields a version lacks are pruned on the next write. What the webhook did cannot be run offline, so the objects do not judge it.",
	compare.RuleDefaultChanged:         "A warning: no object is refused and no stored value is dropped; objects that leave the field unset read another value.",
	compare.RuleEmbeddedChanged:        judgedSeverity + "An object breaks it when NEW refuses it at or below the field (added: `apiVersion`, `kind` or `metadata` missing or invalid), or prunes stored fields there (removed).",
	compare.RuleEnumAdded:              judgedSeverity + "An object breaks it when NEW refuses its value.",
	compare.RuleEnumRemoved:            judgedSeverity + "An object breaks it when NEW refuses its value.",
	compare.RuleFieldRemoved:           judgedSeverity + "An object breaks it when it stores the field (or something below it), which NEW prunes at its next write: that is data lost, reported at the object as `upgrade-object-data-lost`.",
	compare.RuleFormatChanged:          judgedSeverity + "An object breaks it when NEW refuses its value.",
	compare.RuleIntOrStringRemoved:     judgedSeverity + "An object breaks it when NEW refuses its value.",
	compare.RuleJunctorChanged:         judgedSeverity + "Junctors constrain values as patterns do, and whether a changed one accepts everything the old one did is not decided here, so without objects it is a tightening. An object breaks it when NEW refuses it at or below the field (or refuses it with a junctor's error, which names no field).",
	compare.RuleKindChanged:            "An error: the server refuses the CRD update itself once the CRD is established.",
	compare.RuleListTypeChanged:        judgedSeverity + "An object breaks it when NEW refuses its list (duplicate items or keys).",
	compare.RuleMergeStrategyChanged:   "A warning: every object is accepted as before and nothing stored changes; only how server-side apply merges the field between managers does.",
	compare.RuleMultipleOfChanged:      judgedSeverity + "An object breaks it when NEW refuses its value.",
	compare.RuleNamesChanged:           "A warning: the server serves the resource as before and refuses no request by its resource name (what manifests, controllers and generated clients use); only people and scripts using the removed short name or category, or the old singular or list kind, stop finding it.",
	compare.RuleNullableRemoved:        judgedSeverity + "An object breaks it when it holds null there (dropped, defaulted or, in a list, refused from now on), or when NEW refuses it at or below the field.",
	compare.RulePatternChanged:         judgedSeverity + "An object breaks it when NEW refuses its value.",
	compare.RulePreserveUnknownRemoved: judgedSeverity + "An object breaks it when it stores fields below the node that NEW prunes at its next write (data lost, reported at the object).",
	compare.RulePrinterColumnChanged:   "A warning: only the table `kubectl get` prints changes; the API and the stored data do not.",
	compare.RulePrinterColumnRemoved:   "A warning: only the table `kubectl get` prints changes; the API and the stored data do not.",
	compare.RuleRequiredAdded:          judgedSeverity + "An object breaks it when NEW refuses it for the missing field.",
	compare.RuleRequiredAddedOptional:  "A warning: no object given sets the parent, so none is refused; only clients that start setting the parent must set the field. When an object sets the parent, the change is `upgrade-required-added`.",
	compare.RuleScaleChanged:           "An error: the server refuses no object, but `kubectl scale` and autoscalers read and write another field, or (`labelSelectorPath` removed) the HorizontalPodAutoscaler finds no selector and stops scaling: clients that work today stop working, and objects cannot show which clients scale them. A `labelSelectorPath` added is not reported: the scale subresource then reports a selector it did not, and nothing it reported moves.",
	compare.RuleScopeChanged:           "An error: the server refuses the CRD update itself once the CRD is established.",
	compare.RuleSelectableFieldRemoved: "An error: the server refuses list and watch requests that select on the field, so clients that use it fail; objects cannot show which clients select on it.",
	compare.RuleStatusSubresourceAdded: "An error although the server refuses nothing: under OLD there is no `/status`, so every client that writes status today writes it through the main resource, and under NEW those writes are accepted and silently ignored. Objects cannot show it. If the controller moves to `/status` in the same release and nothing else writes status, turn the rule off for that upgrade.",
	compare.RuleStorageVersionChanged:  "A warning: every object stays readable, as both versions are kept; new writes are stored in another version, which matters once the old one is to be removed (`upgrade-stored-version-removed`).",
	compare.RuleStoredVersionRemoved:   "An error: the server refuses the CRD update itself.",
	compare.RuleSubresourceRemoved:     "An error: requests to the removed subresource fail with 404; objects cannot show which clients use it.",
	compare.RuleTransitionRuleAdded:    "An error, with or without objects. Given objects, the rule is evaluated on a labels-only update of each (a controller's write) and the message says which it refuses; but the updates a transition rule is written to refuse (changing an immutable field, a value going backwards) are refused whatever the objects hold, and they worked under OLD.",
	compare.RuleTypeChanged:            judgedSeverity + "An object breaks it when NEW refuses its value.",
	compare.RuleTypeWidened:            "A warning: the server accepts everything it accepted before; only clients decoding the old type may fail once someone writes a value of the new one.",
	compare.RuleVersionDeprecated:      "A warning: requests in the version still succeed, with a warning.",
	compare.RuleVersionRemoved:         "An error: requests in the version fail with 404. The objects given show the manifests (and, with `--live`, the managers writing them) in the version (`upgrade-object-version-unserved`), but not every client that reads it, so it stays an error whatever the objects hold.",
	compare.RuleVersionUnserved:        "An error: requests in the version fail with 404. The objects given show the manifests (and, with `--live`, the managers writing them) in the version (`upgrade-object-version-unserved`), but not every client that reads it, so it stays an error whatever the objects hold.",
}

// prose says, per rule, why the change matters to a cluster that applies
// NEW over OLD, and what to do about it, in Markdown.
var prose = map[string]report.Prose{
	compare.RuleBoundTightened: {
		Why: "The server validates every create and update against NEW's bounds. Objects stored under OLD keep their values until they are next written, and then the write is refused: a controller's status update or a `kubectl apply` of an unchanged manifest fails, unless ratcheting lets the unchanged value through (it does for updates, never for creates from the same templates).",
		Fix: "Keep the old bound, or loosen it, until every stored object and every manifest fits the new one; pass the objects (`kubectl crdlint upgrade OLD NEW OBJECTS`, or `--live`) to see which ones break it. If the tighter bound is needed, serve it in a new version and migrate.",
	},
	compare.RuleCELRuleAdded: {
		Why: "A new `x-kubernetes-validations` rule applies to every create, and to every update that changes the value it sits on: objects that break it can no longer be recreated from their manifests or changed. Whether any does depends on the objects; without them crdlint cannot tell, so it is reported as a tightening.",
		Fix: "Give the objects that exist (`OBJECTS`, or `--live`) so the rule is judged on them: the message then says how many it refuses. Fix those objects before applying NEW, or relax the rule (for example guard it with `has()` for optional fields).",
	},
	compare.RuleCELRuleChanged: {
		Why: "A changed rule expression may refuse objects the old one accepted, and crdlint cannot compare two expressions in general. `optionalOldSelf` changes which updates a transition rule sees at all.",
		Fix: "Give the objects that exist (`OBJECTS`, or `--live`) so the new rule is judged on them against the old; fix the objects it refuses, or keep the old expression.",
	},
	compare.RuleCELRuleRemoved: {
		Why: "Without the rule the server accepts more, so nothing that works today breaks. But clients and controllers may rely on what the rule guaranteed (a transition rule `self == oldSelf` made a field immutable): after the upgrade that is no longer true.",
		Fix: "Check that no controller relies on the invariant, or keep the rule. Disable the rule for this CRD in .crdlint.yaml if the removal is intended.",
	},
	compare.RuleConversionChanged: {
		Why: "With a conversion webhook, every read and write in a version other than the stored one goes through the webhook: if it is not deployed, not reachable, or speaks other review versions, those requests fail, and the whole resource can become unusable (lists, watches, garbage collection).",
		Fix: "Deploy and test the webhook at the new endpoint before applying NEW, with a `conversionReviewVersions` it understands (`v1`). Keep its CA bundle current.",
	},
	compare.RuleConversionRemoved: {
		Why: "With strategy `None` the server converts between versions by changing `apiVersion` only. Where the versions' schemas differ, objects read in another version than they are stored in lose the fields that version does not have, and keep fields under the wrong names: data the webhook used to convert is pruned on the next write.",
		Fix: "Keep the webhook while several versions with different schemas are served, or first migrate every object to one version and stop serving the others.",
	},
	compare.RuleDefaultChanged: {
		Why: "Defaults are applied when an object is read from storage and when it is written. With a new or changed default, objects that leave the field unset get another value: stored objects change on the next read, and controllers see a different desired state without anyone editing the object.",
		Fix: "Make sure controllers behave the same with the new value for objects that do not set the field, or keep the old default. Announce the change with the release.",
	},
	compare.RuleEmbeddedChanged: {
		Why: "`x-kubernetes-embedded-resource: true` makes the server require and validate `apiVersion`, `kind` and `metadata` of the embedded object. Added, stored objects without them are refused on their next write; removed, those fields are pruned unless the schema lists them, so stored data is lost.",
		Fix: "When adding the marker, make sure every stored object and manifest has `apiVersion` and `kind` there. When removing it, list `apiVersion`, `kind` and `metadata` in the schema (or keep `x-kubernetes-preserve-unknown-fields`) to keep the data.",
	},
	compare.RuleEnumAdded: {
		Why: "An enum on a field that had none accepts only the listed values: every other value OLD accepted is refused on create, and on any update that changes it.",
		Fix: "List every value in use today (give the objects, or `--live`, to see which ones are refused), or serve the enum in a new version and migrate.",
	},
	compare.RuleEnumRemoved: {
		Why: "Objects that hold a removed value are refused on create, and on updates that touch the field; manifests in repositories that use it stop applying.",
		Fix: "Keep the value in the enum until no object and manifest uses it, or serve the narrower enum in a new version and migrate.",
	},
	compare.RuleFieldRemoved: {
		Why: "The server prunes fields its schema does not describe. A field removed from the schema is dropped from every stored object at its next write, and silently dropped from every request that sets it: the data is lost, and clients still setting it get no error.",
		Fix: "Keep the field (marked deprecated in its description) until no client sets it and no controller needs it; or move its data to the new field first. Where unknown content must be kept, set `x-kubernetes-preserve-unknown-fields: true` on the parent.",
	},
	compare.RuleFormatChanged: {
		Why: "The server validates the formats it knows (`date-time`, `email`, `uri`, `int32`, ...). A new or changed format may refuse values OLD accepted, on create and on updates that change them.",
		Fix: "Check the values in use against the new format (give the objects, or `--live`), or express the constraint in a new version.",
	},
	compare.RuleIntOrStringRemoved: {
		Why: "`x-kubernetes-int-or-string` accepts both `8080` and `\"http\"`. Narrowed to one type, values of the other are refused on the next create or update, and clients that send them break.",
		Fix: "Keep `x-kubernetes-int-or-string` until no object holds the other type, or serve the narrower type in a new version and migrate.",
	},
	compare.RuleJunctorChanged: {
		Why: "`allOf`, `anyOf`, `oneOf` and `not` add constraints that crdlint does not compare: the change may refuse values OLD accepted, or not, on create and on updates that change them.",
		Fix: "Review the junctor's new constraints against the values in use (give the objects, or `--live`: the replay judges creates and updates with NEW's full schema).",
	},
	compare.RuleKindChanged: {
		Why: "The server refuses to change `spec.names.kind` of an established CRD: applying NEW fails, and with it everything else NEW changes.",
		Fix: "Keep the kind. A new kind is a new resource: create a new CRD (with a new plural and name) and migrate objects to it.",
	},
	compare.RuleListTypeChanged: {
		Why: "`set` lists may not repeat a value and `map` lists may not repeat keys. A list that becomes `set` or `map`, or whose map keys change, refuses objects that OLD accepted with duplicates, on create and on updates that touch the list.",
		Fix: "Check that no object has duplicate items or keys (give the objects, or `--live`), or serve the new list type in a new version.",
	},
	compare.RuleMergeStrategyChanged: {
		Why: "Server-side apply merges `atomic` lists as a whole and `set` or `map` lists item by item, and owns fields accordingly. When the strategy changes, applies from several managers (a user and a controller) merge differently: one may now overwrite what the other set.",
		Fix: "Check that the clients and controllers applying the field expect the new merge behaviour, or keep the old list or map type.",
	},
	compare.RuleMultipleOfChanged: {
		Why: "`multipleOf` refuses values that are not multiples of it. Added, or changed to a value that does not divide the old one, it refuses values OLD accepted, on create and on updates that change them.",
		Fix: "Check the values in use (give the objects, or `--live`), or change `multipleOf` only to a divisor of the old value.",
	},
	compare.RuleNamesChanged: {
		Why: "Short names and categories are how people and scripts address the resource (`kubectl get wd`, `kubectl get all`); the singular name and list kind are used by clients and generated code. The server accepts the change, but those commands and clients stop finding the resource.",
		Fix: "Keep the old short names and categories next to the new ones, and the singular name and list kind as they are, unless every client is updated.",
	},
	compare.RuleNullableRemoved: {
		Why: "With `nullable: true` an object may hold `null` for the field. Without it, the server drops null fields (or applies the default) and refuses null items in lists: objects that hold them change on the next write, or are refused.",
		Fix: "Keep `nullable: true` until no object holds a null there, or give the field a default that stands in for null.",
	},
	compare.RulePatternChanged: {
		Why: "The server refuses strings that do not match a field's `pattern`, on create and on updates that change them. Whether a new or changed regular expression refuses values the old one accepted cannot be decided in general, so crdlint reports it as a tightening.",
		Fix: "Check the values in use against the new pattern (give the objects, or `--live`: the replay judges them), or widen the pattern so that it accepts everything the old one did.",
	},
	compare.RulePreserveUnknownRemoved: {
		Why: "`x-kubernetes-preserve-unknown-fields: true` keeps fields the schema does not describe. Removed, the server prunes them from every stored object at its next write: the data is silently lost.",
		Fix: "Describe every field objects hold there before removing the marker (give the objects, or `--live`: the replay reports each field lost), or keep the marker.",
	},
	compare.RulePrinterColumnChanged: {
		Why: "`kubectl get` shows the printer columns; scripts that parse its output, and people used to it, see another value or type once the column's `jsonPath`, `type`, `format` or `priority` changes.",
		Fix: "Add a new column instead of changing one that scripts may read, or announce the change with the release.",
	},
	compare.RulePrinterColumnRemoved: {
		Why: "`kubectl get` no longer shows the column: scripts that parse its output and people who rely on it lose the value.",
		Fix: "Keep the column, or announce its removal with the release.",
	},
	compare.RuleRequiredAdded: {
		Why: "A newly required field without a default is refused when missing, on every create: manifests and templates that do not set it stop applying, and updates of stored objects that lack it are refused unless ratcheting lets them through.",
		Fix: "Give the field a `default` (then objects without it get the default and stay valid), or keep it optional and enforce it in the controller; or serve the required field in a new version.",
	},
	compare.RuleRequiredAddedOptional: {
		Why: "The field is required only when its optional parent is set, and no given object sets the parent: nothing existing breaks, but clients that start setting the parent must now set the field too.",
		Fix: "Give the field a `default`, or make sure clients that set the parent set it. Give the objects (or `--live`) to be sure none sets the parent: then it is reported as an error.",
	},
	compare.RuleScaleChanged: {
		Why: "`kubectl scale`, the HorizontalPodAutoscaler and other autoscalers read and write the replica count through the scale subresource's paths, and the HorizontalPodAutoscaler finds the pods to measure with its `labelSelectorPath`. Changed paths make them read and write another field: scaling silently stops working, or changes the wrong field; without `labelSelectorPath` the HorizontalPodAutoscaler refuses the target (\"selector is required\").",
		Fix: "Keep the scale subresource's paths, or make sure the controller reads the replica count from the new path and migrate the values.",
	},
	compare.RuleScopeChanged: {
		Why: "The server refuses to change `spec.scope` of an established CRD: applying NEW fails, and with it everything else NEW changes. A namespaced resource cannot become cluster-scoped in place (or the other way).",
		Fix: "Keep the scope. A resource with another scope is a new resource: create a new CRD (new group or plural) and migrate objects to it.",
	},
	compare.RuleSelectableFieldRemoved: {
		Why: "List and watch requests with a field selector on a field that is no longer selectable are refused: `kubectl get --field-selector` and controllers that watch with it fail.",
		Fix: "Keep the selectable field until no client selects on it.",
	},
	compare.RuleStatusSubresourceAdded: {
		Why: "With the status subresource, the main resource ignores changes to `status`, and status can only be written through `/status`. A controller that writes status with an ordinary update keeps getting success, but its status is silently dropped.",
		Fix: "Update the controller to write status through the status subresource (`UpdateStatus`, `client.Status().Update`) before applying NEW.",
	},
	compare.RuleStorageVersionChanged: {
		Why: "New writes are stored in the new storage version; objects stored today stay in the old one until they are rewritten. The old version must stay in `spec.versions` (and in `status.storedVersions`) until every object is migrated, and conversion between the two must be right.",
		Fix: "Plan a storage version migration (rewrite every object, then remove the old version from `status.storedVersions`) before removing the old version.",
	},
	compare.RuleStoredVersionRemoved: {
		Why: "`status.storedVersions` lists the versions objects may still be stored in. The server refuses a CRD update that removes one of them from `spec.versions`, since those objects could no longer be read: applying NEW fails.",
		Fix: "Keep the version (it may be `served: false`) until every object is migrated to the storage version and the version is removed from `status.storedVersions`.",
	},
	compare.RuleSubresourceRemoved: {
		Why: "Requests to the removed subresource fail: without `/status`, controllers writing status get 404; without `/scale`, `kubectl scale` and autoscalers fail.",
		Fix: "Keep the subresource, or update every client that uses it first.",
	},
	compare.RuleTransitionRuleAdded: {
		Why: "A rule that uses `oldSelf` judges every update by comparing the new value with the old. Transition rules are never ratcheted: updates OLD allowed, including a controller's writes, may be refused from now on.",
		Fix: "Check that controllers' writes keep the rule (give the objects, or `--live`: the replay judges a labels-only update of each), or guard the rule (`optionalOldSelf`, conditions on the fields it compares).",
	},
	compare.RuleTypeChanged: {
		Why: "Values of the old type are refused on the next write of the field (a create of the same manifest, an update): stored objects and manifests hold values of the old type, and clients built for it send them.",
		Fix: "Keep the type. A field of another type is a new field (or a new version with a conversion webhook that converts the values).",
	},
	compare.RuleTypeWidened: {
		Why: "The server now accepts more (a number where it accepted integers, a string or an integer). Clients and controllers built for the old type may fail to decode the new values once someone writes one.",
		Fix: "Update the clients and controllers' types (regenerate them) before anyone writes values of the new type.",
	},
	compare.RuleVersionDeprecated: {
		Why: "Every request in a deprecated version returns a warning, which `kubectl` prints and CI logs show: users learn the version is going away.",
		Fix: "Give the version a `deprecationWarning` naming its replacement, and move clients and manifests to it.",
	},
	compare.RuleVersionRemoved: {
		Why: "Requests in a removed version fail with 404 (`no matches for kind`): manifests, clients and controllers that use it stop working.",
		Fix: "Stop serving the version first (`served: false`) and keep it in `spec.versions` for a release, so clients can move; remove it once nothing uses it.",
	},
	compare.RuleVersionUnserved: {
		Why: "Requests in a version that is no longer served fail with 404 (`no matches for kind`): manifests, clients and controllers that use it stop working.",
		Fix: "Move every manifest and client to a served version before applying NEW (give the objects, or `--live`: the replay reports the objects in the version).",
	},

	RuleCRDUnpaired: {
		Why: "A CRD only in NEW is a create and a CRD only in OLD is left as it is when NEW is applied: there is no upgrade to judge, and nothing is said about it. Usually a CRD renamed (a new group or plural) or a file missing on one side.",
		Fix: "Check that the CRD was not renamed by mistake: a rename is a new resource, and the objects of the old one are not moved. Give both revisions of every CRD.",
	},
	RuleOldV1beta1: {
		Why: "No supported server accepts a v1beta1 CRD, but a cluster that created the CRD through v1beta1 (before Kubernetes 1.22) still stores it, read as v1 with v1beta1's defaults: `spec.preserveUnknownFields: true` unless the CRD said false, so the server kept every field of its objects, in the schema or not, and the single `validation`, `version` and `subresources` moved into each version. That is what NEW replaces, so that is what is compared: with preserveUnknownFields dropped, NEW prunes every stored field its schema lacks (`upgrade-object-data-lost` with the objects).",
		Fix: "Compare against what the cluster really has: `--live`, or OLD as `kubectl get crd NAME -o yaml` prints it. To keep what the objects store, describe those fields in NEW's schema (or mark the nodes `x-kubernetes-preserve-unknown-fields: true`) before applying NEW.",
	},
	replay.RuleObjectCreateRefused: {
		Why: "The object exists and OLD accepted it; NEW refuses a create of the same manifest. Whatever creates such objects (templates, Helm charts, GitOps, a controller) fails after the upgrade, with the server's message given here.",
		Fix: "Change the manifest so NEW accepts it, or relax NEW's schema; the message and the field say what NEW refuses.",
	},
	replay.RuleObjectDataLost: {
		Why: "The object stores a field NEW's schema does not describe: the server prunes it at the object's next write (a controller's status update is enough), and the value is gone for good.",
		Fix: "Keep the field in NEW's schema (or preserve unknown fields there), or move its value to where NEW keeps it before applying NEW.",
	},
	replay.RuleObjectNotReplayed: {
		Why: "crdlint cannot judge this object offline: converting it between versions would need the conversion webhook, or OLD does not serve or decode it, or no CRD of OLD defines its kind. Nothing is said about it, so it may still break.",
		Fix: "Give the objects in the version they are stored in (with `--live`, the cluster's objects are read in OLD's storage version), or test the upgrade on a cluster with the webhook.",
	},
	replay.RuleObjectRefusedByOld: {
		Why: "OLD refuses the object too, so it cannot exist as written: what NEW refuses of it is not a change the upgrade makes and is not reported. The manifest may be stale, or the objects given may not be the cluster's.",
		Fix: "Fix the manifest for OLD first (`kubectl crdlint check` says why OLD refuses it), then compare again.",
	},
	replay.RuleObjectStoredVersionGone: {
		Why: "The object is stored in a version NEW removes from `spec.versions`; the server refuses the CRD update as long as the version is in `status.storedVersions`, and objects stored in it could not be read.",
		Fix: "Migrate the object to the storage version (read and write it back), remove the version from `status.storedVersions`, then apply NEW; or keep the version, unserved.",
	},
	replay.RuleObjectUpdateRefused: {
		Why: "Under NEW, even an update that changes only the object's labels (what a controller's write does) is refused where OLD accepts it: the object becomes read-only in practice, and controllers that update it loop on errors.",
		Fix: "Change the object (or its manifest) so NEW accepts it before applying NEW, or relax NEW's schema; the message and the field say what NEW refuses. Transition rules are never ratcheted, so they are the usual cause.",
	},
	replay.RuleObjectVersionUnserved: {
		Why: "The object's manifest (or a manager writing it, for a live object) uses a version NEW does not serve: creates, reads and updates in that version fail with 404 (`no matches for kind`).",
		Fix: "Move the manifest and the clients to a version NEW serves, or keep serving the version.",
	},
}
