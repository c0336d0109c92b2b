package source

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		name string
		path string
		want []Segment
		// join is JoinPath of the segments when it is not path itself.
		join string
	}{
		{name: "empty", path: ""},
		{name: "nil", path: "<nil>", join: ""},
		{name: "one name", path: "spec", want: []Segment{{Name: "spec"}}},
		{
			name: "server path",
			path: "spec.versions[0].schema.openAPIV3Schema.properties[spec].type",
			want: []Segment{
				{Name: "spec"}, {Name: "versions"}, {Name: "0", Bracket: true}, {Name: "schema"},
				{Name: "openAPIV3Schema"}, {Name: "properties"}, {Name: "spec", Bracket: true}, {Name: "type"},
			},
		},
		{
			name: "bracket key with dots",
			path: "metadata.annotations[api-approved.kubernetes.io]",
			want: []Segment{{Name: "metadata"}, {Name: "annotations"}, {Name: "api-approved.kubernetes.io", Bracket: true}},
			join: `metadata.annotations["api-approved.kubernetes.io"]`,
		},
		{
			name: "bracket key with slash",
			path: "properties[example.com/x].type",
			want: []Segment{{Name: "properties"}, {Name: "example.com/x", Bracket: true}, {Name: "type"}},
			join: `properties["example.com/x"].type`,
		},
		{
			name: "quoted key",
			path: `metadata.annotations["example.com/x"]`,
			want: []Segment{{Name: "metadata"}, {Name: "annotations"}, {Name: "example.com/x", Bracket: true}},
		},
		{
			name: "quoted key with escapes",
			path: `status["(conditions[?type == \"Ready\"]"].x`,
			want: []Segment{{Name: "status"}, {Name: `(conditions[?type == "Ready"]`, Bracket: true}, {Name: "x"}},
		},
		{
			name: "strict decoder spelling",
			path: "properties.example.com/x.Type",
			want: []Segment{{Name: "properties"}, {Name: "example"}, {Name: "com/x"}, {Name: "Type"}},
			join: `properties.example["com/x"].Type`,
		},
		{name: "leading index", path: "[3].a", want: []Segment{{Name: "3", Bracket: true}, {Name: "a"}}},
		{
			name: "adjacent brackets",
			path: "a[1][k]",
			want: []Segment{{Name: "a"}, {Name: "1", Bracket: true}, {Name: "k", Bracket: true}},
		},
		{
			name: "nested brackets",
			path: "a[x[0]].b",
			want: []Segment{{Name: "a"}, {Name: "x[0]", Bracket: true}, {Name: "b"}},
			join: `a["x[0]"].b`,
		},
		{name: "empty bracket", path: "a[]", want: []Segment{{Name: "a"}, {Name: "", Bracket: true}}, join: `a[""]`},
		{name: "unbalanced bracket runs to the end", path: "a[b.c", want: []Segment{{Name: "a"}, {Name: "b.c", Bracket: true}}, join: `a["b.c"]`},
		{name: "empty names are dropped", path: "a..b.", want: []Segment{{Name: "a"}, {Name: "b"}}, join: "a.b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParsePath(tt.path)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParsePath(%q): got %+v, want %+v", tt.path, got, tt.want)
			}
			want := tt.path
			if tt.join != "" || tt.path == "<nil>" {
				want = tt.join
			}
			if j := JoinPath(got); j != want {
				t.Errorf("JoinPath(ParsePath(%q)): got %q, want %q", tt.path, j, want)
			}
			// Names that are not plain come back as brackets.
			var back []Segment
			for _, s := range got {
				back = append(back, Segment{Name: s.Name, Bracket: s.Bracket || !PlainName(s.Name)})
			}
			if again := ParsePath(JoinPath(got)); !reflect.DeepEqual(again, back) {
				t.Errorf("ParsePath(JoinPath(%+v)): got %+v, want %+v", got, again, back)
			}
		})
	}
}

// locateFile has a ConfigMap first, so that every position below is a
// file position of a later document.
const locateFile = `apiVersion: v1
kind: ConfigMap
metadata:
  name: first
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
  annotations:
    api-approved.kubernetes.io: "https://github.com/kubernetes/enhancements/pull/1111"
    example.com/x: "1"
    a[0]: b
spec:
  group: example.com
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            Type: object
            properties:
              example.com/x:
                type: string
              on:
                type: boolean
              replicas: {type: integer, minimum: 0}
              list:
                type: array
                items:
                  - a
                  -   b
  -   name: v2
      served: false
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: merged
defaults: &defaults
  a: 1
  b: 2
override: &ov
  b: 3
data:
  x: 0
  <<: [*ov, *defaults]
  c: 4
  ref: *defaults
later:
  a: 9
  <<: *defaults
  0x1F: hex
`

func TestLocate(t *testing.T) {
	f := Parse("f.yaml", []byte(locateFile))
	// The property "on" is the key true to kubectl: a hint, the only
	// finding.
	if len(f.Findings) != 1 || f.Findings[0].Rule != RuleYAML11Key || f.Findings[0].Line != 30 || len(f.Documents) != 3 {
		t.Fatalf("got %d documents and findings %+v, want 3 and one %s at line 30", len(f.Documents), f.Findings, RuleYAML11Key)
	}
	docs := map[string]*Document{}
	for _, d := range f.Documents {
		docs[d.Object.Name] = d
	}
	const props = "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties"
	tests := []struct {
		name, doc, path string
		line, col       int
		exact           bool
	}{
		{name: "empty path is the root", doc: "widgets.example.com", path: "", line: 6, col: 1, exact: true},
		{name: "nil path is the root", doc: "widgets.example.com", path: "<nil>", line: 6, col: 1, exact: true},
		{name: "top-level key", doc: "widgets.example.com", path: "spec", line: 14, col: 1, exact: true},
		{name: "nested key", doc: "widgets.example.com", path: "spec.group", line: 15, col: 3, exact: true},
		{name: "sequence item", doc: "widgets.example.com", path: "spec.versions[1]", line: 38, col: 7, exact: true},
		{name: "key in a sequence item", doc: "widgets.example.com", path: "spec.versions[1].served", line: 39, col: 7, exact: true},
		{name: "scalar item", doc: "widgets.example.com", path: props + "[list].items[1]", line: 37, col: 23, exact: true},
		{name: "bracket property", doc: "widgets.example.com", path: "spec.versions[0].schema.openAPIV3Schema.properties[spec].type", line: 25, col: 13, exact: true},
		{name: "bracket key with dots", doc: "widgets.example.com", path: "metadata.annotations[api-approved.kubernetes.io]", line: 11, col: 5, exact: true},
		{name: "bracket key with dots and slash", doc: "widgets.example.com", path: "metadata.annotations[example.com/x]", line: 12, col: 5, exact: true},
		{name: "bracket key with brackets", doc: "widgets.example.com", path: "metadata.annotations[a[0]]", line: 13, col: 5, exact: true},
		{name: "strict decoder dotted key", doc: "widgets.example.com", path: "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.example.com/x.type", line: 29, col: 17, exact: true},
		{name: "strict decoder field name", doc: "widgets.example.com", path: "spec.versions[0].schema.openAPIV3Schema.properties.spec.Type", line: 26, col: 13, exact: true},
		{name: "flow mapping key", doc: "widgets.example.com", path: props + "[replicas].minimum", line: 32, col: 41, exact: true},
		{name: "YAML 1.1 key on is true", doc: "widgets.example.com", path: props + "[true].type", line: 31, col: 17, exact: true},
		{name: "YAML 1.1 key on is not on", doc: "widgets.example.com", path: props + "[on].type", line: 27, col: 13, exact: false},
		{name: "absent property: nearest ancestor key", doc: "widgets.example.com", path: props + "[missing].type", line: 27, col: 13, exact: false},
		{name: "absent top-level field: the root", doc: "widgets.example.com", path: "status.conditions", line: 6, col: 1, exact: false},
		{name: "index out of range", doc: "widgets.example.com", path: "spec.versions[2].name", line: 16, col: 3, exact: false},
		{name: "negative index", doc: "widgets.example.com", path: "spec.versions[-1]", line: 16, col: 3, exact: false},
		{name: "index that is not a number", doc: "widgets.example.com", path: "spec.versions[v1]", line: 16, col: 3, exact: false},
		{name: "index without brackets", doc: "widgets.example.com", path: "spec.versions.0", line: 16, col: 3, exact: false},
		{name: "field below a scalar", doc: "widgets.example.com", path: "spec.group.name", line: 15, col: 3, exact: false},
		{name: "first document", doc: "first", path: "metadata.name", line: 4, col: 3, exact: true},
		{name: "explicit key beside a merge", doc: "merged", path: "data.c", line: 53, col: 3, exact: true},
		{name: "merged key", doc: "merged", path: "data.a", line: 46, col: 3, exact: true},
		{name: "earliest of several merged mappings wins", doc: "merged", path: "data.b", line: 49, col: 3, exact: true},
		{name: "through an alias", doc: "merged", path: "data.ref.b", line: 47, col: 3, exact: true},
		{name: "alias value itself", doc: "merged", path: "data.ref", line: 54, col: 3, exact: true},
		// go.yaml.in/yaml/v2 applies a merge where it stands, so a later
		// merge overrides an explicit key: the JSON says later.a is 1.
		{name: "merge after an explicit key wins", doc: "merged", path: "later.a", line: 46, col: 3, exact: true},
		{name: "absent from merged mappings", doc: "merged", path: "data.z", line: 50, col: 1, exact: false},
		{name: "hex key as kubectl prints it", doc: "merged", path: "later.31", line: 58, col: 3, exact: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := docs[tt.doc]
			pos, exact := d.Locate(tt.path)
			if pos != (Pos{Line: tt.line, Column: tt.col}) || exact != tt.exact {
				t.Errorf("Locate(%q): got %d:%d exact=%v, want %d:%d exact=%v", tt.path, pos.Line, pos.Column, exact, tt.line, tt.col, tt.exact)
			}
		})
	}

	// The positions above follow the values kubectl sends.
	var merged struct {
		Data  map[string]any
		Later map[string]any
	}
	if err := json.Unmarshal(docs["merged"].JSON, &merged); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		got  any
		want float64
	}{{merged.Data["a"], 1}, {merged.Data["b"], 3}, {merged.Later["a"], 1}} {
		if c.got != c.want {
			t.Errorf("JSON %s: got %v, want %v", docs["merged"].JSON, c.got, c.want)
		}
	}
}

// TestLocateListItems checks that an item of a kind: List document
// resolves paths from its own root, at file positions.
func TestLocateListItems(t *testing.T) {
	in := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n# the list\napiVersion: v1\nkind: List\nitems:\n" +
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n" +
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n  data:\n    k: v\n"
	f := Parse("f.yaml", []byte(in))
	if len(f.Documents) != 3 {
		t.Fatalf("got %d documents, want 3", len(f.Documents))
	}
	tests := []struct {
		item      int
		path      string
		line, col int
		exact     bool
	}{
		{0, "", 9, 3, true},
		{0, "metadata.name", 12, 5, true},
		{1, "data.k", 18, 5, true},
		{1, "data.missing", 17, 3, false},
		{1, "items", 13, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			d := f.Documents[tt.item+1]
			if d.Index != 1 || d.Item != tt.item {
				t.Fatalf("got Index %d Item %d, want 1 %d", d.Index, d.Item, tt.item)
			}
			pos, exact := d.Locate(tt.path)
			if pos != (Pos{Line: tt.line, Column: tt.col}) || exact != tt.exact {
				t.Errorf("Locate(%q): got %d:%d exact=%v, want %d:%d exact=%v", tt.path, pos.Line, pos.Column, exact, tt.line, tt.col, tt.exact)
			}
		})
	}
}

// TestLocateCRLF checks that Windows line endings leave positions alone.
func TestLocateCRLF(t *testing.T) {
	in := strings.ReplaceAll(locateFile, "\n", "\r\n")
	f := Parse("f.yaml", []byte(in))
	if len(f.Documents) != 3 {
		t.Fatalf("got %d documents, want 3", len(f.Documents))
	}
	pos, exact := f.Documents[1].Locate("metadata.annotations[example.com/x]")
	if pos != (Pos{Line: 12, Column: 5}) || !exact {
		t.Errorf("got %d:%d exact=%v, want 12:5 exact=true", pos.Line, pos.Column, exact)
	}
}

// TestLocateYAMLOnlyLineBreaks checks positions after characters that
// libyaml takes for line breaks and editors, grep and kubectl do not.
func TestLocateYAMLOnlyLineBreaks(t *testing.T) {
	tests := []struct {
		name, in, path string
		line, col      int
	}{
		{"LS in a quoted string", "apiVersion: v1\nkind: X\nd: \"a\u2028b\"\nspec:\n  k: 1\n", "spec.k", 5, 3},
		{"PS in a single-quoted string", "apiVersion: v1\nkind: X\nd: 'a\u2029b'\nspec:\n  k: 1\n", "spec.k", 5, 3},
		{"NEL in a comment", "apiVersion: v1\nkind: X # \u0085\nspec:\n  k: 1\n", "spec.k", 4, 3},
		{"lone CR", "apiVersion: v1\nkind: X\nd: 1\rspec: {k: 1}\n", "spec.k", 3, 13},
		{"several on one line", "apiVersion: v1\nkind: X\nd: \"\u2028\u2028\"\rspec: {k: 1}\n", "spec.k", 3, 16},
		{"in a later document", "a: 1\n---\napiVersion: v1\nkind: X\nd: \"\u2028\"\nspec:\n  k: 1\n", "spec.k", 7, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse("f.yaml", []byte(tt.in))
			if len(f.Documents) != 1 || len(f.Findings) != 0 {
				t.Fatalf("got %d documents and findings %+v, want 1 and none", len(f.Documents), f.Findings)
			}
			pos, exact := f.Documents[0].Locate(tt.path)
			if pos != (Pos{Line: tt.line, Column: tt.col}) || !exact {
				t.Errorf("Locate(%q): got %d:%d exact=%v, want %d:%d exact=true", tt.path, pos.Line, pos.Column, exact, tt.line, tt.col)
			}
		})
	}

	f := Parse("f.yaml", []byte("a: 1\n---\nd: \"\u2028\"\nb: @\n"))
	want := []findingWant{{rule: RuleSyntax, doc: 1, line: 4, col: 1, msg: "yaml: found character that cannot start any token"}}
	if got := gotFindings(f); !reflect.DeepEqual(got, want) {
		t.Errorf("syntax error after LS: got %+v, want %+v", got, want)
	}
}

// TestLocateLargeMapping: the index of large mappings finds what a scan
// finds: the last of repeated keys, YAML 1.1 spellings, alias keys, and
// merge keys (whose mappings are not indexed).
func TestLocateLargeMapping(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 20 {
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: X\nk0: &k0 anchored\n")
		if round%4 == 3 {
			b.WriteString("base: &base {m1: 1, m2: 2}\n<<: *base\n")
		}
		names := []string{"on", "yes", "0x1F", "m1", "'quoted'", "*k0", "a.b"}
		for i := range 300 {
			names = append(names, fmt.Sprintf("k%d", rng.IntN(150)))
			fmt.Fprintf(&b, "%s: %d\n", names[len(names)-1], i)
		}
		for _, n := range names[:7] {
			fmt.Fprintf(&b, "%s: v\n", n)
		}
		f := Parse("big.yaml", []byte(b.String()))
		if len(f.Documents) != 1 {
			t.Fatalf("round %d: got %d documents, findings %+v", round, len(f.Documents), f.Findings)
		}
		d := f.Documents[0]
		var obj map[string]any
		if err := json.Unmarshal(d.JSON, &obj); err != nil {
			t.Fatal(err)
		}
		for key := range obj {
			got, gotExact := d.Locate("[" + key + "]")
			wantK, _ := lookupPair(d.Root, key, 0)
			if !gotExact || wantK == nil || got != (Pos{wantK.Line, wantK.Column}) {
				t.Errorf("round %d: Locate([%s]) = %+v %v, a scan finds %+v", round, key, got, gotExact, wantK)
			}
		}
		if _, exact := d.Locate("missing"); exact {
			t.Errorf("round %d: Locate(missing) is exact", round)
		}
	}
}
