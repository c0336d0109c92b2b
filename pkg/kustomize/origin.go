package kustomize

import (
	"cmp"
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resource"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// originFile is a file objects or patches came from, parsed once.
type originFile struct {
	text []byte
	src  *source.File // objects, for resource files
	docs []*yaml.Node // every document's root, for patches
}

// file reads and parses path once; nil when it cannot be read.
func (r *Rendered) file(path string) *originFile {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.files[path]; ok {
		return f
	}
	var f *originFile
	if data, err := source.ReadBytes(path); err == nil {
		f = &originFile{text: data, src: source.Parse(path, data), docs: yamlDocs(data)}
	}
	r.files[path] = f
	return f
}

// yamlDocs parses every document of a file with its file positions;
// parsing stops at the first error, keeping the documents before it.
func yamlDocs(data []byte) []*yaml.Node {
	var out []*yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var n yaml.Node
		if dec.Decode(&n) != nil {
			return out
		}
		if len(n.Content) > 0 {
			out = append(out, n.Content[0])
		}
	}
}

// origin resolves kustomize's origin of an object to a file and the
// object's place in it.
func (r *Rendered) origin(o *resource.Origin, obj report.ObjectRef) Origin {
	out := Origin{Document: -1}
	if o == nil {
		return out
	}
	if o.Repo != "" {
		// Not reachable offline (walk refuses remote bases); named as
		// kustomize names it, without a position.
		out.Path = o.Repo + "//" + o.Path
		return out
	}
	if o.ConfiguredIn != "" {
		out.Path = filepath.Join(r.Dir, o.ConfiguredIn)
		out.Generator = o.ConfiguredBy.Kind
		out.configName = o.ConfiguredBy.Name
		if e, doc, ident := r.generatorEntry(out, obj.Name); e != nil {
			out.Line, out.Column, out.Document, out.Identity = e.Line, e.Column, doc, ident
		}
		return out
	}
	out.Path = filepath.Join(r.Dir, o.Path)
	if d := r.object(out.Path, obj); d != nil {
		pos, _ := d.Locate("")
		out.Line, out.Column, out.Document = pos.Line, pos.Column, d.Index
		out.Identity = d.Object.String()
	}
	return out
}

// object finds the rendered object obj among the objects of the file it
// came from. kustomize keeps no record of the names it changed (its
// previous-name annotations are removed before the build returns), so
// the object is matched by kind and by name: the same name, or else the
// longest name the rendered one contains (namePrefix and nameSuffix add
// around it). A file of one object needs no matching: every object
// kustomize read from it is that object.
func (r *Rendered) object(path string, obj report.ObjectRef) *source.Document {
	f := r.file(path)
	if f == nil {
		return nil
	}
	docs := f.src.Documents
	if len(docs) == 1 {
		return docs[0]
	}
	var best *source.Document
	var bestScore score
	for _, d := range docs {
		if d.Object.Kind != obj.Kind {
			continue
		}
		s, ok := nameScore(d.Object.Name, obj.Name)
		if !ok {
			continue
		}
		s.namespace = d.Object.Namespace == obj.Namespace
		if best == nil || s.better(bestScore) {
			best, bestScore = d, s
		}
	}
	return best
}

// score ranks a candidate: the same name, then the longest contained
// name, then the same namespace; the first in the file wins ties.
type score struct {
	exact     bool
	length    int
	namespace bool
}

func (s score) better(o score) bool {
	c := cmp.Or(
		boolCmp(s.exact, o.exact),
		cmp.Compare(s.length, o.length),
		boolCmp(s.namespace, o.namespace),
	)
	return c > 0
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// nameScore says whether name, as written, can have become rendered.
func nameScore(name, rendered string) (score, bool) {
	switch {
	case name == rendered:
		return score{exact: true, length: len(name)}, true
	case name != "" && strings.Contains(rendered, name):
		return score{length: len(name)}, true
	}
	return score{}, false
}

// generatorEntry finds the configuration of the generator that made an
// object named rendered: its entry in a kustomization
// (configMapGenerator, secretGenerator), or its document in a file a
// kustomization lists under generators. It returns the entry's mapping
// node, the document's index in the file (-1 for a kustomization's
// entry) and the generated object's identity as written.
func (r *Rendered) generatorEntry(o Origin, rendered string) (*yaml.Node, int, string) {
	if k := r.tree.byFile(o.Path); k != nil {
		e, name := kustGeneratorEntry(k, o.Generator, rendered)
		if e == nil {
			return nil, -1, ""
		}
		return e, -1, strings.TrimSuffix(o.Generator, "Generator") + " " + name
	}
	f := r.file(o.Path)
	if f == nil {
		return nil, -1, ""
	}
	for _, d := range f.src.Documents {
		if d.Object.Kind == o.Generator && d.Object.Name == o.configName {
			return d.Root, d.Index, d.Object.String()
		}
	}
	return nil, -1, ""
}

// kustGeneratorEntry finds the generator's entry in a kustomization: the
// entry with the longest name the rendered name contains (prefixes,
// suffixes and the content hash are added around it).
func kustGeneratorEntry(k *kust, generator, rendered string) (*yaml.Node, string) {
	if k.root == nil {
		return nil, ""
	}
	field := map[string]string{"ConfigMapGenerator": "configMapGenerator", "SecretGenerator": "secretGenerator"}[generator]
	_, list := mapping(k.root, field)
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil, ""
	}
	var best *yaml.Node
	var bestName string
	for _, item := range list.Content {
		item = deref(item)
		_, n := mapping(item, "name")
		if n == nil || n.Kind != yaml.ScalarNode {
			continue
		}
		if _, ok := nameScore(n.Value, rendered); ok && (best == nil || len(n.Value) > len(bestName)) {
			best, bestName = item, n.Value
		}
	}
	return best, bestName
}

func (t *tree) byFile(file string) *kust {
	for _, k := range t.kusts {
		if k.file == file {
			return k
		}
	}
	return nil
}
