package lint

import (
	"fmt"
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
)

// hoisted are the internal spec fields that v1→internal conversion lifts
// out of spec.versions when every version carries an equal value; errors
// about them name the hoisted field, which the user never wrote.
var hoisted = []struct{ internal, perVersion string }{
	{"spec.validation", "schema"},
	{"spec.subresources", "subresources"},
	{"spec.additionalPrinterColumns", "additionalPrinterColumns"},
	{"spec.selectableFields", "selectableFields"},
}

// renamed are internal spellings with a different v1 field behind them.
var renamed = []struct{ internal, v1 string }{
	{"spec.conversion.webhookClientConfig", "spec.conversion.webhook.clientConfig"},
	{"spec.conversion.conversionReviewVersions", "spec.conversion.webhook.conversionReviewVersions"},
}

// hasPrefix reports whether path starts with prefix at a segment boundary.
func hasPrefix(path, prefix string) bool {
	if !strings.HasPrefix(path, prefix) {
		return false
	}
	rest := path[len(prefix):]
	return rest == "" || rest[0] == '.' || rest[0] == '['
}

// translatePath maps a field path of an error about the internal CRD to
// the user's v1 document, which has versions versions: the field as the
// finding names it, where it is positioned, and, for a field the
// conversion hoisted because every version holds an equal value, how
// many versions share it (the finding names the first; the server checks
// the shared value once, so it is reported once).
func translatePath(path string, versions int) (field, at string, shared int) {
	if path == "spec.version" {
		return "spec.versions[0].name", "spec.versions[0].name", 0
	}
	// PrepareForCreate derives status.storedVersions from the storage
	// version: the field is the server's, the place to fix spec.versions.
	if hasPrefix(path, "status.storedVersions") {
		return path, "spec.versions", 0
	}
	path = renamePath(path)
	for _, h := range hoisted {
		if !hasPrefix(path, h.internal) {
			continue
		}
		p := "spec.versions[0]." + h.perVersion + path[len(h.internal):]
		return p, p, versions
	}
	return path, path, 0
}

func renamePath(path string) string {
	for _, r := range renamed {
		if hasPrefix(path, r.internal) {
			path = r.v1 + path[len(r.internal):]
		}
	}
	return strings.ReplaceAll(path, ".JSONPath", ".jsonPath")
}

// translateText rewrites the internal paths a server message names in its
// text (a junctor's "because it is defined in spec.validation...") the way
// translatePath rewrites the field.
func translateText(msg string, versions int) string {
	for _, r := range renamed {
		msg = strings.ReplaceAll(msg, r.internal, r.v1)
	}
	for _, h := range hoisted {
		msg = quotePath(msg, h.internal, "spec.versions[0]."+h.perVersion)
	}
	return msg
}

// sharedWhat names what versions share for an error at an internal path.
func sharedWhat(path string) string {
	for _, h := range hoisted {
		if hasPrefix(path, h.internal) {
			return h.perVersion
		}
	}
	return "value"
}

// Hints crdlint appends to the server's words where they leave the cause
// out (docs/rules.md, "How messages differ from the server's text").
const (
	// storedVersionsHint follows "must have at least one stored version":
	// the user never writes status.storedVersions.
	storedVersionsHint = " (the server derives status.storedVersions from the version with storage: true)"
	// costContributed is the server's error on each rule of a schema
	// whose rules cost more than the per-CRD budget together.
	costContributed = "contributed to estimated rule cost total exceeding cost limit"
)

// costShareHint says what a rule that "contributed" to a schema over the
// per-CRD budget costs, in crd-cel-cost's words.
func costShareHint(cost uint64) string {
	return fmt.Sprintf(" (estimated cost %d is %.0f%% of the per-CRD budget %d)", cost, pct(cost, engine.CRDCostLimit), engine.CRDCostLimit)
}
