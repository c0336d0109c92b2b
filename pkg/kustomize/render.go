package kustomize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Rendered is a kustomization built as kubectl apply -k builds it, with
// where each object came from.
type Rendered struct {
	// Dir is the kustomization directory as Render was given it.
	Dir string
	// Name is what the rendered stream is called in reports: "kustomize
	// build DIR". Findings on Stream carry it as their File.
	Name string
	// YAML is the stream kubectl kustomize DIR prints, and kubectl apply -k
	// sends object by object: without the origin annotations Render asked
	// kustomize for (they stay when the kustomization asks for them).
	YAML []byte
	// Stream is YAML parsed under Name, the documents to judge. Its
	// document i is Objects[i].
	Stream *source.File
	// Objects are the rendered objects in stream order.
	Objects []Object

	tree  *tree
	mu    sync.Mutex
	files map[string]*originFile // origin files by path, parsed once
	// patchCache holds each kustomization's patches, read once.
	patchCache map[*kust]patchSet
}

// Object is one rendered object and where it came from.
type Object struct {
	// Object names the rendered object (after namePrefix, namespace, ...).
	Object report.ObjectRef
	Origin Origin
}

// Origin is the file an object came from, from kustomize's
// config.kubernetes.io/origin annotation, and the object's place there.
type Origin struct {
	// Path is the file: Dir joined with the annotation's path (which
	// kustomize roots at Dir), cleaned, so relative to the working
	// directory when Dir is relative and absolute when Dir is. For a
	// generated object it is the kustomization that configured the
	// generator. Empty when kustomize recorded no origin.
	Path string
	// Generator is the kind of the builtin generator that made the object
	// ("ConfigMapGenerator", "SecretGenerator"); empty for an object read
	// from a file.
	Generator string
	// Line and Column are where the object starts in Path (its first key),
	// or the generator's entry; 0 when it was not found there.
	Line, Column int
	// Document is the index of the object's document in Path as
	// source.Parse counts them (for a generator configured in a file of
	// its own, the configuration's); -1 when it was not found or for a
	// generator's entry in a kustomization.
	Document int
	// Identity names the object as written in Path, before kustomize
	// renamed it ("Widget web"; for a generator's entry in a
	// kustomization, the generated kind and the entry's name, "ConfigMap
	// settings"; for a generator configured in a file of its own, that
	// configuration, "ConfigMapGenerator flags"); empty when it was not
	// found.
	Identity string

	configName string // the name of a generator's configuration
}

// renderMu serialises builds: kustomize keeps its OpenAPI schema in a
// package variable that each build sets.
var renderMu sync.Mutex

// Render builds the kustomization in dir in-process, as kubectl apply -k
// does (sigs.k8s.io/kustomize/api with kubectl's options: legacy resource
// order, files loaded only from under the kustomization's root, plugins
// and Helm charts disabled), and records each object's origin.
//
// Nothing is fetched: a remote resource or base (a git URL, an http(s)
// file) is an error naming it, found by reading every local
// kustomization before the build; so is a resource file that does not
// exist. Errors are *source.InputError, one line each.
//
// Render does not fail on what the objects say: judging them is the
// caller's work.
func Render(dir string) (*Rendered, error) {
	name := "kustomize build " + dir
	t, err := walk(dir)
	if err != nil {
		return nil, &source.InputError{Err: fmt.Errorf("%s: %w", name, err)}
	}
	m, asked, err := build(dir)
	if err != nil {
		return nil, &source.InputError{Err: fmt.Errorf("%s: %s", name, oneLine(err))}
	}
	r := &Rendered{Dir: dir, Name: name, tree: t, files: map[string]*originFile{}}
	origins := make([]*resource.Origin, 0, len(m.Resources()))
	for _, res := range m.Resources() {
		o, err := res.GetOrigin()
		if err != nil {
			// A user's own malformed origin annotation: the object is
			// still judged, without an origin.
			o = nil
		}
		origins = append(origins, o)
	}
	if !asked {
		if err := m.RemoveOriginAnnotations(); err != nil {
			return nil, &source.InputError{Err: fmt.Errorf("%s: %s", name, oneLine(err))}
		}
	}
	if r.YAML, err = m.AsYaml(); err != nil {
		return nil, &source.InputError{Err: fmt.Errorf("%s: %s", name, oneLine(err))}
	}
	r.Stream = source.Parse(name, r.YAML)
	r.Objects = make([]Object, len(origins))
	for i, res := range m.Resources() {
		obj := report.ObjectRef{APIVersion: res.GetApiVersion(), Kind: res.GetKind(), Namespace: res.GetNamespace(), Name: res.GetName()}
		r.Objects[i] = Object{Object: obj, Origin: r.origin(origins[i], obj)}
	}
	return r, nil
}

// options are kubectl's for apply -k (k8s.io/cli-runtime's
// KustomizeVisitor): krusty's defaults with the legacy order. The order
// is asked as "unspecified", which sorts the same way when the
// kustomization has no sortOptions and, when it has, follows them
// without the warning kustomize logs for a conflicting flag.
func options() *krusty.Options {
	o := krusty.MakeDefaultOptions()
	o.Reorder = krusty.ReorderOptionUnspecified
	return o
}

// build runs kustomize on dir with origin annotations on. kustomize adds
// them only when the top kustomization's buildMetadata lists an option,
// and no krusty option turns them on, so the file system hands kustomize
// the top kustomization with originAnnotations added to buildMetadata.
// Origins change nothing else: annotations are not hashed into generated
// names, and they are removed again unless the user asked for them
// (asked).
func build(dir string) (m resourceMap, asked bool, err error) {
	fs := filesys.MakeFsOnDisk()
	root, err := filesys.ConfirmDir(fs, dir)
	if err != nil {
		return nil, false, fmt.Errorf("must build at directory: %s: %w", dir, err)
	}
	ofs := &originFS{FileSystem: fs, root: root.String()}
	renderMu.Lock()
	defer renderMu.Unlock()
	rm, err := krusty.MakeKustomizer(options()).Run(ofs, dir)
	if err != nil {
		return nil, false, err
	}
	return rm, ofs.asked, nil
}

// resourceMap is the part of kustomize's resmap.ResMap Render uses.
type resourceMap interface {
	Resources() []*resource.Resource
	RemoveOriginAnnotations() error
	AsYaml() ([]byte, error)
}

// originFS is the disk, except that the top kustomization reads with
// originAnnotations in its buildMetadata.
type originFS struct {
	filesys.FileSystem
	root  string // absolute, symlinks resolved, as kustomize's loader has it
	asked bool   // the kustomization lists originAnnotations itself
}

func (f *originFS) ReadFile(path string) ([]byte, error) {
	data, err := f.FileSystem.ReadFile(path)
	if err != nil || filepath.Dir(filepath.Clean(path)) != f.root || !slices.Contains(kustomizationNames(), filepath.Base(path)) {
		return data, err
	}
	out, asked, ok := withOrigins(data)
	f.asked = f.asked || asked
	if !ok {
		return data, nil
	}
	return out, nil
}

// withOrigins returns a kustomization with originAnnotations in its
// buildMetadata, as JSON (which kustomize reads as YAML): kustomize
// decodes a kustomization by converting it to JSON with sigs.k8s.io/yaml
// and decoding that strictly, so converting the same way and adding one
// key keeps every other field, unknown ones included, for kustomize to
// judge. ok is false, and the file is left as it is, when kustomize
// would refuse it or find it empty: adding a field must not make a
// broken or empty kustomization build.
func withOrigins(data []byte) (out []byte, asked, ok bool) {
	parsed, ok := parseKust("", "", data)
	if !ok || parsed.k.CheckEmpty() != nil {
		return nil, false, false
	}
	k := &parsed.k
	if slices.Contains(k.BuildMetadata, types.OriginAnnotations) {
		return nil, true, false
	}
	j, err := sigsyaml.YAMLToJSON(data)
	if err != nil {
		return nil, false, false
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber() // keep numbers as written
	if dec.Decode(&obj) != nil || obj == nil {
		return nil, false, false
	}
	// encoding/json matches keys to fields without regard to case, the
	// last one winning: replace every spelling by the list kustomize read,
	// extended.
	for key := range obj {
		if strings.EqualFold(key, "buildMetadata") {
			delete(obj, key)
		}
	}
	obj["buildMetadata"] = append(k.BuildMetadata, types.OriginAnnotations)
	out, err = json.Marshal(obj)
	if err != nil {
		return nil, false, false
	}
	return out, false, true
}

// oneLine flattens kustomize's multi-line errors into the tool's one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
