package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// kubectlDocs is what kubectl's resource builder sends for a file: the
// objects its YAMLOrJSONDecoder yields from the file's text (kubectlText),
// empty and null documents dropped (StreamVisitor.Visit).
func kubectlDocs(data []byte) ([][]byte, error) {
	d := k8syaml.NewYAMLOrJSONDecoder(bytes.NewReader(kubectlText(data)), 4096)
	var out [][]byte
	for {
		var ext runtime.RawExtension
		if err := d.Decode(&ext); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		raw := bytes.TrimSpace(ext.Raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		out = append(out, raw)
	}
}

// checkMatchesKubectl checks that a file kubectl accepts yields as many
// documents as kubectl sends, with the same JSON: byte for byte for YAML,
// since both come from sigs.k8s.io/yaml; for a JSON stream, which kubectl
// sends as written, the same value.
func checkMatchesKubectl(t *testing.T, data []byte, f *File) {
	t.Helper()
	want, err := kubectlDocs(data)
	if err != nil {
		t.Fatalf("kubectl's decoder rejects the input: %v", err)
	}
	if f.Count != len(want) {
		t.Errorf("Count: got %d, want %d (kubectl's documents)", f.Count, len(want))
	}
	for _, d := range f.Documents {
		if d.Index >= len(want) {
			t.Errorf("document %d: Index beyond kubectl's %d documents", d.Index, len(want))
			continue
		}
		raw := want[d.Index]
		if d.Item >= 0 {
			// An item is sent as kubectl's unstructured decoder reads it
			// from the list (given the list's kind when it has none).
			obj, _, err := unstructured.UnstructuredJSONScheme.Decode(raw, nil, nil)
			l, ok := obj.(*unstructured.UnstructuredList)
			if err != nil || !ok || d.Item >= len(l.Items) {
				t.Errorf("document %d item %d: kubectl's JSON has no such item: %s", d.Index, d.Item, raw)
				continue
			}
			if raw, err = json.Marshal(l.Items[d.Item].Object); err != nil {
				t.Fatal(err)
			}
		}
		if k8syaml.IsJSONBuffer(data) {
			var got, want any
			if json.Unmarshal(d.JSON, &got) != nil || json.Unmarshal(raw, &want) != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("document %d item %d JSON:\n got %s\nwant %s", d.Index, d.Item, d.JSON, raw)
			}
		} else if !bytes.Equal(d.JSON, raw) {
			t.Errorf("document %d item %d JSON:\n got %s\nwant %s", d.Index, d.Item, d.JSON, raw)
		}
	}
}

type docWant struct {
	index, item int
	kind, name  string
	line, col   int // Root position
	json        string
}

type findingWant struct {
	rule      string
	doc       int
	line, col int
	field     string
	msg       string
}

func gotDocs(f *File) []docWant {
	var out []docWant
	for _, d := range f.Documents {
		out = append(out, docWant{
			index: d.Index, item: d.Item, kind: d.Object.Kind, name: d.Object.Name,
			line: d.Root.Line, col: d.Root.Column, json: string(d.JSON),
		})
	}
	return out
}

func gotFindings(f *File) []findingWant {
	var out []findingWant
	for _, x := range f.Findings {
		out = append(out, findingWant{rule: x.Rule, doc: x.Document, line: x.Line, col: x.Column, field: x.Field, msg: x.Message})
	}
	return out
}

const (
	cm1 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\ndata:\n  k: v\n"
	cm2 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		docs     []docWant
		findings []findingWant
		count    int
		skipped  int
	}{
		{
			name:  "single document",
			in:    cm1,
			docs:  []docWant{{index: 0, item: -1, kind: "ConfigMap", name: "one", line: 1, col: 1, json: `{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"name":"one"}}`}},
			count: 1,
		},
		{
			// Comment-only, empty and null documents are not documents to
			// kubectl, so they take no index.
			name: "indexes skip empty comment-only and null documents",
			in:   "# header\n---\n" + cm1 + "---\n---\n# nothing\n---\nnull\n---\n~\n---\n" + cm2,
			docs: []docWant{
				{index: 0, item: -1, kind: "ConfigMap", name: "one", line: 3, col: 1, json: `{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"name":"one"}}`},
				{index: 1, item: -1, kind: "ConfigMap", name: "two", line: 17, col: 1, json: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"two"}}`},
			},
			count: 2,
		},
		{
			name:  "leading separator",
			in:    "---\n" + cm2,
			docs:  []docWant{{index: 0, item: -1, kind: "ConfigMap", name: "two", line: 2, col: 1, json: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"two"}}`}},
			count: 1,
		},
		{
			name: "documents without apiVersion or kind are skipped but counted",
			in:   "a: 1\n---\nkind: X\n---\napiVersion: v1\n---\napiVersion: 1\nkind: X\n---\n" + cm2,
			docs: []docWant{
				{index: 4, item: -1, kind: "ConfigMap", name: "two", line: 10, col: 1, json: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"two"}}`},
			},
			count: 5, skipped: 4,
		},
		{
			name: "YAML 1.1 booleans as kubectl resolves them",
			in:   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\nspec:\n  on: yes\n  y: n\n  'no': off\n  v: 'yes'\n",
			docs: []docWant{{index: 0, item: -1, kind: "ConfigMap", name: "b", line: 1, col: 1,
				json: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"},"spec":{"no":false,"true":false,"v":"yes"}}`}},
			// on and y are both the key true to kubectl.
			findings: []findingWant{
				{rule: RuleYAML11Key, line: 6, col: 3, field: "spec.true", msg: `key "on" is YAML 1.1's boolean true as kubectl reads it (the object gets a field "true"); quote it ("on") to keep the name`},
				{rule: RuleDuplicate, line: 7, col: 3, field: "spec.true", msg: `duplicate field "spec.true"`},
				{rule: RuleYAML11Key, line: 7, col: 3, field: "spec.true", msg: `key "y" is YAML 1.1's boolean true as kubectl reads it (the object gets a field "true"); quote it ("y") to keep the name`},
			},
			count: 1,
		},
		{
			name: "kind List expands",
			in: "# list\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n" +
				"- {}\n-   apiVersion: v1\n    kind: Secret\n    metadata: {name: s, namespace: ns}\n",
			docs: []docWant{
				{index: 0, item: 0, kind: "ConfigMap", name: "a", line: 5, col: 3, json: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`},
				{index: 0, item: 2, kind: "Secret", name: "s", line: 10, col: 5, json: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"ns"}}`},
			},
			// kubectl sends the others, and fails on this one.
			findings: []findingWant{{rule: RuleList, line: 9, col: 3, msg: "item 1 of this list has no kind: kubectl does not send it"}},
			count:    1,
		},
		{
			// kubectl's decoder refuses the whole list, and sends none of
			// its items.
			name:     "a List with an item that is not an object",
			in:       "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- not an object\n",
			findings: []findingWant{{rule: RuleList, line: 5, col: 3, msg: "item 1 of this list is a scalar, not an object: kubectl cannot decode the list and sends none of it"}},
			count:    1,
		},
		{
			name:     "items that are not a list",
			in:       "apiVersion: v1\nkind: List\nitems: {a: 1}\n",
			findings: []findingWant{{rule: RuleList, line: 3, col: 1, msg: "items is a mapping, not a list: kubectl cannot decode the list and sends none of it"}},
			count:    1,
		},
		{
			name: "a List in a List",
			in:   "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- apiVersion: v1\n  kind: List\n  items: []\n",
			findings: []findingWant{{rule: RuleList, line: 5, col: 3,
				msg: "item 1 of this list is a list itself: kubectl flattens one list, not a list inside a list, and sends none of the items"}},
			count: 1,
		},
		{
			// kubectl's decoder gives an item without apiVersion and kind
			// the list's, its kind without "List".
			name: "items take a typed list's kind",
			in:   "apiVersion: v1\nkind: ConfigMapList\nitems:\n- metadata: {name: a}\n  data: {k: v}\n",
			docs: []docWant{
				{index: 0, item: 0, kind: "ConfigMap", name: "a", line: 4, col: 3, json: `{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"name":"a"}}`},
			},
			count: 1,
		},
		{
			// The list's key is "items", as kubectl's case-sensitive
			// decoder reads it; so are apiVersion and kind.
			name: "Items is no list",
			in:   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nItems: [{apiVersion: v1, kind: ConfigMap, metadata: {name: b}}]\n",
			docs: []docWant{
				{index: 0, item: -1, kind: "ConfigMap", name: "a", line: 1, col: 1, json: `{"Items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}],"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`},
			},
			count: 1,
		},
		{
			name: "Kind is no kind", in: "apiVersion: v1\nKind: ConfigMap\nmetadata: {name: a}\n",
			skipped: 1, count: 1,
		},
		{
			name: "List items after other documents keep the list's index",
			in:   cm2 + "---\napiVersion: v1\nkind: ConfigMapList\nitems:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}\n",
			docs: []docWant{
				{index: 0, item: -1, kind: "ConfigMap", name: "two", line: 1, col: 1, json: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"two"}}`},
				{index: 1, item: 0, kind: "ConfigMap", name: "x", line: 9, col: 5, json: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`},
			},
			count: 2,
		},
		{
			// kubectl's unstructured decoder takes any object with items
			// for a list, whatever its kind.
			name: "any kind with items expands, as kubectl does",
			in:   "apiVersion: example.com/v1\nkind: Inventory\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: z}}\n",
			docs: []docWant{
				{index: 0, item: 0, kind: "ConfigMap", name: "z", line: 4, col: 3, json: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"z"}}`},
			},
			count: 1,
		},
		{
			name:  "empty List",
			in:    "apiVersion: v1\nkind: List\nitems: []\n",
			count: 1,
		},
		{
			name: "top-level list is not an object",
			in:   cm2 + "---\n\n  - a\n  - b\n",
			docs: []docWant{{index: 0, item: -1, kind: "ConfigMap", name: "two", line: 1, col: 1, json: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"two"}}`}},
			findings: []findingWant{{rule: RuleNotAnObject, doc: 1, line: 7, col: 3,
				msg: "document is a list, not an object: Kubernetes manifests are mappings with apiVersion and kind"}},
			count: 2,
		},
		{
			name: "scalar is not an object",
			in:   "# c\n---\nhello world\n",
			findings: []findingWant{{rule: RuleNotAnObject, doc: 0, line: 3, col: 1,
				msg: "document is a scalar, not an object: Kubernetes manifests are mappings with apiVersion and kind"}},
			count: 1,
		},
		{
			name: "duplicate key at the second key, last value kept",
			in:   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\nspec:\n  a: 1\n  b: 2\n  a: 3\n",
			docs: []docWant{{index: 0, item: -1, kind: "ConfigMap", name: "d", line: 1, col: 1,
				json: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"spec":{"a":3,"b":2}}`}},
			findings: []findingWant{{rule: RuleDuplicate, line: 8, col: 3, field: "spec.a", msg: `duplicate field "spec.a"`}},
			count:    1,
		},
		{
			name: "duplicates in a sequence item of a later document",
			in:   cm1 + "---\napiVersion: v1\nkind: X\nspec:\n  items:\n  - x: 1\n    x: 2\n    x: 3\n",
			docs: []docWant{
				{index: 0, item: -1, kind: "ConfigMap", name: "one", line: 1, col: 1, json: `{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"name":"one"}}`},
				{index: 1, item: -1, kind: "X", line: 8, col: 1, json: `{"apiVersion":"v1","kind":"X","spec":{"items":[{"x":3}]}}`},
			},
			findings: []findingWant{
				{rule: RuleDuplicate, doc: 1, line: 13, col: 5, field: "spec.items[0].x", msg: `duplicate field "spec.items[0].x"`},
				{rule: RuleDuplicate, doc: 1, line: 14, col: 5, field: "spec.items[0].x", msg: `duplicate field "spec.items[0].x"`},
			},
			count: 2,
		},
		{
			name: "numbers as keys are duplicates when kubectl prints them alike",
			// Only keys that are equal to go.yaml.in/yaml/v2 (here ints,
			// or floats) collapse in a fixed order: sigs.k8s.io/yaml turns
			// v2's map into JSON in map order, so an int 1 and a float 1.0
			// both printed "1" would make the value random.
			in:   "apiVersion: v1\nkind: X\ndata:\n  0x1F: a\n  31: b\n  1.0: c\n  1.00: d\n",
			docs: []docWant{{index: 0, item: -1, kind: "X", line: 1, col: 1, json: `{"apiVersion":"v1","data":{"1":"d","31":"b"},"kind":"X"}`}},
			findings: []findingWant{
				{rule: RuleDuplicate, line: 5, col: 3, field: "data.31", msg: `duplicate field "data.31"`},
				{rule: RuleDuplicate, line: 7, col: 3, field: "data.1", msg: `duplicate field "data.1"`},
			},
			count: 1,
		},
		{
			name: "anchors, aliases and merge keys",
			in: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n  labels: &l\n    app: x\n    tier: web\n" +
				"data:\n  <<: *l\n  tier: db\n  copy: *l\n  <<: {more: z}\n",
			docs: []docWant{{index: 0, item: -1, kind: "ConfigMap", name: "m", line: 1, col: 1,
				json: `{"apiVersion":"v1","data":{"app":"x","copy":{"app":"x","tier":"web"},"more":"z","tier":"db"},"kind":"ConfigMap","metadata":{"labels":{"app":"x","tier":"web"},"name":"m"}}`}},
			count: 1,
		},
		{
			name: "CRLF and no final newline",
			in:   "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: c\r\n---\r\napiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: d\r\ndata:\r\n  s: |\r\n    x",
			docs: []docWant{
				{index: 0, item: -1, kind: "ConfigMap", name: "c", line: 1, col: 1, json: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`},
				// kubectl's reader ends the last line, so the block scalar
				// keeps its newline.
				{index: 1, item: -1, kind: "ConfigMap", name: "d", line: 6, col: 1, json: `{"apiVersion":"v1","data":{"s":"x\n"},"kind":"ConfigMap","metadata":{"name":"d"}}`},
			},
			count: 2,
		},
		{
			name:  "JSON document",
			in:    "{\n\t\"apiVersion\": \"v1\",\n\t\"kind\": \"ConfigMap\",\n\t\"metadata\": {\"name\": \"j\"}\n}\n",
			docs:  []docWant{{index: 0, item: -1, kind: "ConfigMap", name: "j", line: 1, col: 1, json: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"j"}}`}},
			count: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAsKubectl(t, []byte(tt.in))
			f := Parse("f.yaml", []byte(tt.in))
			if got := gotDocs(f); !reflect.DeepEqual(got, tt.docs) {
				t.Errorf("documents:\n got %+v\nwant %+v", got, tt.docs)
			}
			if got := gotFindings(f); !reflect.DeepEqual(got, tt.findings) {
				t.Errorf("findings:\n got %+v\nwant %+v", got, tt.findings)
			}
			if f.Count != tt.count || f.Skipped != tt.skipped {
				t.Errorf("got Count %d Skipped %d, want %d %d", f.Count, f.Skipped, tt.count, tt.skipped)
			}
			for _, x := range f.Findings {
				if x.File != "f.yaml" {
					t.Errorf("finding %+v: got File %q, want f.yaml", x, x.File)
				}
			}
			checkMatchesKubectl(t, []byte(tt.in), f)
		})
	}
}

// TestParseJSONIsSigsYAML checks the JSON against sigs.k8s.io/yaml applied
// to the chunk, which is all kubectl does to a YAML document.
func TestParseJSONIsSigsYAML(t *testing.T) {
	in := []byte("a: 1\n---\napiVersion: v1\nkind: X\nn: 1.50\nt: 2024-01-02\ns: !!str 5\nbig: 12345678901234567890\nhuge: 1e400\n" +
		"---\napiVersion: v1\nkind: Z\nk: |-\n  text\n")
	chunks, _ := split(in)
	f := Parse("f.yaml", in)
	if len(f.Documents) != 2 {
		t.Fatalf("got %d documents, want 2 (findings %+v)", len(f.Documents), f.Findings)
	}
	for i, d := range f.Documents {
		want, err := sigsyaml.YAMLToJSON(chunks[i+1].text)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(d.JSON, want) {
			t.Errorf("document %d: got %s, want %s", d.Index, d.JSON, want)
		}
	}
}

// TestParseDuplicateLastWins pins what the duplicate-field rule's text
// says: sigs.k8s.io/yaml keeps the last of repeated keys.
func TestParseDuplicateLastWins(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"scalars", "a: 1\na: 2\na: 3\n", `{"a":3}`},
		{"mappings are replaced, not merged", "a: {x: 1}\na: {z: 2}\n", `{"a":{"z":2}}`},
		{"nested", "s:\n  a: [1]\n  a: [2]\n", `{"s":{"a":[2]}}`},
		{"YAML 1.1 spellings of one boolean", "on: 1\nyes: 2\nY: 3\n", `{"true":3}`},
		{"YAML 1.1 spellings of one number", "0x1F: 1\n31: 2\n0o37: 3\n", `{"31":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 20 { // map order must not matter
				got, err := sigsyaml.YAMLToJSON([]byte(tt.in))
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tt.want {
					t.Fatalf("got %s, want %s", got, tt.want)
				}
			}
		})
	}
}

func TestParseSyntaxErrors(t *testing.T) {
	// Two good documents (lines 1-4 and 6-9) put the third at line 11, so
	// every line below is a file line, not a line of the document.
	head := cm2 + "---\n" + cm2 + "---\n"
	tests := []struct {
		name      string
		in        string
		line, col int
		msg       string
		count     int
	}{
		{
			name: "scanner error in the third document",
			in:   head + "apiVersion: v1\nkind: X\nspec:\n  a: 1\n  b: @x\n  c: 2\n",
			line: 15, col: 1, msg: "yaml: found character that cannot start any token", count: 3,
		},
		{
			name: "error at file line 17",
			in:   head + "apiVersion: v1\nkind: X\nspec:\n  a: 1\n  b: 2\n  c: 3\n  d: @x\n",
			line: 17, col: 1, msg: "yaml: found character that cannot start any token", count: 3,
		},
		{
			// libyaml prints a parser error's 0-based line.
			name: "parser error in the third document",
			in:   head + "apiVersion: v1\nkind: X\nspec:\n  a: 1\n  b: 2\n - c\n",
			line: 16, col: 1, msg: "yaml: did not find expected key", count: 3,
		},
		{
			name: "error at the third document's first line",
			in:   head + "a: b: c\n",
			line: 11, col: 1, msg: "yaml: mapping values are not allowed in this context", count: 3,
		},
		{
			name: "unclosed flow sequence",
			in:   head + "apiVersion: v1\nkind: X\nspec: [1, 2\n",
			line: 14, col: 1, msg: "yaml: did not find expected ',' or ']'", count: 3,
		},
		{
			name: "wrong indentation",
			in:   head + "a:\n  b:\n    c: 1\n   d: 2\n",
			line: 14, col: 1, msg: "yaml: did not find expected key", count: 3,
		},
		{
			name: "tab indentation",
			in:   head + "a:\n\tb: 1\n",
			line: 12, col: 1, msg: "yaml: found character that cannot start any token (a tab: YAML indentation must use spaces)", count: 3,
		},
		{
			name: "unterminated quoted string",
			in:   head + "a: 1\nb: \"abc\n",
			line: 12, col: 1, msg: "yaml: found unexpected end of stream", count: 3,
		},
		{
			name: "key without colon",
			in:   head + "a: 1\nb\nc: 2\n",
			line: 12, col: 1, msg: "yaml: could not find expected ':'", count: 3,
		},
		{
			// The context is the plain scalar before the tab.
			name: "tab in indentation after a plain scalar",
			in:   head + "a:\n  b: c\n\td: e\n",
			line: 13, col: 1, msg: "yaml: found a tab character that violates indentation (a tab: YAML indentation must use spaces)", count: 3,
		},
		{
			name: "unknown anchor",
			in:   head + "a: 1\nb:\n  c: [x, *nope]\n",
			line: 13, col: 10, msg: "yaml: unknown anchor 'nope' referenced", count: 3,
		},
		{
			name: "control character",
			in:   head + "a: 1\nb: \x01\n",
			line: 12, col: 1, msg: "yaml: control characters are not allowed", count: 3,
		},
		{
			// go.yaml.in/yaml/v3 accepts the rest; kubectl's
			// go.yaml.in/yaml/v2 does not, and says neither line nor key.
			name: "complex key",
			in:   head + "a: 1\nb:\n  ? [x]\n  : 1\n",
			line: 13, col: 5, msg: `yaml: invalid map key: [x] (a list: a key must be a string, a number or a boolean)`, count: 3,
		},
		{
			name: "null key",
			in:   head + "a: 1\nb:\n  ~: 1\n",
			line: 13, col: 3, msg: "yaml: unsupported map key: ~ (null: a key must be a string, a number or a boolean)", count: 3,
		},
		{
			// A Go template action is a mapping in a mapping to YAML.
			name: "template action",
			in:   head + "a: 1\nb:\n  c: {{ .Name }}\n",
			line: 13, col: 7, msg: "yaml: invalid map key: {.Name: null} (a mapping: a key must be a string, a number or a boolean); {{ starts a template action: render the template first", count: 3,
		},
		{
			name: "merge of a scalar",
			in:   head + "a: 1\nb:\n  c: 2\n  <<: 3\n",
			line: 14, col: 3, msg: "yaml: map merge requires map or sequence of maps as the value", count: 3,
		},
		{
			name: "explicit tag that does not fit",
			in:   head + "a: !!int 1\nb: !!int foo\n",
			line: 12, col: 4, msg: "yaml: cannot decode !!str `foo` as a !!int", count: 3,
		},
		{
			name: "infinity JSON cannot hold",
			in:   head + "a: [1, 2]\nb: [3, -.Inf]\n",
			line: 12, col: 8, msg: "json: unsupported value: -Inf", count: 3,
		},
		{
			name: "invalid base64",
			in:   head + "a: !!binary aGk=\nb: !!binary '!!'\n",
			line: 12, col: 4, msg: "yaml: !!binary value contains invalid base64 data", count: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAsKubectl(t, []byte(tt.in))
			f := Parse("f.yaml", []byte(tt.in))
			if len(f.Findings) != 1 {
				t.Fatalf("got findings %+v, want one", f.Findings)
			}
			got := f.Findings[0]
			want := report.Finding{Rule: RuleSyntax, Severity: report.Error, File: "f.yaml", Document: 2, Line: tt.line, Column: tt.col, Message: tt.msg}
			if got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			if f.Count != tt.count || len(f.Documents) != 2 {
				t.Errorf("got Count %d and %d documents, want %d and 2", f.Count, len(f.Documents), tt.count)
			}
			if _, err := kubectlDocs([]byte(tt.in)); err == nil {
				t.Errorf("kubectl accepts the input; want it to fail too")
			}
		})
	}
}

func TestParseBadSeparators(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		findings []findingWant
		names    []string
	}{
		{
			name: "content after the separator",
			in:   cm2 + "--- foo\n" + strings.Replace(cm2, "two", "three", 1),
			findings: []findingWant{
				{rule: RuleSyntax, line: 5, col: 4, msg: "invalid Yaml document separator: foo"},
			},
			names: []string{"two", "three"},
		},
		{
			name: "glued separator",
			in:   cm2 + "---apiVersion: v1\n" + cm1,
			findings: []findingWant{
				{rule: RuleSyntax, line: 5, col: 4, msg: "invalid Yaml document separator: apiVersion: v1"},
			},
			names: []string{"two", "one"},
		},
		{
			// With nothing before it the line stays in the document, where
			// YAML reads its content as the document: a second finding.
			name: "bad separator first",
			in:   "--- text\n",
			findings: []findingWant{
				{rule: RuleSyntax, line: 1, col: 4, msg: "invalid Yaml document separator: text"},
				{rule: RuleNotAnObject, line: 1, col: 5, msg: "document is a scalar, not an object: Kubernetes manifests are mappings with apiVersion and kind"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse("f.yaml", []byte(tt.in))
			if got := gotFindings(f); !reflect.DeepEqual(got, tt.findings) {
				t.Errorf("findings:\n got %+v\nwant %+v", got, tt.findings)
			}
			var names []string
			for _, d := range f.Documents {
				names = append(names, d.Object.Name)
			}
			if fmt.Sprint(names) != fmt.Sprint(tt.names) {
				t.Errorf("documents: got %v, want %v", names, tt.names)
			}
			if _, err := kubectlDocs([]byte(tt.in)); err == nil {
				t.Errorf("kubectl accepts the input; want it to refuse the separator")
			}
		})
	}
}

func TestGroupVersion(t *testing.T) {
	tests := []struct {
		apiVersion, group, version string
	}{
		{"v1", "", "v1"},
		{"apps/v1", "apps", "v1"},
		{"apiextensions.k8s.io/v1beta1", "apiextensions.k8s.io", "v1beta1"},
		{"", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.apiVersion, func(t *testing.T) {
			d := &Document{Object: report.ObjectRef{APIVersion: tt.apiVersion}}
			if g, v := d.GroupVersion(); g != tt.group || v != tt.version {
				t.Errorf("got %q %q, want %q %q", g, v, tt.group, tt.version)
			}
		})
	}
}

// TestParseCorpus parses every corpus file and checks it against kubectl's
// decoder: the same number of documents, the same JSON.
func TestParseCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus test in -short mode")
	}
	files := append(testutil.Files(t, "crds"), testutil.Files(t, "crs")...)
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f := Parse(p, data)
			if _, err := kubectlDocs(data); err != nil {
				if len(f.Findings) == 0 {
					t.Errorf("kubectl fails (%v), but no finding", err)
				}
				return
			}
			for _, x := range f.Findings {
				if x.Rule == RuleSyntax || x.Rule == RuleNotAnObject {
					t.Errorf("kubectl reads the file, but got %+v", x)
				}
			}
			checkMatchesKubectl(t, data, f)
		})
	}
}

// A repeated key inside a list's item is the item's, at its path in the
// item, as kubectl sends the item on its own; one of the list itself
// stays the list's.
func TestListKeysBelongToItems(t *testing.T) {
	in := "apiVersion: v1\nkind: List\nmetadata: {}\nmetadata: {}\nitems:\n" +
		"- {apiVersion: example.com/v1, kind: Widget, metadata: {name: first}, spec: {size: 1}}\n" +
		"- apiVersion: example.com/v1\n  kind: Widget\n  metadata:\n    name: second\n  spec:\n    size: 2\n    size: 3\n    on: 4\n"
	f := Parse("l.yaml", []byte(in))
	type key struct {
		rule, object, field, msg string
		line                     int
	}
	var got []key
	for _, fd := range f.Findings {
		got = append(got, key{fd.Rule, fd.Object.String(), fd.Field, fd.Message, fd.Line})
	}
	want := []key{
		{RuleDuplicate, "List", "metadata", `duplicate field "metadata"`, 4},
		{RuleDuplicate, "Widget second", "spec.size", `duplicate field "spec.size"`, 13},
		{RuleYAML11Key, "Widget second", "spec.true", `key "on" is YAML 1.1's boolean true as kubectl reads it (the object gets a field "true"); quote it ("on") to keep the name`, 14},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %+v\nwant %+v", got, want)
	}
	for _, p := range []struct {
		field string
		n     int
		rest  string
		ok    bool
	}{{"items[12].spec.a", 12, "spec.a", true}, {`items[0]["a.b"]`, 0, `["a.b"]`, true}, {"items[x].spec", 0, "", false}, {"items[1]", 0, "", false}, {"spec.items[1].a", 0, "", false}, {"items[1].", 0, "", false}} {
		if n, rest, ok := itemPath(p.field); n != p.n || rest != p.rest || ok != p.ok {
			t.Errorf("itemPath(%q) = %d, %q, %v", p.field, n, rest, ok)
		}
	}
}
