package source

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// fuzzSeeds are small real manifests and the hostile inputs of
// bad_input_test.go, cut down to what fuzzing can mutate quickly.
var fuzzSeeds = []string{
	"",
	"# only a comment\n",
	cm1,
	cm1 + "---\n" + cm2,
	"---\n" + cm2 + "...\n",
	locateFile,
	`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
  annotations:
    api-approved.kubernetes.io: unapproved
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, listKind: WidgetList, singular: widget}
  scope: Namespaced
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
            x-kubernetes-validations:
            - rule: "self.replicas <= 10"
            properties:
              replicas: {type: integer, minimum: 0, default: 1}
              mode: {type: string, enum: ["on", "off"]}
    subresources:
      status: {}
`,
	"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- 42\n",
	"apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: crlf\r\ndata:\r\n  s: |\r\n    x",
	"a: &a {x: 1, y: 2}\nb:\n  <<: [*a, {z: 3}]\n  x: 9\non: yes\n0x1F: hex\n? [k]\n: v\n",
	"{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"j\"}}\n",
	"- a\n- b\n---\nscalar\n---\n--- x\n---foo\n",
	"spec:\n  a: 1\n  a: 2\n  b: \"x\u2028y\"\r  c: @\n",
	"a: [1, 2\nb: \"unterminated\n",
	"a: *unknown\n",
	"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
	string(aliasBomb(4, 4)),
	strings.Repeat("[", 200) + strings.Repeat("]", 200),
	strings.Repeat("- ", 200) + "x\n",
	"a: .inf\nb: !!int x\nc: !!binary '!'\n~: null\n",
}

// corpusSeeds adds the smallest files of the corpus.
func corpusSeeds(f *testing.F) {
	dir := testutil.CorpusDir(f)
	for _, sub := range []string{"crds", "crs"} {
		ents, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			continue
		}
		type file struct {
			path string
			size int64
		}
		var files []file
		for _, e := range ents {
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
				files = append(files, file{filepath.Join(dir, sub, e.Name()), info.Size()})
			}
		}
		slices.SortFunc(files, func(a, b file) int { return int(a.size - b.size) })
		for _, fl := range files[:min(3, len(files))] {
			if data, err := os.ReadFile(fl.path); err == nil {
				f.Add(data)
			}
		}
	}
}

// jsonPaths lists paths in the server's notation to every value of a
// JSON document, up to limit of them; keys that brackets cannot spell
// are left out.
func jsonPaths(v any, prefix string, limit int, out *[]string) {
	if len(*out) >= limit {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if strings.ContainsAny(k, "[]") {
				continue
			}
			p := prefix + "[" + k + "]"
			*out = append(*out, p)
			jsonPaths(e, p, limit, out)
		}
	case []any:
		for i, e := range v {
			p := prefix + "[" + strconv.Itoa(i) + "]"
			*out = append(*out, p)
			jsonPaths(e, p, limit, out)
		}
	}
}

// v3Stricter reports whether go.yaml.in/yaml/v3 rejects a document that
// kubectl's go.yaml.in/yaml/v2 reads. v2 stops parsing after the
// document's root node, so it ignores what follows a flow collection or a
// scalar ("{a: 1} b\nc: 2" is {"a":1}), where v3 scans on and fails; the
// loader reports that as a syntax error on purpose (kubectl drops text).
func v3Stricter(data []byte) bool {
	chunks, _ := split(data)
	for _, c := range chunks {
		var n yaml.Node
		if yaml.Unmarshal(c.text, &n) != nil {
			if _, err := sigsyaml.YAMLToJSON(c.text); err == nil {
				return true
			}
		}
	}
	return false
}

// loaderRules are the rules of the loader's findings.
var loaderRules = map[string]bool{
	RuleSyntax: true, RuleDuplicate: true, RuleNotAnObject: true,
	RuleAliasBudget: true, RuleDocumentSize: true, RuleYAML11Key: true,
	RuleList: true, RuleRequestSize: true, RuleEtcdSize: true, RuleJSONAsYAML: true,
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	corpusSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		file := Parse("fuzz.yaml", data)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, x := range file.Findings {
			// A syntax error at end of stream may sit just past the last
			// line.
			if x.Line < 1 || x.Line > lines+1 || x.Column < 1 {
				t.Errorf("finding %+v: position outside the file (%d lines)", x, lines)
			}
			if !loaderRules[x.Rule] {
				t.Errorf("finding %+v: unknown rule", x)
			}
			if x.Document < 0 || x.Document > file.Count {
				t.Errorf("finding %+v: document index outside 0..%d", x, file.Count)
			}
		}
		for _, d := range file.Documents {
			if d.Root == nil {
				t.Fatalf("document %d/%d: nil Root", d.Index, d.Item)
			}
			if !json.Valid(d.JSON) {
				t.Errorf("document %d/%d: invalid JSON %q", d.Index, d.Item, d.JSON)
			}
			if d.Index < 0 || d.Index >= file.Count || d.Item < -1 {
				t.Errorf("document %d/%d: index outside the file's %d documents", d.Index, d.Item, file.Count)
			}
			if d.Object.APIVersion == "" || d.Object.Kind == "" {
				t.Errorf("document %d/%d: got object %+v, want apiVersion and kind", d.Index, d.Item, d.Object)
			}
			if pos, exact := d.Locate(""); !exact || pos.Line < 1 || pos.Line > lines || pos.Column < 1 {
				t.Errorf("document %d/%d: Locate(\"\") = %+v, %v, want a position in the file", d.Index, d.Item, pos, exact)
			}
			// Every value kubectl sends has a place in the YAML: the
			// loader spells keys and merges as sigs.k8s.io/yaml does.
			var v any
			if json.Unmarshal(d.JSON, &v) != nil {
				continue
			}
			var paths []string
			jsonPaths(v, "", 200, &paths)
			for _, p := range paths {
				if pos, exact := d.Locate(p); !exact || pos.Line < 1 || pos.Line > lines {
					t.Errorf("document %d/%d: Locate(%q) = %+v, %v, want an exact position in the file\nJSON %s", d.Index, d.Item, p, pos, exact, d.JSON)
				}
			}
		}
		for _, x := range file.Findings {
			if x.Rule == RuleAliasBudget {
				return // kubectl would expand what the loader refuses
			}
		}
		// Where kubectl reads a stream, so must we, document for
		// document; a JSON stream's errors are kubectl's own.
		if hasJSONPrefix(data[:min(len(data), jsonPeek)]) {
			checkStreamOracle(t, data)
			return
		}
		docs, err := kubectlDocs(data)
		if err != nil || v3Stricter(data) {
			return
		}
		for _, x := range file.Findings {
			// Non-objects pass the decoder and fail later, in the builder.
			if x.Rule == RuleSyntax {
				t.Errorf("kubectl reads the input, but got %+v", x)
			}
		}
		if file.Count != len(docs) {
			t.Errorf("got %d documents, kubectl %d", file.Count, len(docs))
		}
	})
}

func FuzzLocate(f *testing.F) {
	paths := []string{
		"", "<nil>", "spec", "metadata.name", "spec.versions[0].schema.openAPIV3Schema.properties[spec].type",
		"metadata.annotations[api-approved.kubernetes.io]", "spec.versions[0].schema.openAPIV3Schema.properties.spec.Type",
		"a[x[0]].b", "a[", "]", "[[[", "b.x", "later.31", "data[true]", "items[1].metadata",
	}
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), paths[i%len(paths)])
	}
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		segs := ParsePath(path)
		_ = JoinPath(segs)
		file := Parse("fuzz.yaml", data)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, d := range file.Documents {
			pos, _ := d.Locate(path)
			if pos.Line < 1 || pos.Line > lines || pos.Column < 1 {
				t.Errorf("document %d/%d: Locate(%q) = %+v, want a position in the file's %d lines", d.Index, d.Item, path, pos, lines)
			}
		}
	})
}

// FuzzJSONStream compares the reading of JSON streams with kubectl's
// YAMLOrJSONDecoder: documents, values, and the first error's words.
func FuzzJSONStream(f *testing.F) {
	for _, s := range jsonStreamSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !hasJSONPrefix(data[:min(len(data), jsonPeek)]) {
			data = append([]byte("{"), data...)
		}
		file := Parse("fuzz.json", data)
		checkSane(t, data, file)
		for _, x := range file.Findings {
			if x.Rule == RuleAliasBudget {
				return // kubectl would expand what the loader refuses
			}
		}
		checkStreamOracle(t, data)
	})
}

// jsonStreamSeeds are JSON streams kubectl reads in its several ways.
var jsonStreamSeeds = []string{
	`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}`,
	`{"a": 1}{"b": 2}{"c": 3}`,
	`{"a": 1,}`,
	`{"a": 1}{"b": 2}{"c": 3,}`,
	"{\"a\": 1}\n---\nb: 2\n",
	"{\"a\": 1} {\"b\": 'x', c: [1, 2,]}\n",
	"{\"a\": 1}\nx",
	"{\"a\": 1}\nnull\n[1]\n\"s\"\n1e400\n",
	`{"a": 1`,
	`{"a": "\u00e9\ud800\"", "a": [true, false, null, -0.5e+3]}`,
	"{\"a\": \"\xff\"}",
	"  \n\t{}",
}

// FuzzDocReader reads anything through a DocReader in reads of random
// sizes, with a small size bound, and compares it with reading the same
// bytes in place: streaming changes nothing.
func FuzzDocReader(f *testing.F) {
	for i, s := range append(append([]string(nil), fuzzSeeds...), jsonStreamSeeds...) {
		f.Add([]byte(s), uint64(i), uint16(64<<(i%5)))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, limit uint16) {
		read := func(r *DocReader) *File {
			r.MaxDocumentSize = int(limit)
			file, err := readAllDocs(r)
			if err != nil {
				t.Fatal(err)
			}
			return file
		}
		want := read(newBytesReader("fuzz.yaml", data))
		got := read(NewDocReader("fuzz.yaml", &chunkReader{data: data, rng: rand.New(rand.NewPCG(seed, 1))}))
		checkSane(t, data, got)
		checkSameFile(t, "streamed", got, want)
		for _, x := range got.Findings {
			if x.Rule == RuleDocumentSize && x.Document >= got.Count {
				t.Errorf("finding %+v: document beyond the %d counted", x, got.Count)
			}
		}
	})
}

// FuzzSplit compares split with kubectl's YAMLReader on anything.
func FuzzSplit(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstOracle(t, data)
	})
}
