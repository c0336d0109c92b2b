package fields

// Built-in kinds: the field selectors the Kubernetes API server (v1.37)
// accepts for them.
//
// A field selector on a list or watch passes two gates in the server, and
// this table records what gets through both:
//
//  1. The label must be accepted by the field-label conversion function
//     registered for the kind's group/version (Scheme.AddFieldLabelConversionFunc).
//     A kind without one falls back to runtime.DefaultMetaV1FieldSelectorConversion
//     (k8s.io/apimachinery/pkg/runtime/conversion.go), which accepts only
//     metadata.name and metadata.namespace. Anything else is rejected with
//     "field label not supported" / "is not a known field selector".
//  2. The value compared is the one the registry strategy computes in its
//     GetAttrs / *ToSelectableFields function. A label that passes (1) but
//     is missing from that set always reads as "".
//
// Where the design doc's table (seed 002, "Some resources have additional
// field selectors") disagrees with the server, the server wins; each such
// row says so in its Note. Sources, per kind (paths in kubernetes/kubernetes):
//
//   - Pod: pkg/apis/core/v1/conversion.go, addConversionFuncs (the "Pod"
//     conversion func); values from pkg/registry/core/pod/strategy.go,
//     ToSelectableFields (formerly PodToSelectableFields). Differs from the
//     design doc: the doc swaps field and selector on two rows. The
//     selector is status.phase (doc: "phase"), and the working selector for
//     the pod IP is status.podIP, reading status.podIPs[0].ip (doc: selector
//     status.podIPs). The conversion func also lets status.podIPs through,
//     but ToSelectableFields never sets it, so it only ever matches "".
//     spec.hostNetwork reads spec.hostNetwork in v1 (the doc gives the
//     internal path spec.securityContext.hostNetwork). The legacy label
//     spec.host is accepted and rewritten to spec.nodeName.
//     spec.schedulerName and spec.serviceAccountName are plain strings,
//     not enums as the doc says.
//   - Node: pkg/apis/core/v1/conversion.go, addConversionFuncs ("Node");
//     pkg/registry/core/node/strategy.go, NodeToSelectableFields.
//   - ReplicationController: pkg/apis/core/v1/conversion.go,
//     addConversionFuncs ("ReplicationController");
//     pkg/registry/core/replicationcontroller/strategy.go,
//     ControllerToSelectableFields.
//   - Event (core/v1): pkg/apis/core/v1/conversion.go,
//     AddFieldLabelConversionsForEvent; pkg/registry/core/event/strategy.go,
//     ToSelectableFields (source falls back to reportingComponent, the v1
//     JSON name of ReportingController).
//   - Event (events.k8s.io/v1): pkg/apis/events/v1/conversion.go,
//     AddFieldLabelConversionsForEvent, which maps regarding.* to
//     involvedObject.* and reportingController to reportingComponent before
//     the shared core storage (pkg/registry/core/event/strategy.go,
//     ToSelectableFields) compares them. The core spellings
//     (involvedObject.*, reportingComponent) are rejected on this group.
//     The design doc lists only the core/v1 spellings.
//   - Namespace: pkg/apis/core/v1/conversion.go,
//     AddFieldLabelConversionsForNamespace;
//     pkg/registry/core/namespace/strategy.go, NamespaceToSelectableFields.
//     Differs from the design doc: the doc's field "phase" is status.phase,
//     and the doc's legacy "name" selector is rejected. NamespaceToSelectableFields
//     still sets "name" ("a bug, ... for backward compatibility"), but the
//     conversion func does not accept it, and pkg/api/testing/conversion.go
//     (TestSelectableFieldLabelConversionsOfKind) asserts that "name" fails.
//   - Secret: pkg/apis/core/v1/conversion.go,
//     AddFieldLabelConversionsForSecret; pkg/registry/core/secret/strategy.go,
//     SelectableFields.
//   - Service (not in the design doc): pkg/apis/core/v1/conversion.go,
//     AddFieldLabelConversionsForService; pkg/registry/core/service/strategy.go,
//     SelectableFields.
//   - PersistentVolume, PersistentVolumeClaim: no conversion func is
//     registered, so only the default metadata.name/metadata.namespace are
//     accepted. pkg/registry/core/persistentvolume/strategy.go,
//     PersistentVolumeToSelectableFields, and
//     pkg/registry/core/persistentvolumeclaim/strategy.go,
//     PersistentVolumeClaimToSelectableFields, set a legacy "name" too, but
//     the server rejects it. The design doc says they accept "name".
//   - ReplicaSet (apps/v1): pkg/apis/apps/v1/conversion.go registers no
//     field-label conversion func, so the server accepts only
//     metadata.name/metadata.namespace, although
//     pkg/registry/apps/replicaset/strategy.go, ReplicaSetToSelectableFields,
//     computes status.replicas. The design doc says ReplicaSet accepts
//     status.replicas. This is kubernetes/kubernetes#135136 (open); the fix
//     PR #135139 was closed without merging.
//   - Job: pkg/apis/batch/v1/conversion.go, addConversionFuncs ("Job");
//     pkg/registry/batch/job/strategy.go, JobToSelectableFields.
//   - CertificateSigningRequest: pkg/apis/certificates/v1/conversion.go,
//     addConversionFuncs ("CertificateSigningRequest");
//     pkg/registry/certificates/certificates/strategy.go, SelectableFields.
//   - ClusterTrustBundle (not in the design doc):
//     pkg/apis/certificates/v1/conversion.go, addConversionFuncs
//     ("ClusterTrustBundle");
//     pkg/registry/certificates/clustertrustbundle/storage/storage.go, getAttrs.
//   - PodCertificateRequest (not in the design doc):
//     pkg/apis/certificates/v1/conversion.go, addConversionFuncs
//     ("PodCertificateRequest");
//     pkg/registry/certificates/podcertificaterequest/storage/storage.go,
//     getAttrs. The kind is namespaced, but its conversion func does not
//     accept metadata.namespace, so metadata.namespace is not in the table.
//   - ResourceSlice (not in the design doc): pkg/apis/resource/v1/conversion.go,
//     addConversionFuncs ("ResourceSlice");
//     pkg/registry/resource/resourceslice/strategy.go, toSelectableFields.
//     spec.pool.name (ResourceSliceSelectorPoolName in k8s.io/api v0.37) was
//     added by kubernetes/kubernetes PR #138456.
//   - ConfigMap, ServiceAccount, Deployment, StatefulSet, DaemonSet, CronJob,
//     Ingress: no conversion func, so only the implicit
//     metadata.name/metadata.namespace.

import (
	"slices"
	"sort"
	"strings"
)

// BuiltinField is one field selector a built-in kind accepts.
type BuiltinField struct {
	Selector string // the label the server accepts in --field-selector, e.g. "status.phase"
	Field    string // the object field it reads, e.g. "status.phase" (Job's status.successful reads status.succeeded)
	Type     string // string, integer, boolean, enum
	Note     string // conversions and defaults: `"" when absent`, legacy names, differences from the design doc
}

// BuiltinKind is a built-in kind with the field selectors the server accepts for it.
type BuiltinKind struct {
	Group, Version, Kind, Resource string   // e.g. "", "v1", "Pod", "pods"
	ShortNames                     []string // as kubectl knows them (po, ns, no, ...)
	Namespaced                     bool
	// Fields: metadata.name first, metadata.namespace for namespaced kinds
	// (when the server accepts it), then the kind's own, in the order of the
	// server's conversion function.
	Fields []BuiltinField
}

// Field types.
const (
	builtinString  = "string"
	builtinInteger = "integer"
	builtinBoolean = "boolean"
	builtinEnum    = "enum"
)

var (
	builtinName      = BuiltinField{Selector: "metadata.name", Field: "metadata.name", Type: builtinString}
	builtinNamespace = BuiltinField{Selector: "metadata.namespace", Field: "metadata.namespace", Type: builtinString}
	// Namespace, PersistentVolume and PersistentVolumeClaim: their
	// *ToSelectableFields also set "name", which the server rejects.
	builtinLegacyName = BuiltinField{Selector: "metadata.name", Field: "metadata.name", Type: builtinString,
		Note: `design doc lists a legacy selector "name"; the server rejects it`}
)

// builtinMeta returns the implicit fields: metadata.name, and
// metadata.namespace when namespaced, followed by own.
func builtinMeta(namespaced bool, own ...BuiltinField) []BuiltinField {
	f := []BuiltinField{builtinName}
	if namespaced {
		f = append(f, builtinNamespace)
	}
	return append(f, own...)
}

// builtinKinds is the table. Builtins sorts it.
var builtinKinds = []BuiltinKind{
	{
		Version: "v1", Kind: "Pod", Resource: "pods", ShortNames: []string{"po"}, Namespaced: true,
		Fields: builtinMeta(true,
			BuiltinField{"spec.nodeName", "spec.nodeName", builtinString, `"" until scheduled; the legacy selector spec.host is accepted and rewritten to spec.nodeName`},
			BuiltinField{"spec.restartPolicy", "spec.restartPolicy", builtinEnum, `string(enum); defaulted to "Always"`},
			BuiltinField{"spec.schedulerName", "spec.schedulerName", builtinString, `defaulted to "default-scheduler"; design doc says enum, it is a plain string`},
			BuiltinField{"spec.serviceAccountName", "spec.serviceAccountName", builtinString, `design doc says enum, it is a plain string`},
			BuiltinField{"spec.hostNetwork", "spec.hostNetwork", builtinBoolean, `strconv.FormatBool; "false" when absent; design doc gives the internal path spec.securityContext.hostNetwork`},
			BuiltinField{"status.phase", "status.phase", builtinEnum, `string(enum); design doc lists selector "phase"; the server's selector is status.phase`},
			BuiltinField{"status.podIP", "status.podIPs[0].ip", builtinString, `first entry of status.podIPs, "" when absent; design doc lists selector status.podIPs; status.podIPs is accepted but never set, so it only matches ""`},
			BuiltinField{"status.nominatedNodeName", "status.nominatedNodeName", builtinString, `"" when absent`},
		),
	},
	{
		Version: "v1", Kind: "Node", Resource: "nodes", ShortNames: []string{"no"},
		Fields: builtinMeta(false,
			BuiltinField{"spec.unschedulable", "spec.unschedulable", builtinBoolean, `fmt.Sprint(bool); "false" when absent`},
		),
	},
	{
		Version: "v1", Kind: "Namespace", Resource: "namespaces", ShortNames: []string{"ns"},
		Fields: []BuiltinField{builtinLegacyName,
			{"status.phase", "status.phase", builtinEnum, `string(enum): Active or Terminating; design doc lists field "phase"; the server reads status.phase`},
		},
	},
	{
		Version: "v1", Kind: "Secret", Resource: "secrets", Namespaced: true,
		Fields: builtinMeta(true,
			BuiltinField{"type", "type", builtinEnum, `string(enum); defaulted to "Opaque"`},
		),
	},
	{
		Version: "v1", Kind: "Service", Resource: "services", ShortNames: []string{"svc"}, Namespaced: true,
		Fields: builtinMeta(true,
			BuiltinField{"spec.clusterIP", "spec.clusterIP", builtinString, `"None" for headless services, "" for ExternalName; not in the design doc`},
			BuiltinField{"spec.type", "spec.type", builtinEnum, `string(enum); defaulted to "ClusterIP"; not in the design doc`},
		),
	},
	{
		Version: "v1", Kind: "Event", Resource: "events", ShortNames: []string{"ev"}, Namespaced: true,
		Fields: builtinMeta(true,
			BuiltinField{"involvedObject.kind", "involvedObject.kind", builtinString, ""},
			BuiltinField{"involvedObject.namespace", "involvedObject.namespace", builtinString, ""},
			BuiltinField{"involvedObject.name", "involvedObject.name", builtinString, ""},
			BuiltinField{"involvedObject.uid", "involvedObject.uid", builtinString, "string(UID)"},
			BuiltinField{"involvedObject.apiVersion", "involvedObject.apiVersion", builtinString, ""},
			BuiltinField{"involvedObject.resourceVersion", "involvedObject.resourceVersion", builtinString, ""},
			BuiltinField{"involvedObject.fieldPath", "involvedObject.fieldPath", builtinString, ""},
			BuiltinField{"reason", "reason", builtinString, ""},
			BuiltinField{"reportingComponent", "reportingComponent", builtinString, `"" when absent`},
			BuiltinField{"source", "source.component", builtinString, "reportingComponent when source.component is empty; selector and field names differ"},
			BuiltinField{"type", "type", builtinString, ""},
		),
	},
	{
		Group: "events.k8s.io", Version: "v1", Kind: "Event", Resource: "events", ShortNames: []string{"ev"}, Namespaced: true,
		Fields: builtinMeta(true,
			BuiltinField{"reason", "reason", builtinString, ""},
			BuiltinField{"regarding.kind", "regarding.kind", builtinString, "converted to core involvedObject.kind; not in the design doc, which lists only the core/v1 spellings"},
			BuiltinField{"regarding.namespace", "regarding.namespace", builtinString, "converted to core involvedObject.namespace"},
			BuiltinField{"regarding.name", "regarding.name", builtinString, "converted to core involvedObject.name"},
			BuiltinField{"regarding.uid", "regarding.uid", builtinString, "converted to core involvedObject.uid; string(UID)"},
			BuiltinField{"regarding.apiVersion", "regarding.apiVersion", builtinString, "converted to core involvedObject.apiVersion"},
			BuiltinField{"regarding.resourceVersion", "regarding.resourceVersion", builtinString, "converted to core involvedObject.resourceVersion"},
			BuiltinField{"regarding.fieldPath", "regarding.fieldPath", builtinString, "converted to core involvedObject.fieldPath"},
			BuiltinField{"reportingController", "reportingController", builtinString, `converted to core reportingComponent; "" when absent`},
			BuiltinField{"source", "deprecatedSource.component", builtinString, "reportingController when deprecatedSource.component is empty; selector and field names differ"},
			BuiltinField{"type", "type", builtinString, ""},
		),
	},
	{
		Version: "v1", Kind: "ReplicationController", Resource: "replicationcontrollers", ShortNames: []string{"rc"}, Namespaced: true,
		Fields: builtinMeta(true,
			BuiltinField{"status.replicas", "status.replicas", builtinInteger, "strconv.Itoa; 0 when absent"},
		),
	},
	{
		// The design doc lists status.replicas; apps/v1 registers no
		// conversion func, so the server rejects it (kubernetes#135136).
		Group: "apps", Version: "v1", Kind: "ReplicaSet", Resource: "replicasets", ShortNames: []string{"rs"}, Namespaced: true,
		Fields: builtinMeta(true),
	},
	{
		Version: "v1", Kind: "PersistentVolume", Resource: "persistentvolumes", ShortNames: []string{"pv"},
		Fields: []BuiltinField{builtinLegacyName},
	},
	{
		Version: "v1", Kind: "PersistentVolumeClaim", Resource: "persistentvolumeclaims", ShortNames: []string{"pvc"}, Namespaced: true,
		Fields: []BuiltinField{builtinLegacyName, builtinNamespace},
	},
	{
		Group: "batch", Version: "v1", Kind: "Job", Resource: "jobs", Namespaced: true,
		Fields: builtinMeta(true,
			BuiltinField{"status.successful", "status.succeeded", builtinInteger, "strconv.Itoa; 0 when absent; selector and field names differ"},
		),
	},
	{
		Group: "certificates.k8s.io", Version: "v1", Kind: "CertificateSigningRequest", Resource: "certificatesigningrequests", ShortNames: []string{"csr"},
		Fields: builtinMeta(false,
			BuiltinField{"spec.signerName", "spec.signerName", builtinString, ""},
		),
	},
	{
		Group: "certificates.k8s.io", Version: "v1", Kind: "ClusterTrustBundle", Resource: "clustertrustbundles",
		Fields: builtinMeta(false,
			BuiltinField{"spec.signerName", "spec.signerName", builtinString, `"" when absent; not in the design doc`},
		),
	},
	{
		// Namespaced, but the conversion func accepts no metadata.namespace.
		Group: "certificates.k8s.io", Version: "v1", Kind: "PodCertificateRequest", Resource: "podcertificaterequests", Namespaced: true,
		Fields: builtinMeta(false,
			BuiltinField{"spec.signerName", "spec.signerName", builtinString, "not in the design doc; metadata.namespace is not accepted for this kind"},
			BuiltinField{"spec.podName", "spec.podName", builtinString, ""},
			BuiltinField{"spec.nodeName", "spec.nodeName", builtinString, ""},
		),
	},
	{
		Group: "resource.k8s.io", Version: "v1", Kind: "ResourceSlice", Resource: "resourceslices",
		Fields: builtinMeta(false,
			BuiltinField{"spec.nodeName", "spec.nodeName", builtinString, `"" when absent; not in the design doc`},
			BuiltinField{"spec.driver", "spec.driver", builtinString, ""},
			BuiltinField{"spec.pool.name", "spec.pool.name", builtinString, ""},
		),
	},
	{Version: "v1", Kind: "ConfigMap", Resource: "configmaps", ShortNames: []string{"cm"}, Namespaced: true, Fields: builtinMeta(true)},
	{Version: "v1", Kind: "ServiceAccount", Resource: "serviceaccounts", ShortNames: []string{"sa"}, Namespaced: true, Fields: builtinMeta(true)},
	{Group: "apps", Version: "v1", Kind: "Deployment", Resource: "deployments", ShortNames: []string{"deploy"}, Namespaced: true, Fields: builtinMeta(true)},
	{Group: "apps", Version: "v1", Kind: "StatefulSet", Resource: "statefulsets", ShortNames: []string{"sts"}, Namespaced: true, Fields: builtinMeta(true)},
	{Group: "apps", Version: "v1", Kind: "DaemonSet", Resource: "daemonsets", ShortNames: []string{"ds"}, Namespaced: true, Fields: builtinMeta(true)},
	{Group: "batch", Version: "v1", Kind: "CronJob", Resource: "cronjobs", ShortNames: []string{"cj"}, Namespaced: true, Fields: builtinMeta(true)},
	{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress", Resource: "ingresses", ShortNames: []string{"ing"}, Namespaced: true, Fields: builtinMeta(true)},
}

// builtinSorted is the table sorted by kind, then group, with the core
// group first: the order of Builtins and of LookupBuiltin's preference
// (so "events" and "ev" mean the core Event, as with kubectl).
var builtinSorted = func() []BuiltinKind {
	s := slices.Clone(builtinKinds)
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].Kind != s[j].Kind {
			return s[i].Kind < s[j].Kind
		}
		return s[i].Group < s[j].Group
	})
	return s
}()

func (k BuiltinKind) clone() BuiltinKind {
	k.ShortNames = slices.Clone(k.ShortNames)
	k.Fields = slices.Clone(k.Fields)
	return k
}

// Builtins lists every kind in the table, sorted by kind (then group, core first).
func Builtins() []BuiltinKind {
	out := make([]BuiltinKind, len(builtinSorted))
	for i, k := range builtinSorted {
		out[i] = k.clone()
	}
	return out
}

// LookupBuiltin finds a kind by kind name, plural resource, singular, or
// short name, case-insensitively ("pods", "pod", "Pod", "po"), optionally
// qualified by group or version and group as kubectl accepts them
// ("jobs.batch", "job.batch", "jobs.v1.batch", "events.events.k8s.io").
// An unqualified name that two groups share resolves to the core group.
// ok is false when the name is unknown.
func LookupBuiltin(name string) (BuiltinKind, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		return BuiltinKind{}, false
	}
	for _, k := range builtinSorted {
		if k.hasName(n) {
			return k.clone(), true
		}
	}
	base, qual, ok := strings.Cut(n, ".")
	if !ok || base == "" || qual == "" {
		return BuiltinKind{}, false
	}
	for _, k := range builtinSorted {
		if !k.hasName(base) {
			continue
		}
		group := strings.ToLower(k.Group)
		switch {
		case group != "" && (qual == group || qual == k.Version+"."+group):
			return k.clone(), true
		case group == "" && qual == k.Version:
			return k.clone(), true
		}
	}
	return BuiltinKind{}, false
}

// hasName reports whether n (lower case) is k's kind, plural, singular or
// a short name.
func (k BuiltinKind) hasName(n string) bool {
	if n == strings.ToLower(k.Kind) || n == k.Resource {
		return true
	}
	for _, s := range k.ShortNames {
		if n == s {
			return true
		}
	}
	return false
}
