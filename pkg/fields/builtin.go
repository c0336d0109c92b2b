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

	corev1 "k8s.io/api/core/v1"
)

// A built-in kind is a Listing without CRD, in the table below.

// Field types.
const (
	builtinString  = "string"
	builtinInteger = "integer"
	builtinBoolean = "boolean"
)

var (
	builtinName      = Field{Path: "metadata.name", Type: builtinString, Source: Implicit}
	builtinNamespace = Field{Path: "metadata.namespace", Type: builtinString, Source: Implicit}
	// Namespace, PersistentVolume and PersistentVolumeClaim: their
	// *ToSelectableFields also set "name", which the server rejects.
	builtinLegacyName = Field{Path: "metadata.name", Type: builtinString, Source: Implicit,
		Note: `design doc lists a legacy selector "name"; the server rejects it`}
)

// own is a selector of the kind's own (its field-label conversion
// function): the label, the object field it reads ("" when the label
// itself), the type and a note.
func own(path, field, typ, note string) Field {
	return Field{Path: path, Field: field, Type: typ, Source: Builtin, Note: note}
}

// ownEnum is a string selector whose Go type k8s.io/api marks +enum:
// values are that type's constants, in their order there (the test holds
// the table to them).
func ownEnum[T ~string](path, note string, values ...T) Field {
	f := own(path, "", builtinString, note)
	for _, v := range values {
		f.Enum = append(f.Enum, string(v))
	}
	return f
}

// builtinMeta returns the implicit fields: metadata.name, and
// metadata.namespace when namespaced, followed by own.
func builtinMeta(namespaced bool, own ...Field) []Field {
	f := []Field{builtinName}
	if namespaced {
		f = append(f, builtinNamespace)
	}
	return append(f, own...)
}

// builtinKinds is the table. Builtins sorts it.
var builtinKinds = []Listing{
	{
		Version: "v1", Kind: "Pod", Resource: "pods", ShortNames: []string{"po"}, Namespaced: true,
		Fields: builtinMeta(true,
			own("spec.nodeName", "", builtinString, `"" until scheduled; the legacy selector spec.host is accepted and rewritten to spec.nodeName`),
			ownEnum("spec.restartPolicy", `defaulted to "Always"`, corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever),
			own("spec.schedulerName", "", builtinString, `defaulted to "default-scheduler"; design doc says enum, it is a plain string`),
			own("spec.serviceAccountName", "", builtinString, `design doc says enum, it is a plain string`),
			own("spec.hostNetwork", "", builtinBoolean, `strconv.FormatBool; "false" when absent; design doc gives the internal path spec.securityContext.hostNetwork`),
			ownEnum("status.phase", `design doc lists selector "phase"; the server's selector is status.phase`, corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown),
			own("status.podIP", "status.podIPs[0].ip", builtinString, `first entry of status.podIPs, "" when absent; design doc lists selector status.podIPs; status.podIPs is accepted but never set, so it only matches ""`),
			own("status.nominatedNodeName", "", builtinString, `"" when absent`),
		),
	},
	{
		Version: "v1", Kind: "Node", Resource: "nodes", ShortNames: []string{"no"},
		Fields: builtinMeta(false,
			own("spec.unschedulable", "", builtinBoolean, `fmt.Sprint(bool); "false" when absent`),
		),
	},
	{
		Version: "v1", Kind: "Namespace", Resource: "namespaces", ShortNames: []string{"ns"},
		Fields: []Field{builtinLegacyName,
			ownEnum("status.phase", `design doc lists field "phase"; the server reads status.phase`, corev1.NamespaceActive, corev1.NamespaceTerminating),
		},
	},
	{
		Version: "v1", Kind: "Secret", Resource: "secrets", Namespaced: true,
		Fields: builtinMeta(true,
			// SecretType is no +enum: any type is accepted.
			own("type", "", builtinString, `defaulted to "Opaque"; any type is accepted (kubernetes.io/tls, ... are conventions)`),
		),
	},
	{
		Version: "v1", Kind: "Service", Resource: "services", ShortNames: []string{"svc"}, Namespaced: true,
		Fields: builtinMeta(true,
			own("spec.clusterIP", "", builtinString, `"None" for headless services, "" for ExternalName; not in the design doc`),
			ownEnum("spec.type", `defaulted to "ClusterIP"; not in the design doc`, corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeExternalName),
		),
	},
	{
		Version: "v1", Kind: "Event", Resource: "events", ShortNames: []string{"ev"}, Namespaced: true,
		Fields: builtinMeta(true,
			own("involvedObject.kind", "", builtinString, ""),
			own("involvedObject.namespace", "", builtinString, ""),
			own("involvedObject.name", "", builtinString, ""),
			own("involvedObject.uid", "", builtinString, "string(UID)"),
			own("involvedObject.apiVersion", "", builtinString, ""),
			own("involvedObject.resourceVersion", "", builtinString, ""),
			own("involvedObject.fieldPath", "", builtinString, ""),
			own("reason", "", builtinString, ""),
			own("reportingComponent", "", builtinString, `"" when absent`),
			own("source", "source.component", builtinString, "reportingComponent when source.component is empty; selector and field names differ"),
			own("type", "", builtinString, ""),
		),
	},
	{
		Group: "events.k8s.io", Version: "v1", Kind: "Event", Resource: "events", ShortNames: []string{"ev"}, Namespaced: true,
		Fields: builtinMeta(true,
			own("reason", "", builtinString, ""),
			own("regarding.kind", "", builtinString, "converted to core involvedObject.kind; not in the design doc, which lists only the core/v1 spellings"),
			own("regarding.namespace", "", builtinString, "converted to core involvedObject.namespace"),
			own("regarding.name", "", builtinString, "converted to core involvedObject.name"),
			own("regarding.uid", "", builtinString, "converted to core involvedObject.uid; string(UID)"),
			own("regarding.apiVersion", "", builtinString, "converted to core involvedObject.apiVersion"),
			own("regarding.resourceVersion", "", builtinString, "converted to core involvedObject.resourceVersion"),
			own("regarding.fieldPath", "", builtinString, "converted to core involvedObject.fieldPath"),
			own("reportingController", "", builtinString, `converted to core reportingComponent; "" when absent`),
			own("source", "deprecatedSource.component", builtinString, "reportingController when deprecatedSource.component is empty; selector and field names differ"),
			own("type", "", builtinString, ""),
		),
	},
	{
		Version: "v1", Kind: "ReplicationController", Resource: "replicationcontrollers", ShortNames: []string{"rc"}, Namespaced: true,
		Fields: builtinMeta(true,
			own("status.replicas", "", builtinInteger, "strconv.Itoa; 0 when absent"),
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
		Fields: []Field{builtinLegacyName},
	},
	{
		Version: "v1", Kind: "PersistentVolumeClaim", Resource: "persistentvolumeclaims", ShortNames: []string{"pvc"}, Namespaced: true,
		Fields: []Field{builtinLegacyName, builtinNamespace},
	},
	{
		Group: "batch", Version: "v1", Kind: "Job", Resource: "jobs", Namespaced: true,
		Fields: builtinMeta(true,
			own("status.successful", "status.succeeded", builtinInteger, "strconv.Itoa; 0 when absent; selector and field names differ"),
		),
	},
	{
		Group: "certificates.k8s.io", Version: "v1", Kind: "CertificateSigningRequest", Resource: "certificatesigningrequests", ShortNames: []string{"csr"},
		Fields: builtinMeta(false,
			own("spec.signerName", "", builtinString, ""),
		),
	},
	{
		Group: "certificates.k8s.io", Version: "v1", Kind: "ClusterTrustBundle", Resource: "clustertrustbundles",
		Fields: builtinMeta(false,
			own("spec.signerName", "", builtinString, `"" when absent; not in the design doc`),
		),
	},
	{
		// Namespaced, but the conversion func accepts no metadata.namespace.
		Group: "certificates.k8s.io", Version: "v1", Kind: "PodCertificateRequest", Resource: "podcertificaterequests", Namespaced: true,
		Fields: builtinMeta(false,
			own("spec.signerName", "", builtinString, "not in the design doc; metadata.namespace is not accepted for this kind"),
			own("spec.podName", "", builtinString, ""),
			own("spec.nodeName", "", builtinString, ""),
		),
	},
	{
		Group: "resource.k8s.io", Version: "v1", Kind: "ResourceSlice", Resource: "resourceslices",
		Fields: builtinMeta(false,
			own("spec.nodeName", "", builtinString, `"" when absent; not in the design doc`),
			own("spec.driver", "", builtinString, ""),
			own("spec.pool.name", "", builtinString, ""),
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
var builtinSorted = func() []Listing {
	s := slices.Clone(builtinKinds)
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].Kind != s[j].Kind {
			return s[i].Kind < s[j].Kind
		}
		return s[i].Group < s[j].Group
	})
	return s
}()

func (k Listing) clone() Listing {
	k.ShortNames = slices.Clone(k.ShortNames)
	k.Fields = slices.Clone(k.Fields)
	for i := range k.Fields {
		k.Fields[i].Enum = slices.Clone(k.Fields[i].Enum)
	}
	return k
}

// Builtins lists every kind in the table, sorted by kind (then group, core first).
func Builtins() []Listing {
	out := make([]Listing, len(builtinSorted))
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
func LookupBuiltin(name string) (Listing, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		return Listing{}, false
	}
	for _, k := range builtinSorted {
		if k.hasName(n) {
			return k.clone(), true
		}
	}
	base, qual, ok := strings.Cut(n, ".")
	if !ok || base == "" || qual == "" {
		return Listing{}, false
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
	return Listing{}, false
}

// hasName reports whether n (lower case) is k's kind, plural, singular or
// a short name.
func (k Listing) hasName(n string) bool {
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
