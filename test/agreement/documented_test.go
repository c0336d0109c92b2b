package agreement_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// The differences between crdlint's text and the server's that
// docs/rules.md ("How messages differ from the server's text") promises,
// applied to the server's side so that every other difference still
// fails the test. They are written here from the document, not taken
// from pkg/lint, so that the two are checked against each other.

// sharedSuffixRE is what crdlint appends to an error in a schema that
// all versions share and the server reports once.
const sharedSuffix = " versions share this schema)"

// withoutShared drops the "(all N versions share this schema)" note.
func withoutShared(cause string) string {
	if !strings.HasSuffix(cause, sharedSuffix) {
		return cause
	}
	if i := strings.LastIndex(cause, " (all "); i >= 0 {
		return cause[:i]
	}
	return cause
}

// hintRE matches the hints crdlint appends where the server's words leave
// the cause out: where status.storedVersions comes from, what a rule
// that "contributed" to a schema over the per-CRD budget costs.
var hintRE = regexp.MustCompile(` \((?:the server derives status\.storedVersions from the version with storage: true|estimated cost \d+ is \d+% of the per-CRD budget \d+)\)$`)

// withoutHints drops them.
func withoutHints(cause string) string { return hintRE.ReplaceAllString(cause, "") }

// documentedForms are the texts crdlint may print for one server cause:
// the object itself has no field ("<nil>: " becomes ": "), a scale path
// loses its leading dot, a CEL rule printed as a Go structure is quoted
// as its rule text, and any other Go structure the server prints as a
// value may be left out.
func documentedForms(cause string) []string {
	if rest, ok := strings.CutPrefix(cause, "<nil>: "); ok {
		cause = ": " + rest
	}
	if strings.HasPrefix(cause, ".spec.") || strings.HasPrefix(cause, ".status.") {
		cause = cause[1:]
	}
	forms := []string{cause}
	for _, typ := range []string{"Invalid value: ", "Unsupported value: ", "Duplicate value: ", "Not found: "} {
		i := strings.Index(cause, typ)
		if i < 0 {
			continue
		}
		head, value := cause[:i+len(typ)], cause[i+len(typ):]
		if value == "" || strings.IndexByte("{[n", value[0]) < 0 {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(value))
		var v any
		if dec.Decode(&v) != nil {
			continue
		}
		tail := value[dec.InputOffset():]
		if m, ok := v.(map[string]any); ok {
			if rule, ok := m["Rule"].(string); ok {
				forms = append(forms, head+strconv.Quote(rule)+tail)
				continue
			}
		}
		if isStructJSON(v) {
			forms = append(forms, strings.TrimSuffix(head, ": ")+tail)
		}
	}
	return forms
}

// isStructJSON: what a Go structure, a list of them or a nil pointer or
// slice of one marshals to.
func isStructJSON(v any) bool {
	switch t := v.(type) {
	case nil, map[string]any:
		return true
	case []any:
		for _, e := range t {
			if _, ok := e.(map[string]any); !ok {
				return false
			}
		}
		return true
	}
	return false
}

// causesAsDocumented reports whether every server cause has exactly one
// crdlint cause in one of its documented forms, and none is left over.
// translate maps both sides' CRD paths to one form (nil for CRs).
func causesAsDocumented(crdlint, server []string, translate func(string) string) bool {
	if len(crdlint) != len(server) {
		return false
	}
	if translate == nil {
		translate = func(s string) string { return s }
	}
	// Paths compare whatever the notation ("Field paths").
	translate = func(t func(string) string) func(string) string {
		return func(s string) string { return loose([]string{t(s)}, true)[0] }
	}(translate)
	used := make([]bool, len(crdlint))
next:
	for _, s := range server {
		for _, form := range documentedForms(translate(s)) {
			for i, c := range crdlint {
				if !used[i] && translate(withoutHints(withoutShared(c))) == form {
					used[i] = true
					continue next
				}
			}
		}
		return false
	}
	return true
}

// schemaKeyword are the schema keywords a map of names follows; in an
// unknown-field path the decoder spells them properties.NAME, crdlint as
// the server's own schema errors do, properties[NAME].
var schemaKeyword = map[string]bool{"properties": true, "patternProperties": true, "definitions": true, "dependencies": true}

// fieldAsDocumented rewrites the schema part of an unknown or duplicate
// field the server names ("unknown field \"spec....openAPIV3Schema.properties.spec.x\"").
func fieldAsDocumented(f string) string {
	const root = "openAPIV3Schema."
	i := strings.Index(f, root)
	if i < 0 {
		return f
	}
	head, rest := f[:i+len(root)-1], strings.TrimSuffix(f[i+len(root):], `"`)
	parts := strings.Split(rest, ".")
	var b bytes.Buffer
	b.WriteString(head)
	for j := 0; j < len(parts); j++ {
		if schemaKeyword[parts[j]] && j+1 < len(parts) {
			b.WriteString("." + parts[j] + "[" + parts[j+1] + "]")
			j++
			continue
		}
		b.WriteString("." + parts[j])
	}
	b.WriteString(`"`)
	return b.String()
}
