package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// NamedFile is a file of the corpus or of a generated workload.
type NamedFile struct {
	Name string
	Data []byte
}

// Corpus is what the workload is made from: every CRD file of the corpus,
// and the example custom resources whose kind and version one of those CRDs
// serves (the others would only measure how each tool reports a missing
// schema, which is not the hot path).
type Corpus struct {
	CRDFiles  []NamedFile
	Templates []map[string]any
	// CRDs is the number of CRD documents in CRDFiles.
	CRDs int
	// Examples are the corpus's YAML files of custom resources as
	// written (comments, built-in kinds, kinds without a CRD and all),
	// those that parse, for the mixed workload (BuildMixed).
	Examples []Example
}

// Example is a corpus file of custom resources and its number of objects.
type Example struct {
	NamedFile
	Docs int
}

// LoadCorpus reads dir/crds and dir/crs.
func LoadCorpus(dir string) (*Corpus, error) {
	c := &Corpus{}
	served := map[string]bool{} // "group/version/kind"
	crdFiles, err := readDir(filepath.Join(dir, "crds"))
	if err != nil {
		return nil, err
	}
	for _, f := range crdFiles {
		docs, err := splitDocs(f.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		for _, d := range docs {
			if d["kind"] != "CustomResourceDefinition" {
				continue
			}
			c.CRDs++
			spec, _ := d["spec"].(map[string]any)
			group, _ := spec["group"].(string)
			names, _ := spec["names"].(map[string]any)
			kind, _ := names["kind"].(string)
			vers, _ := spec["versions"].([]any)
			for _, v := range vers {
				vm, _ := v.(map[string]any)
				if name, _ := vm["name"].(string); name != "" && vm["served"] == true {
					served[group+"/"+name+"/"+kind] = true
				}
			}
		}
		c.CRDFiles = append(c.CRDFiles, f)
	}
	crFiles, err := readDir(filepath.Join(dir, "crs"))
	if err != nil {
		return nil, err
	}
	for _, f := range crFiles {
		docs, err := splitDocs(f.Data)
		if err != nil {
			// Deliberately broken corpus files are not workload material.
			continue
		}
		if len(docs) > 0 && !strings.HasSuffix(f.Name, ".json") {
			c.Examples = append(c.Examples, Example{f, len(docs)})
		}
		for _, d := range docs {
			apiVersion, _ := d["apiVersion"].(string)
			kind, _ := d["kind"].(string)
			if !strings.Contains(apiVersion, "/") {
				continue
			}
			if served[apiVersion+"/"+kind] {
				c.Templates = append(c.Templates, d)
			}
		}
	}
	if len(c.Templates) == 0 {
		return nil, fmt.Errorf("%s: no custom resource with a CRD in the corpus", dir)
	}
	return c, nil
}

func readDir(dir string) ([]NamedFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []NamedFile
	for _, e := range ents { // ReadDir sorts by name: the order is stable.
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml") || strings.HasSuffix(e.Name(), ".json")) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, NamedFile{Name: e.Name(), Data: data})
	}
	return out, nil
}

// splitDocs decodes every non-empty object document of a YAML stream.
func splitDocs(data []byte) ([]map[string]any, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []map[string]any
	for {
		chunk, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := yaml.Unmarshal(chunk, &m); err != nil {
			return nil, err
		}
		if m != nil {
			out = append(out, m)
		}
	}
}

// Options shape a generated workload.
type Options struct {
	Seed  uint64
	Docs  int // custom resource documents in total
	Files int // files they are spread over (multi-document YAML)
	// InvalidPercent of the documents get one mutation that a schema
	// validator should reject.
	InvalidPercent int
	// TouchPercent of the files (at least one when not 0) get the label
	// TouchLabel on every document: the same workload after an edit, for
	// the cache scenarios. Which files is drawn from a PRNG of its own, so
	// every other byte is what the untouched build makes.
	TouchPercent int
}

// TouchLabel is the label a touched document gets (value "1").
const TouchLabel = "bench.crdlint.io/touched"

// Stats tell what Build made.
type Stats struct {
	Files, Docs int
	// Touched is the number of files with TouchLabel.
	Touched int
	// Mutations counts the documents per mutation applied.
	Mutations map[string]int
}

// Mutation names, as counted in Stats.
const (
	MutWrongType    = "wrong-type"      // a string leaf under spec becomes a number
	MutUnknownField = "unknown-field"   // spec gets a field no schema declares
	MutSpecScalar   = "spec-not-object" // spec becomes a string
)

// Build makes the workload's custom resource files from templates: document
// i is a copy of templates[i % len(templates)] with a new name and label
// and, for about InvalidPercent of them, one mutation. The same templates
// and options give the same bytes: the variations come from a PRNG seeded
// with Seed, and YAML is written with sorted keys.
func Build(templates []map[string]any, o Options) ([]NamedFile, Stats) {
	st := Stats{Mutations: map[string]int{}}
	if len(templates) == 0 || o.Docs <= 0 || o.Files <= 0 {
		return nil, st
	}
	if o.Files > o.Docs {
		o.Files = o.Docs
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	touched := touchedFiles(o)
	files := make([]NamedFile, 0, o.Files)
	doc := 0
	for fi := 0; fi < o.Files; fi++ {
		n := o.Docs / o.Files
		if fi < o.Docs%o.Files {
			n++
		}
		var buf bytes.Buffer
		for j := 0; j < n; j++ {
			obj := deepCopy(templates[doc%len(templates)]).(map[string]any)
			vary(obj, doc)
			if rng.IntN(100) < o.InvalidPercent {
				st.Mutations[mutate(obj, rng)]++
			}
			if touched[fi] {
				touch(obj)
			}
			out, err := yaml.Marshal(obj)
			if err != nil {
				// Values came from YAML through JSON types: cannot fail.
				panic(err)
			}
			if j > 0 {
				buf.WriteString("---\n")
			}
			buf.Write(out)
			doc++
		}
		files = append(files, NamedFile{Name: fmt.Sprintf("cr-%05d.yaml", fi), Data: buf.Bytes()})
	}
	st.Files, st.Docs, st.Touched = len(files), doc, len(touched)
	return files, st
}

// touchedFiles picks TouchPercent of o.Files, rounded up.
func touchedFiles(o Options) map[int]bool {
	if o.TouchPercent <= 0 {
		return nil
	}
	n := min((o.Files*o.TouchPercent+99)/100, o.Files)
	rng := rand.New(rand.NewPCG(o.Seed^0x746f756368, o.Seed))
	out := make(map[int]bool, n)
	for _, fi := range rng.Perm(o.Files)[:n] {
		out[fi] = true
	}
	return out
}

// touch is the edit of the cache scenarios: one label more, which changes
// the file's bytes but not whether a document is valid.
func touch(obj map[string]any) {
	md, _ := obj["metadata"].(map[string]any)
	if md == nil { // vary made it; a mutation does not remove it
		return
	}
	labels, _ := md["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		md["labels"] = labels
	}
	labels[TouchLabel] = "1"
}

// vary gives document seq a name of its own, so that no two documents of a
// workload are the same object, and a label, so that metadata differs too.
func vary(obj map[string]any, seq int) {
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	base, _ := md["name"].(string)
	if base == "" {
		base, _ = md["generateName"].(string)
		base = strings.TrimSuffix(base, "-")
	}
	if base == "" {
		base = strings.ToLower(fmt.Sprint(obj["kind"]))
	}
	if len(base) > 200 {
		base = base[:200]
	}
	md["name"] = fmt.Sprintf("%s-%05d", base, seq)
	delete(md, "generateName")
	labels, _ := md["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		md["labels"] = labels
	}
	labels["bench.crdlint.io/seq"] = strconv.Itoa(seq)
}

// mutate applies one mutation and returns its name. Whether the result is
// really invalid is up to each tool and the CRD (a wrong type under
// x-kubernetes-preserve-unknown-fields is fine, for instance): the harness
// reports what each tool found, it does not assume an answer.
func mutate(obj map[string]any, rng *rand.Rand) string {
	spec, isMap := obj["spec"].(map[string]any)
	switch rng.IntN(3) {
	case 0:
		if isMap {
			var leaves [][]string
			stringLeaves(spec, nil, &leaves)
			if len(leaves) > 0 {
				setPath(spec, leaves[rng.IntN(len(leaves))], int64(42))
				return MutWrongType
			}
		}
	case 1:
		if _, ok := obj["spec"]; ok {
			obj["spec"] = "not-an-object"
			return MutSpecScalar
		}
	}
	if isMap {
		spec["benchUnknownField"] = "x"
	} else {
		obj["benchUnknownField"] = "x"
	}
	return MutUnknownField
}

// stringLeaves collects the paths of string values under m, in key order.
func stringLeaves(v any, path []string, out *[][]string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := append(append([]string(nil), path...), k)
		switch c := m[k].(type) {
		case string:
			*out = append(*out, p)
		case map[string]any:
			stringLeaves(c, p, out)
		}
	}
}

func setPath(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		m = m[k].(map[string]any)
	}
	m[path[len(path)-1]] = v
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = deepCopy(e)
		}
		return s
	default:
		return v
	}
}

// WriteFiles replaces dir with the given files.
func WriteFiles(dir string, files []NamedFile) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// DefaultOptions is the workload of the issue at scale k: 10,000 documents
// in 400 files (25 a file) per unit of scale, 10% of them mutated.
func DefaultOptions(k int) Options {
	return Options{Seed: 20260101, Docs: 10000 * k, Files: 400 * k, InvalidPercent: 10}
}
