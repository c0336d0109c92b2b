package source

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// checkStreamOracle compares Parse with kubectl's YAMLOrJSONDecoder on
// data, up to kubectl's first error (kubectl stops there; the loader goes
// on where it can): the same documents with the same values, and
// kubectl's words for the error, on the document where kubectl fails.
// It returns false when the difference is one the package documents:
// go.yaml.in/yaml/v3 refusing text after a YAML document's root that
// kubectl's parser never reads.
func checkStreamOracle(t *testing.T, data []byte) bool {
	t.Helper()
	want, kerr := kubectlDocs(data)
	f := Parse("f.json", data)
	var first *int
	for i, x := range f.Findings {
		if x.Rule == RuleSyntax && (first == nil || x.Document < f.Findings[*first].Document) {
			first = &i
		}
	}
	switch {
	case kerr == nil && first != nil:
		x := f.Findings[*first]
		if text := f.Text(x.Document); text != nil && v3Refuses(text) {
			return false
		}
		t.Errorf("%.80q: kubectl reads it, got %+v", data, x)
	case kerr == nil && f.Count != len(want):
		t.Errorf("%.80q: got %d documents, kubectl %d", data, f.Count, len(want))
	case kerr != nil && first == nil:
		t.Errorf("%.80q: kubectl fails (%v), got no %s finding (findings %+v)", data, kerr, RuleSyntax, f.Findings)
	case kerr != nil:
		x := f.Findings[*first]
		// YAML errors come in kubectl's wrapping and with the line of
		// the chunk: only where they are is compared.
		var ye k8syaml.YAMLSyntaxError
		if errors.As(kerr, &ye) && !strings.Contains(kerr.Error(), "while decoding JSON") {
			if x.Document != len(want) {
				t.Errorf("%.80q: got an error on document %d, kubectl after %d documents (%v)", data, x.Document, len(want), kerr)
			}
			break
		}
		if x.Message != kerr.Error() || x.Document != len(want) {
			t.Errorf("%.80q: got %q on document %d, kubectl %q after %d documents", data, x.Message, x.Document, kerr, len(want))
		}
	}
	for _, d := range f.Documents {
		if d.Index >= len(want) || d.Item >= 0 {
			continue
		}
		var got, w any
		if json.Unmarshal(d.JSON, &got) != nil || json.Unmarshal(want[d.Index], &w) != nil || !reflect.DeepEqual(got, w) {
			t.Errorf("%.80q: document %d: got %s, kubectl %s", data, d.Index, d.JSON, want[d.Index])
		}
	}
	return true
}

// v3Refuses reports whether go.yaml.in/yaml/v3 refuses a YAML text that
// kubectl's go.yaml.in/yaml/v2 reads.
func v3Refuses(text []byte) bool {
	var n yaml.Node
	if yaml.Unmarshal(text, &n) == nil {
		return false
	}
	_, err := sigsyaml.YAMLToJSON(text)
	return err == nil
}

// TestParseJSONStream pins how a stream that starts with "{" is read, the
// way kubectl reads it (YAMLOrJSONDecoder): JSON values one after the
// other, then, on a value that does not decode, YAML from there on unless
// two values decoded before it. Each case is also checked against
// kubectl's own decoder.
func TestParseJSONStream(t *testing.T) {
	cm := func(name string) string {
		return `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "` + name + `"}}`
	}
	deep := `{"apiVersion": "v1", "kind": "ConfigMap", "data": ` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "}\n"
	tests := []struct {
		name     string
		in       string
		names    []string // documents' names
		count    int
		findings []findingWant
	}{
		{name: "one object", in: cm("a") + "\n", names: []string{"a"}, count: 1},
		{name: "concatenated objects", in: cm("a") + cm("b") + cm("c"), names: []string{"a", "b", "c"}, count: 3},
		{name: "objects on lines", in: cm("a") + "\n" + cm("b") + "\n", names: []string{"a", "b"}, count: 2},
		{
			// The JSON decoder fails on the first object: kubectl reads
			// it again as YAML, where a trailing comma is allowed.
			// kubectl 1.32 and earlier refuse it with the JSON error.
			name: "trailing comma in the only object", in: `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},}`,
			names: []string{"a"}, count: 1,
			findings: []findingWant{{rule: RuleJSONAsYAML, line: 1, col: 69, msg: asYAML("json: offset 69: invalid character '}' looking for beginning of object key string")}},
		},
		{
			name: "trailing comma in the second object", in: cm("a") + "\n" + `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b",}}`,
			names: []string{"a", "b"}, count: 2,
			findings: []findingWant{{rule: RuleJSONAsYAML, doc: 1, line: 2, col: 68, msg: asYAML("json: offset 137: invalid character '}' looking for beginning of object key string")}},
		},
		{
			// Two objects decoded: the stream is JSON, the error is final.
			name: "trailing comma in the third object", in: cm("a") + "\n" + cm("b") + "\n" + `{"apiVersion": "v1",` + "\n}\n" + cm("d"),
			names: []string{"a", "b"}, count: 3,
			findings: []findingWant{{rule: RuleSyntax, doc: 2, line: 4, col: 1, msg: "invalid character '}' looking for beginning of object key string"}},
		},
		{
			name: "unclosed object", in: `{"apiVersion": "v1", "kind": "ConfigMap"`,
			count:    1,
			findings: []findingWant{{rule: RuleSyntax, line: 1, col: 41, msg: "unexpected EOF"}},
		},
		{
			// YAML reads the rest, and fails too: kubectl gives the JSON
			// decoder's error.
			name: "YAML fallback fails", in: cm("a") + "\n  \t{\"b\": 2,}",
			names: []string{"a"}, count: 2,
			findings: []findingWant{{rule: RuleSyntax, doc: 1, line: 2, col: 12, msg: "json: offset 81: invalid character '}' looking for beginning of object key string"}},
		},
		{
			// Under four bytes left: kubectl does not try YAML at all.
			name: "short garbage after an object", in: cm("a") + "\nx",
			names: []string{"a"}, count: 2,
			findings: []findingWant{{rule: RuleSyntax, doc: 1, line: 2, col: 1, msg: "json: offset 70: invalid character 'x' looking for beginning of value"}},
		},
		{
			name: "YAML after an object", in: cm("a") + "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
			names: []string{"a", "b"}, count: 2,
			findings: []findingWant{{rule: RuleJSONAsYAML, doc: 1, line: 2, col: 2, msg: asYAML("json: offset 71: invalid character '-' in numeric literal")}},
		},
		{
			name: "YAML on the object's line", in: cm("a") + ` {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": 'b'}, "k": [x, @]}`,
			names: []string{"a"}, count: 2,
			findings: []findingWant{{rule: RuleSyntax, doc: 1, line: 1, col: 133, msg: "json: offset 133: invalid character '\\'' looking for beginning of value"}},
		},
		{
			name: "null, array and scalar values", in: cm("a") + "\nnull\n[1]\n\"x\"\n",
			names: []string{"a"}, count: 3,
			findings: []findingWant{
				{rule: RuleNotAnObject, doc: 1, line: 3, col: 1, msg: "document is a list, not an object: Kubernetes manifests are mappings with apiVersion and kind"},
				{rule: RuleNotAnObject, doc: 2, line: 4, col: 1, msg: "document is a scalar, not an object: Kubernetes manifests are mappings with apiVersion and kind"},
			},
		},
		{
			name: "repeated key", in: "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"ConfigMap\",\n  \"metadata\": {\"name\": \"a\", \"name\": \"b\"}\n}\n",
			names: []string{"b"}, count: 1,
			findings: []findingWant{{rule: RuleDuplicate, line: 4, col: 29, field: "metadata.name", msg: `duplicate field "metadata.name"`}},
		},
		{
			name: "nested deeper than the decoder allows", in: deep,
			count:    1,
			findings: []findingWant{{rule: RuleSyntax, line: 1, col: 10050, msg: "json: offset 10050: invalid character '[' exceeded max depth"}},
		},
		{
			name: "white space first, keys with escapes and UTF-8", in: "\n\t " + `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "é"}, "data": {"\u00e9\n": "x"}}`,
			names: []string{"é"}, count: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAsKubectl(t, []byte(tt.in))
			checkStreamOracle(t, []byte(tt.in))
			f := Parse("f.json", []byte(tt.in))
			var names []string
			for _, d := range f.Documents {
				names = append(names, d.Object.Name)
			}
			if !reflect.DeepEqual(names, tt.names) {
				t.Errorf("documents: got %q, want %q", names, tt.names)
			}
			if f.Count != tt.count {
				t.Errorf("got Count %d, want %d", f.Count, tt.count)
			}
			if got := gotFindings(f); !reflect.DeepEqual(got, tt.findings) {
				t.Errorf("findings:\n got %+v\nwant %+v", got, tt.findings)
			}
		})
	}
}

// asYAML is the json-read-as-yaml message for the JSON decoder's error.
func asYAML(jsonErr string) string {
	return "the file is not JSON from here (" + jsonErr + "): kubectl reads the rest as YAML, which accepts it, but kubectl 1.32 and earlier and JSON tools refuse the file"
}

// TestParseJSONPositions checks that values of JSON documents, and of
// YAML read after JSON on the same line, locate at the key or item that
// holds them.
func TestParseJSONPositions(t *testing.T) {
	json := "{\"apiVersion\": \"v1\",\n \"kind\": \"ConfigMap\",\n \"metadata\": {\"name\": \"a\"},\n \"data\": {\n\t\"k\": \"v\", \"é\": [1, {\"x\": null}]}}\n" +
		"  {\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"b\"}}"
	// The second object is not JSON: kubectl reads it, from its "{" on,
	// as YAML.
	yamlAfter := `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": 'b'}}`
	tests := []struct {
		in        string
		doc       int
		path      string
		line, col int
	}{
		{json, 0, "", 1, 1},
		{json, 0, "kind", 2, 2},
		{json, 0, "metadata.name", 3, 15},
		{json, 0, "data[k]", 5, 2},
		{json, 0, "data[é]", 5, 12},
		{json, 0, "data[é][1]", 5, 21},
		{json, 0, "data[é][1].x", 5, 22},
		{json, 1, "", 6, 3},
		{json, 1, "metadata.name", 6, 58},
		{yamlAfter, 1, "", 1, 71},
		{yamlAfter, 1, "kind", 1, 92},
		{yamlAfter, 1, "metadata.name", 1, 126},
	}
	for _, tt := range tests {
		f := Parse("f.json", []byte(tt.in))
		if len(f.Documents) != 2 || len(f.Findings) > 1 || len(f.Findings) == 1 && f.Findings[0].Rule != RuleJSONAsYAML {
			t.Fatalf("%.40q: got %d documents and findings %+v, want 2 and none but %s", tt.in, len(f.Documents), f.Findings, RuleJSONAsYAML)
		}
		pos, exact := f.Documents[tt.doc].Locate(tt.path)
		if !exact || pos.Line != tt.line || pos.Column != tt.col {
			t.Errorf("%.40q: document %d: Locate(%q) = %+v %v, want %d:%d", tt.in, tt.doc, tt.path, pos, exact, tt.line, tt.col)
		}
	}
}
