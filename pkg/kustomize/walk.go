package kustomize

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/fsutil"
)

// kust is one local kustomization (or Component) of a build.
type kust struct {
	dir  string // as joined from Render's dir, cleaned
	file string // dir joined with the kustomization's file name
	k    types.Kustomization
	root *yaml.Node // the file's mapping node, for positions; nil if none
	text []byte     // the file, for inline patches' columns
	// parents are the kustomizations that use this one as a resource
	// (a directory) or a component; components are the ones this one
	// uses as components.
	parents    []*kust
	components []*kust
	// applied orders kustomizations as kustomize applies their patches:
	// after those of everything they include, components after
	// resources.
	applied int
}

// tree is every local kustomization of a build, parents before children.
type tree struct {
	kusts   []*kust // in walk order: the top one first
	byDir   map[string]*kust
	applied int // the next kust.applied
}

func kustomizationNames() []string { return konfig.RecognizedKustomizationFileNames() }

// walk reads the kustomization in dir and, recursively, every local
// kustomization it uses, before kustomize runs, for two reasons:
// kustomize fetches remote resources itself (git clone, http GET) with
// no option to refuse, so a remote reference must be refused first; and
// tracing a field to the patch that set it needs the patches.
//
// Only what keeps kustomize from the network or makes its error
// unreadable is an error here (a remote reference, a resource that does
// not exist); everything else (a malformed kustomization, a file outside
// the root) is left for kustomize to word.
func walk(dir string) (*tree, error) {
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such directory", dir)
		}
		return nil, fmt.Errorf("%s: %w", dir, fsutil.UnwrapPath(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory; -k takes a directory holding a kustomization.yaml", dir)
	}
	t := &tree{byDir: map[string]*kust{}}
	top, err := t.visit(filepath.Clean(dir), nil, false)
	if err != nil {
		return nil, err
	}
	if top == nil {
		return nil, fmt.Errorf("no kustomization.yaml, kustomization.yml or Kustomization in %s", dir)
	}
	return t, nil
}

// visit reads the kustomization of dir, if any, and those it uses.
func (t *tree) visit(dir string, parent *kust, component bool) (*kust, error) {
	if k, ok := t.byDir[dir]; ok {
		// Seen before: a base shared by two overlays (kustomize reports
		// real cycles itself).
		k.link(parent, component)
		return k, nil
	}
	file, data := readKustomization(dir)
	if file == "" {
		return nil, nil
	}
	k, ok := parseKust(dir, file, data)
	t.byDir[dir] = k
	t.kusts = append(t.kusts, k)
	k.link(parent, component)
	defer func() { k.applied, t.applied = t.applied, t.applied+1 }()
	if !ok {
		return k, nil // kustomize says what is wrong
	}
	k.readPositions()
	for _, r := range append(k.refs(), k.pluginRefs()...) {
		if isRemote(r.value) && !isFile(filepath.Join(dir, r.value)) {
			return nil, fmt.Errorf("remote %s %q (in %s) is not fetched: -k renders offline; vendor it or pipe `kubectl kustomize %s` to check -", r.field, r.value, file, dir)
		}
	}
	for _, r := range k.k.Resources {
		if err := t.resource(k, r, false); err != nil {
			return nil, err
		}
	}
	for _, c := range k.k.Components {
		if err := t.resource(k, c, true); err != nil {
			return nil, err
		}
	}
	for _, l := range [][]string{k.k.Generators, k.k.Transformers, k.k.Validators} {
		for _, g := range l {
			if !strings.Contains(g, "\n") && isDir(filepath.Join(dir, g)) {
				if _, err := t.visit(filepath.Join(dir, g), nil, false); err != nil {
					return nil, err
				}
			}
		}
	}
	return k, nil
}

// parseKust reads a kustomization's text as kustomize does
// (types.Kustomization, with FixKustomization's spellings): the one
// reading of a kustomization that the walk, NotResources and the patch
// tracing share, so that they agree on what it names. ok is false when
// kustomize could not read it.
func parseKust(dir, file string, data []byte) (k *kust, ok bool) {
	k = &kust{dir: dir, file: file, text: data}
	if k.k.Unmarshal(data) != nil {
		return k, false
	}
	k.k.FixKustomization()
	return k, true
}

// readPositions parses the kustomization's text as YAML for the
// positions of its entries (k.root), which tracing a field to an inline
// patch or a kustomization field needs.
func (k *kust) readPositions() {
	var n yaml.Node
	if yaml.Unmarshal(k.text, &n) == nil && len(n.Content) > 0 && n.Content[0].Kind == yaml.MappingNode {
		k.root = n.Content[0]
	}
}

func (k *kust) link(parent *kust, component bool) {
	if parent == nil {
		return
	}
	k.parents = append(k.parents, parent)
	if component {
		parent.components = append(parent.components, k)
	}
}

// resource follows one entry of resources or components: a file is read
// by kustomize, a directory is a kustomization to read.
func (t *tree) resource(k *kust, r string, component bool) error {
	p := filepath.Join(k.dir, r)
	if filepath.IsAbs(r) {
		p = filepath.Clean(r)
	}
	field := "resource"
	if component {
		field = "component"
	}
	switch {
	case isFile(p):
		return nil // a resource file, or a component kustomize refuses
	case isDir(p):
		k2, err := t.visit(p, k, component)
		if err == nil && k2 == nil {
			err = fmt.Errorf("%s %q (in %s) is a directory without a kustomization.yaml, kustomization.yml or Kustomization", field, r, k.file)
		}
		return err
	}
	if _, err := os.Stat(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s %q (in %s): %w", field, r, k.file, fsutil.UnwrapPath(err))
	}
	return fmt.Errorf("%s %q (in %s): no such file or directory", field, r, k.file)
}

// ref is a file or directory a kustomization names.
type ref struct{ field, value string }

// refs lists every file, directory or URL the kustomization names, where
// kustomize's loader could be sent to the network: resources and bases
// (git clones), and every file it loads (http(s) URLs).
func (k *kust) refs() []ref {
	var out []ref
	add := func(field string, vs ...string) {
		for _, v := range vs {
			if v = strings.TrimSpace(v); v != "" && !strings.Contains(v, "\n") {
				out = append(out, ref{field, v})
			}
		}
	}
	x := &k.k
	add("resource", x.Resources...)
	add("component", x.Components...)
	add("crd", x.Crds...)
	add("configuration", x.Configurations...)
	add("generator", x.Generators...)
	add("transformer", x.Transformers...)
	add("validator", x.Validators...)
	for _, p := range x.Patches {
		add("patch", p.Path)
	}
	for _, p := range x.PatchesJson6902 {
		add("patch", p.Path)
	}
	for _, p := range x.PatchesStrategicMerge {
		add("patch", string(p))
	}
	for _, r := range x.Replacements {
		add("replacement", r.Path)
	}
	if p, ok := x.OpenAPI["path"]; ok {
		add("openapi", p)
	}
	for _, g := range x.ConfigMapGenerator {
		add("configMapGenerator file", generatorFiles(g.GeneratorArgs)...)
	}
	for _, g := range x.SecretGenerator {
		add("secretGenerator file", generatorFiles(g.GeneratorArgs)...)
	}
	return out
}

// pluginRefs lists the files that the configurations of builtin
// generators, transformers and validators name (PatchTransformer's path,
// ConfigMapGenerator's files, ...), inline or in files: kustomize loads
// them with the same loader, URLs included.
func (k *kust) pluginRefs() []ref {
	var out []ref
	for _, l := range [][]string{k.k.Generators, k.k.Transformers, k.k.Validators} {
		for _, g := range l {
			text := []byte(g)
			if !strings.Contains(g, "\n") {
				data, err := os.ReadFile(filepath.Join(k.dir, g))
				if err != nil {
					continue // a directory, or kustomize's error to report
				}
				text = data
			}
			for _, d := range yamlDocs(text) {
				out = append(out, pathValues(d, "")...)
			}
		}
	}
	return out
}

// pathKeys are the fields of builtin plugin configurations that name
// files.
var pathKeys = map[string]bool{"path": true, "paths": true, "files": true, "envs": true, "env": true}

// pathValues collects the strings under pathKeys anywhere in a tree.
func pathValues(n *yaml.Node, key string) []ref {
	n = deref(n)
	if n == nil {
		return nil
	}
	var out []ref
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			out = append(out, pathValues(n.Content[i+1], n.Content[i].Value)...)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			out = append(out, pathValues(c, key)...)
		}
	case yaml.ScalarNode:
		if pathKeys[key] {
			v := n.Value
			if _, p, ok := strings.Cut(v, "="); ok && key == "files" {
				v = p
			}
			out = append(out, ref{"file", strings.TrimSpace(v)})
		}
	}
	return out
}

// generatorFiles are the files a generator reads: "key=path" or "path"
// under files, and envs.
func generatorFiles(g types.GeneratorArgs) []string {
	var out []string
	for _, f := range g.FileSources {
		if _, p, ok := strings.Cut(f, "="); ok {
			f = p
		}
		out = append(out, f)
	}
	out = append(out, g.EnvSources...)
	if g.EnvSource != "" {
		out = append(out, g.EnvSource)
	}
	return out
}

var userAt = regexp.MustCompile(`^[a-z][a-z0-9-]*@`)

// isRemote reports whether kustomize could fetch s from the network or
// clone it with git: a superset of what its loader treats as remote
// (sigs.k8s.io/kustomize/api/internal/git.NewRepoSpecFromURL and
// loader.IsRemoteFile), so that nothing it would fetch gets through.
// file:// URLs are git clones too, and are refused with the rest.
func isRemote(s string) bool {
	l := strings.ToLower(s)
	l = strings.TrimPrefix(l, "git::")
	for _, p := range []string{"http://", "https://", "ssh://", "file://", "github.com/", "github.com:"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return userAt.MatchString(l)
}

func readKustomization(dir string) (string, []byte) {
	for _, n := range kustomizationNames() {
		p := filepath.Join(dir, n)
		if data, err := os.ReadFile(p); err == nil {
			return p, data
		}
	}
	return "", nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
