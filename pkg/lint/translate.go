package lint

import (
	"strconv"
	"strings"
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

// translatePath maps a field path of an error about the internal CRD to the
// paths in the user's v1 document, which has versions versions. A hoisted
// field becomes one path per version (each version's copy has the error);
// other paths map to one.
func translatePath(path string, versions int) []string {
	if path == "spec.version" {
		return []string{"spec.versions[0].name"}
	}
	// PrepareForCreate derives status.storedVersions from the storage
	// version; its errors are about spec.versions.
	if hasPrefix(path, "status.storedVersions") {
		return []string{"spec.versions"}
	}
	for _, r := range renamed {
		if hasPrefix(path, r.internal) {
			path = r.v1 + path[len(r.internal):]
		}
	}
	path = strings.ReplaceAll(path, ".JSONPath", ".jsonPath")
	for _, h := range hoisted {
		if !hasPrefix(path, h.internal) {
			continue
		}
		rest := path[len(h.internal):]
		n := max(versions, 1)
		out := make([]string, 0, n)
		for i := 0; i < n; i++ {
			out = append(out, "spec.versions["+strconv.Itoa(i)+"]."+h.perVersion+rest)
		}
		return out
	}
	return []string{path}
}
