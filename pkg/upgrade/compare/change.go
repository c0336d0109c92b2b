package compare

import (
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// Change is one difference between OLD and NEW that matters to someone.
// Its JSON form is what the golden files hold.
type Change struct {
	// Rule is one of Rules' IDs.
	Rule string `json:"rule"`
	// Severity is always the rule's severity in Rules; configuration may
	// override it later.
	Severity report.Severity `json:"severity"`
	// Version names the version of NEW the change is about ("" for
	// CRD-wide changes such as the scope). For a removed version it is
	// the removed version's name.
	Version string `json:"version,omitempty"`
	// OldVersion names the version of OLD compared with Version: the same
	// name, except when comparing OLD's storage version with NEW's after a
	// rename of the storage version.
	OldVersion string `json:"oldVersion,omitempty"`
	// Path is the place in the server's v1 notation, for example
	// spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[replicas].maximum,
	// in NEW, or in OLD when InOld is set (what was removed lives only in
	// OLD). Version indexes are the document's own. The path exists in
	// the decoded and defaulted CRD it refers to; in the file it may
	// resolve to the nearest ancestor, when the server's defaulting added
	// the field (spec.conversion.strategy).
	Path string `json:"path"`
	// InOld says Path refers to OLD.
	InOld bool `json:"inOld,omitempty"`
	// Field is the custom resource field the change is about (nil for
	// changes to the CRD as a whole).
	Field DataPath `json:"field,omitempty"`
	// Message says what changed and what it breaks, values quoted as JSON.
	Message string `json:"message"`
	// Old and New are the values compared, decoded JSON (string, float64,
	// bool, []any, map[string]any) or nil where there is none.
	Old any `json:"old,omitempty"`
	New any `json:"new,omitempty"`
	// CEL is set for the CEL rules (upgrade-cel-*, upgrade-transition-*).
	CEL *CELChange `json:"cel,omitempty"`
}

// CELChange is what a replay needs to judge a change of an
// x-kubernetes-validations rule on real objects.
type CELChange struct {
	// Node is the schema node holding the rule, in the v1 notation of NEW
	// (of OLD for a removed rule, as Change.InOld says); Change.Field is
	// the custom resource field the rule's self is bound to.
	Node string `json:"node"`
	// Index is the rule's index in the node's x-kubernetes-validations.
	Index int `json:"index"`
	// Rule is NEW's rule, or OLD's for a removed rule.
	Rule apiextensionsv1.ValidationRule `json:"rule"`
	// Old is OLD's rule that a changed rule replaces.
	Old *apiextensionsv1.ValidationRule `json:"old,omitempty"`
	// Transition says Rule refers to oldSelf: it runs only on updates
	// (unless optionalOldSelf) and is never ratcheted.
	Transition bool `json:"transition,omitempty"`
}

// DataPath is a path into a custom resource: object field names, and Any
// for every item of a list or every value of a map.
type DataPath []string

// Any in a DataPath stands for every list item or map value.
const Any = "[*]"

// String renders the path as the server writes custom resource fields:
// spec.containers[*].name.
func (p DataPath) String() string {
	var b strings.Builder
	for i, s := range p {
		if s != Any && i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// child returns p extended by s without sharing p's backing array.
func (p DataPath) child(s string) DataPath {
	out := make(DataPath, len(p), len(p)+1)
	copy(out, p)
	return append(out, s)
}

// Has reports whether obj (a decoded custom resource: map[string]any,
// []any, scalars) has a value at p, null included; Any matches any item
// of a list or value of a map. A caller builds Options.Present from it.
func Has(obj any, p DataPath) bool {
	return holds(obj, p, func(any) bool { return true })
}

// HasNull reports whether obj holds null at p (Any: at any item or value).
func HasNull(obj any, p DataPath) bool {
	return holds(obj, p, func(v any) bool { return v == nil })
}

// holds says obj has a value at p for which leaf is true (Any: at some
// item or value).
func holds(obj any, p DataPath, leaf func(any) bool) bool {
	if len(p) == 0 {
		return leaf(obj)
	}
	switch v := obj.(type) {
	case map[string]any:
		if p[0] == Any {
			for _, c := range v {
				if holds(c, p[1:], leaf) {
					return true
				}
			}
			return false
		}
		c, ok := v[p[0]]
		return ok && holds(c, p[1:], leaf)
	case []any:
		if p[0] != Any {
			return false
		}
		for _, c := range v {
			if holds(c, p[1:], leaf) {
				return true
			}
		}
	}
	return false
}

// Options tune the comparison. The zero value compares the CRDs alone.
type Options struct {
	// StoredVersions overrides OLD's status.storedVersions. When both are
	// empty, OLD's storage version is taken as the only stored version
	// (what a file without status implies).
	StoredVersions []string
	// Present, when set, tells whether some existing object stored under
	// the named version has a value at field: a field newly required
	// under an optional parent is then an error (RuleRequiredAdded)
	// rather than a warning, because those objects would be refused.
	Present func(version string, field DataPath) bool
}
