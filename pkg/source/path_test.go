package source

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

func TestPlainName(t *testing.T) {
	tests := []struct {
		name  string
		plain bool
	}{
		{"spec", true},
		{"x-kubernetes-validations", true},
		{"$ref", true},
		{"0", true},
		{"größe", true},
		{"a:b=c,d(e)*", true},
		{"", false},
		{"a.b", false},
		{"example.com/x", false},
		{"a/b", false},
		{"a[0]", false},
		{"a]", false},
		{"a b", false},
		{"a\tb", false},
		{`a"b`, false},
		{"a'b", false},
		{"a`b", false},
		{"a?", false},
		{`a\b`, false},
		{"a\x00b", false},
		{"a\u2028b", false},
		{"\xff", false},
	}
	for _, tt := range tests {
		if got := PlainName(tt.name); got != tt.plain {
			t.Errorf("PlainName(%q): got %v, want %v", tt.name, got, tt.plain)
		}
	}
}

// TestNotation pins the notation of docs/rules.md: segments to text with
// JoinPath and back with ParseField.
func TestNotation(t *testing.T) {
	tests := []struct {
		name string
		segs []Segment
		want string
	}{
		{name: "root", want: ""},
		{name: "names", segs: []Segment{{Name: "spec"}, {Name: "replicas"}}, want: "spec.replicas"},
		{
			name: "index and plain key",
			segs: []Segment{{Name: "spec"}, {Name: "versions"}, {Name: "0", Bracket: true}, {Name: "schema"}, {Name: "openAPIV3Schema"}, {Name: "properties"}, {Name: "spec", Bracket: true}},
			want: "spec.versions[0].schema.openAPIV3Schema.properties[spec]",
		},
		{
			name: "label key",
			segs: []Segment{{Name: "metadata"}, {Name: "labels"}, {Name: "edge.harbor.dev/canary", Bracket: true}},
			want: `metadata.labels["edge.harbor.dev/canary"]`,
		},
		{
			name: "dotted name from the pruner",
			segs: []Segment{{Name: "spec"}, {Name: "labels"}, {Name: "edge.harbor.dev/canary"}},
			want: `spec.labels["edge.harbor.dev/canary"]`,
		},
		{
			name: "key with brackets, spaces and quotes",
			segs: []Segment{{Name: "status"}, {Name: "conditionStatus"}, {Name: "(conditions[?type == 'RBACPermissionsGranted'])"}},
			want: `status.conditionStatus["(conditions[?type == 'RBACPermissionsGranted'])"]`,
		},
		{name: "empty key", segs: []Segment{{Name: "data"}, {Name: "", Bracket: true}}, want: `data[""]`},
		{name: "double quote and backslash", segs: []Segment{{Name: `a"b\c`, Bracket: true}}, want: `["a\"b\\c"]`},
		{name: "control character", segs: []Segment{{Name: "a\nb"}}, want: `["a\nb"]`},
		{name: "no HTML escapes", segs: []Segment{{Name: "a<b>&c d"}}, want: `["a<b>&c d"]`},
		{name: "first segment quoted", segs: []Segment{{Name: "a.b"}, {Name: "c"}}, want: `["a.b"].c`},
		{name: "first segment bracket", segs: []Segment{{Name: "3", Bracket: true}, {Name: "a"}}, want: "[3].a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JoinPath(tt.segs)
			if got != tt.want {
				t.Fatalf("JoinPath(%+v): got %s, want %s", tt.segs, got, tt.want)
			}
			back, err := ParseField(got)
			if err != nil {
				t.Fatalf("ParseField(%s): %v", got, err)
			}
			if want := normalized(tt.segs); !reflect.DeepEqual(back, want) {
				t.Errorf("ParseField(%s): got %+v, want %+v", got, back, want)
			}
		})
	}
}

// normalized is segs as they read back: names that are not plain are
// quoted brackets.
func normalized(segs []Segment) []Segment {
	var out []Segment
	for _, s := range segs {
		out = append(out, Segment{Name: s.Name, Bracket: s.Bracket || !PlainName(s.Name)})
	}
	return out
}

func TestParseFieldErrors(t *testing.T) {
	for _, p := range []string{
		".spec", "spec.", "spec..a", "a[", "a[0", "a]", "a[0]b", `a["x"`, `a["x]`, `a["x"]b`, `a["\q"]`,
		"a[b.c]", "a[]", "a[x y]", "a.b/c", "spec.versions[0]]", "a b", "<nil>x.y z", "a[\"\x01\"]", "a[\"\xff\"]",
	} {
		if segs, err := ParseField(p); err == nil {
			t.Errorf("ParseField(%q): got %+v, want an error", p, segs)
		}
	}
	// Not canonical, but in the grammar: a quoted plain name.
	if segs, err := ParseField(`a["b"]`); err != nil || JoinPath(segs) != "a[b]" {
		t.Errorf(`ParseField(a["b"]): got %+v, %v; want [b], written a[b]`, segs, err)
	}
}

// keyRunes are what random keys are made of: the characters that make a
// key need quoting, JSON escapes, and ordinary ones (no digits: YAML
// 1.1 reads keys such as 0b1 as numbers).
var keyRunes = []rune("ab-_$./[]\"'`?\\ \t\n\x00\x7f:=*()<>&é世\u2028\U0001F600")

func randomKey(r *rand.Rand) string {
	n := r.IntN(6)
	var b strings.Builder
	for range n {
		b.WriteRune(keyRunes[r.IntN(len(keyRunes))])
	}
	return b.String()
}

// TestNotationRoundTrip is the property test of the notation: any
// segments with valid UTF-8 names, written by JoinPath, read back by
// ParseField (and by the lenient ParsePath) as the same segments, and
// writing them again gives the same text.
func TestNotationRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		segs := make([]Segment, r.IntN(5))
		for i := range segs {
			if r.IntN(4) == 0 {
				segs[i] = Segment{Name: strconv.Itoa(r.IntN(100)), Bracket: true}
				continue
			}
			segs[i] = Segment{Name: randomKey(r), Bracket: r.IntN(2) == 0}
		}
		p := JoinPath(segs)
		back, err := ParseField(p)
		if err != nil {
			t.Fatalf("ParseField(JoinPath(%+v)) = ParseField(%q): %v", segs, p, err)
		}
		want := normalized(segs)
		if !reflect.DeepEqual(back, want) {
			t.Fatalf("ParseField(%q): got %+v, want %+v", p, back, want)
		}
		if lenient := ParsePath(p); !reflect.DeepEqual(lenient, want) && p != "" {
			t.Fatalf("ParsePath(%q): got %+v, want %+v", p, lenient, want)
		}
		if again := JoinPath(back); again != p {
			t.Fatalf("JoinPath(ParseField(%q)): got %q", p, again)
		}
	}
}

// TestResolveRandomKeys builds documents with random keys and checks
// that every field is found from its path in the notation, which
// Resolve gives back, and from the spellings the server's libraries use
// (names joined by dots; field.Path's raw [key]).
func TestResolveRandomKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	docs := 0
	defer func() {
		if docs < 200 {
			t.Errorf("checked %d documents, want at least 200", docs)
		}
	}()
	for range 300 {
		spec := map[string]any{}
		var leaves [][]Segment
		var fill func(m map[string]any, prefix []Segment, depth int)
		fill = func(m map[string]any, prefix []Segment, depth int) {
			for range 1 + r.IntN(3) {
				k := randomKey(r)
				if _, ok := m[k]; ok {
					continue
				}
				p := append(append([]Segment{}, prefix...), Segment{Name: k})
				switch {
				case depth < 3 && r.IntN(2) == 0:
					sub := map[string]any{}
					m[k] = sub
					fill(sub, p, depth+1)
				case r.IntN(3) == 0:
					m[k] = []any{"x", map[string]any{"y": 1}}
					leaves = append(leaves, append(p, Segment{Name: "1", Bracket: true}, Segment{Name: "y"}))
				default:
					m[k] = 1
					leaves = append(leaves, p)
				}
			}
		}
		fill(spec, []Segment{{Name: "spec"}}, 0)
		obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "spec": spec}
		text, err := json.Marshal(obj)
		if r.IntN(2) == 0 {
			text, err = yaml.Marshal(obj)
		}
		if err != nil {
			t.Fatal(err)
		}
		f := Parse("f.yaml", text)
		if len(f.Documents) != 1 {
			// go.yaml.in/yaml/v3 writes some keys with tabs in a way it
			// cannot read back.
			continue
		}
		docs++
		d := f.Documents[0]
		for _, leaf := range leaves {
			canonical := JoinPath(leaf)
			res := d.Resolve(canonical)
			if !res.Exact || res.Field() != canonical {
				t.Fatalf("Resolve(%s): got %s exact=%v, want it exactly\n%s", canonical, res.Field(), res.Exact, text)
			}
			dotted, raw := "", ""
			for i, s := range leaf {
				switch {
				case s.Bracket:
					dotted += "[" + s.Name + "]"
				case i > 0:
					dotted += "." + s.Name
				default:
					dotted += s.Name
				}
				if s.Bracket || i > 0 && r.IntN(2) == 0 {
					raw += "[" + s.Name + "]"
				} else if i > 0 {
					raw += "." + s.Name
				} else {
					raw += s.Name
				}
			}
			for _, p := range []string{dotted, raw} {
				if p == "" || !utf8.ValidString(p) {
					continue
				}
				if res := d.Resolve(p); !res.Exact {
					t.Errorf("Resolve(%q) of %s: not found\n%s", p, canonical, text)
				}
			}
		}
	}
}

// FuzzParseField: ParseField never panics, and what it reads is written
// back by JoinPath as a path that reads the same.
func FuzzParseField(f *testing.F) {
	for _, s := range []string{
		"", "spec", "spec.versions[0].schema.openAPIV3Schema.properties[spec].type", `metadata.labels["edge.harbor.dev/canary"]`,
		`status["(conditions[?type == 'X'])"]`, `a["\u00e9\n\"\\"]`, `a["b"]`, "a[", "a]", ".a", "a..b", `a["x"`, "[0][1]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		segs, err := ParseField(p)
		if err != nil {
			return
		}
		j := JoinPath(segs)
		back, err := ParseField(j)
		if err != nil {
			t.Fatalf("ParseField(%q) = %+v, written %q: %v", p, segs, j, err)
		}
		if !reflect.DeepEqual(back, normalized(segs)) {
			t.Fatalf("ParseField(%q) = %+v, written %q, read back %+v", p, segs, j, back)
		}
		if JoinPath(back) != j {
			t.Fatalf("JoinPath is not stable on %q", j)
		}
	})
}

// FuzzResolve: whatever the document and the path, Resolve says the
// field in the notation, at a position of the file, and the field it
// says resolves to the same place.
func FuzzResolve(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), []string{"", "spec.a.b", "metadata.labels[a.b/c]", `spec["x y"].z`, "a[0].b[", "spec.x]y.z"}[i%6])
	}
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		file := Parse("fuzz.yaml", data)
		lines := strings.Count(string(data), "\n") + 1
		for _, d := range file.Documents {
			res := d.Resolve(path)
			if _, err := ParseField(res.Field()); err != nil {
				t.Errorf("Resolve(%q).Field() = %q: %v", path, res.Field(), err)
			}
			for _, p := range []Pos{res.At, res.Value} {
				if p.Line < 1 || p.Line > lines || p.Column < 1 {
					t.Errorf("Resolve(%q): position %+v outside the file's %d lines", path, p, lines)
				}
			}
			// The field names what the path found.
			if again := d.Resolve(res.Field()); res.Exact && (!again.Exact || again.At != res.At || again.Value != res.Value || again.Field() != res.Field()) {
				t.Errorf("Resolve(%q) = %s at %+v, but Resolve(%s) = %s at %+v exact=%v", path, res.Field(), res.At, res.Field(), again.Field(), again.At, again.Exact)
			}
		}
	})
}
