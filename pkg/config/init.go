package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/kustomize"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// InitOptions bound the repository scan of Init.
type InitOptions struct {
	// MaxEntries is how many files and directories the walk visits before
	// it stops (default 50,000); the output then says it stopped.
	MaxEntries int
	// MaxDepth is how deep below the root the walk goes (default 12).
	MaxDepth int
	// MaxFileSize is the largest file read to look for CRDs (default
	// 8 MiB): CRD files are rarely over 1 MiB, and the API server refuses
	// objects over 3 MiB.
	MaxFileSize int64
	// Version is the tool's version, for the schema URL (SchemaURLFor).
	Version string
}

// Repository is what Init found in a repository. Paths are slash-separated and
// relative to the root.
type Repository struct {
	// CRDDirs are the directories holding complete CRDs, each with how
	// many; none is inside another.
	CRDDirs []CountedPath
	// CRDFiles are files of complete CRDs directly in the root (listing
	// the root as a directory would lint the whole repository as CRDs).
	CRDFiles []CountedPath
	// CRDCopies are directories and root files of copies of the CRDs of
	// CRDDirs, left out of them: release bundles, install manifests,
	// vendored and OLM bundle copies (see leaveCopies).
	CRDCopies []CopiedPath
	// Over are, for an entry of CRDDirs or CRDFiles, the entries listed
	// before it that define some of its kinds too: it judges those kinds
	// over them (the later entry wins).
	Over map[string][]string
	// Templates are Helm chart templates/ directories (beside a
	// Chart.yaml): not YAML until rendered.
	Templates []string
	// Patches are kustomize patch files (patches, patchesStrategicMerge,
	// patchesJson6902 of a kustomization) and partial CRDs (no
	// spec.versions or spec.names: patches by their look): partial
	// objects the server would reject. A directory holding nothing else
	// ends in "/".
	Patches []string
	// TestData are testdata directories holding YAML: fixtures, often
	// invalid on purpose; suggested, commented out.
	TestData []string
	// ConfigKinds are kinds that no CRD of the repository defines nor the
	// API server builds in, and that look like a tool's configuration: a
	// group config.* or a kind ending in Config or Configuration, a kind
	// of a group the repository's CRDs define (a served one would have a
	// CRD), or a kind a ConfigMap of the repository carries in its data.
	// A project's own component configuration, proposed for configKinds.
	ConfigKinds []FoundKind
	// Truncated says the walk stopped at MaxEntries or skipped deeper
	// directories.
	Truncated bool
}

// FoundKind is a kind found in the repository: where first, how often.
type FoundKind struct {
	Kind  schema.GroupKind
	First string
	Files int
}

// CountedPath is a path and how many CRDs it holds.
type CountedPath struct {
	Path string
	CRDs int
}

// Init scans the repository at root and returns a commented starter
// .crdlint.yaml for it (see ScanRepository for what it looks for).
func Init(root string, o InitOptions) ([]byte, error) {
	s, err := ScanRepository(root, o)
	if err != nil {
		return nil, err
	}
	return s.Render(o.Version), nil
}

var skipDirs = map[string]bool{"node_modules": true}

// ScanRepository walks root, boundedly, for CRD directories, Helm
// templates and kustomize patches. Hidden directories (.git, ...) and
// node_modules are not entered. Files it cannot read are passed over.
func ScanRepository(root string, o InitOptions) (*Repository, error) {
	if o.MaxEntries <= 0 {
		o.MaxEntries = 50000
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 12
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = 8 << 20
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, &source.InputError{Err: fmt.Errorf("read %s: %w", root, err)}
	}
	if !st.IsDir() {
		return nil, &source.InputError{Err: fmt.Errorf("%s is not a directory", root)}
	}
	s := &Repository{}
	var (
		yamls     []string
		charts    = map[string]bool{} // directories holding Chart.yaml
		kusts     []string
		dirs      = map[string]bool{}
		entries   int
		testdatas = map[string]bool{}
	)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable: pass over
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if entries++; entries > o.MaxEntries {
			s.Truncated = true
			return filepath.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || skipDirs[name]) {
				return filepath.SkipDir
			}
			if strings.Count(rel, "/")+1 > o.MaxDepth && rel != "." {
				s.Truncated = true
				return filepath.SkipDir
			}
			dirs[rel] = true
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		switch name {
		case "Chart.yaml":
			charts[path.Dir(rel)] = true
		case "kustomization.yaml", "kustomization.yml", "Kustomization":
			kusts = append(kusts, rel)
		}
		if hasYAMLExt(name) {
			yamls = append(yamls, rel)
		}
		return nil
	})
	if err != nil {
		return nil, &source.InputError{Err: fmt.Errorf("read %s: %w", root, err)}
	}

	// Helm templates: a templates/ directory beside a Chart.yaml.
	for c := range charts {
		t := path.Join(c, "templates")
		if dirs[t] {
			s.Templates = append(s.Templates, t)
		}
	}
	slices.Sort(s.Templates)
	inTemplates := func(rel string) bool {
		return slices.ContainsFunc(s.Templates, func(t string) bool { return strings.HasPrefix(rel, t+"/") })
	}

	patches := map[string]bool{}
	for _, k := range kusts {
		for _, p := range kustomizePatches(root, k) {
			patches[p] = true
		}
	}

	crdDirs := map[string]int{}
	crdFiles := map[string]sniffed{}
	defined := map[schema.GroupKind]bool{}
	found := map[schema.GroupKind]*FoundKind{}
	embedded := map[schema.GroupKind]bool{} // in a ConfigMap's data
	for _, rel := range yamls {
		if inTemplates(rel) || patches[rel] {
			continue
		}
		underTestdata := false
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			if path.Base(d) == "testdata" {
				testdatas[d] = true
				underTestdata = true
			}
		}
		if underTestdata {
			continue
		}
		f := readSmall(filepath.Join(root, filepath.FromSlash(rel)), o.MaxFileSize)
		if f == nil {
			continue
		}
		sn := sniffCRDs(f, defined)
		complete, partial := sn.complete, sn.partial
		if complete > 0 {
			crdFiles[rel] = sn
		}
		kinds, inConfigMaps := objectKinds(f)
		for gk := range inConfigMaps {
			embedded[gk] = true
			kinds = append(kinds, gk)
		}
		slices.SortFunc(kinds, func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) })
		kinds = slices.Compact(kinds)
		for _, gk := range kinds {
			if k := found[gk]; k != nil {
				k.Files++
			} else {
				found[gk] = &FoundKind{Kind: gk, First: rel, Files: 1}
			}
		}
		switch {
		case complete > 0 && path.Dir(rel) == ".":
			// Listing the root as a directory would read the whole
			// repository as CRD sources: list the file.
			s.CRDFiles = append(s.CRDFiles, CountedPath{rel, complete})
		case complete > 0:
			crdDirs[path.Dir(rel)] += complete
		case partial > 0:
			patches[rel] = true
		}
	}
	for d := range crdDirs {
		nested := false
		for a := path.Dir(d); a != "."; a = path.Dir(a) {
			nested = nested || crdDirs[a] > 0
		}
		if nested {
			continue // walked with the directory above it
		}
		total := 0
		for e, n := range crdDirs {
			if e == d || strings.HasPrefix(e, d+"/") {
				total += n
			}
		}
		s.CRDDirs = append(s.CRDDirs, CountedPath{d, total})
	}
	slices.SortFunc(s.CRDDirs, func(a, b CountedPath) int { return strings.Compare(a.Path, b.Path) })
	s.leaveCopies(crdFiles)
	owned := map[string]bool{} // groups the repository's CRDs define
	for gk := range defined {
		owned[gk.Group] = true
	}
	for gk, k := range found {
		// A kind no CRD defines, which its name, its group (one the
		// repository serves others of), or a ConfigMap that carries it
		// says is configuration.
		if !defined[gk] && (configLike(gk) || owned[gk.Group] || embedded[gk]) {
			s.ConfigKinds = append(s.ConfigKinds, *k)
		}
	}
	slices.SortFunc(s.ConfigKinds, func(a, b FoundKind) int { return strings.Compare(a.Kind.String(), b.Kind.String()) })

	// A directory of patches and nothing else is one entry.
	byDir := map[string][]string{}
	for p := range patches {
		byDir[path.Dir(p)] = append(byDir[path.Dir(p)], p)
	}
	for d, ps := range byDir {
		all := d != "."
		for _, y := range yamls {
			if path.Dir(y) == d && !patches[y] {
				all = false
				break
			}
		}
		if all && len(ps) > 1 {
			s.Patches = append(s.Patches, d+"/")
			continue
		}
		s.Patches = append(s.Patches, ps...)
	}
	slices.Sort(s.Patches)
	for d := range testdatas {
		s.TestData = append(s.TestData, d)
	}
	slices.Sort(s.TestData)
	return s, nil
}

func pathsOf(cs []CountedPath) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Path)
	}
	return out
}

func hasYAMLExt(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".yaml" || ext == ".yml" || ext == ".json"
}

// kustomizePatches lists the files a kustomization names that are not
// resources (kustomize.NotResources: patches of every form, generator
// inputs, ...), relative to root; files outside root are left out.
func kustomizePatches(root, rel string) []string {
	dir := filepath.Join(root, filepath.FromSlash(path.Dir(rel)))
	_, named := kustomize.NotResources(dir)
	var out []string
	for _, f := range named {
		r, err := filepath.Rel(root, f)
		if err != nil {
			continue
		}
		p := filepath.ToSlash(r)
		if p == ".." || strings.HasPrefix(p, "../") || !hasYAMLExt(p) {
			continue
		}
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// readSmall parses a file of at most maxSize bytes that names a kind as
// a command reads it (source.ParseInput); nil for one that is larger,
// names none or cannot be read.
func readSmall(file string, maxSize int64) *source.File {
	st, err := os.Stat(file)
	if err != nil || st.Size() > maxSize {
		return nil
	}
	data, err := os.ReadFile(file)
	if err != nil || !bytes.Contains(data, []byte("kind")) {
		return nil
	}
	return source.ParseInput(file, data)
}

// objectKinds are the kinds of the custom resources of a file, as a
// command would judge them (not built in, not well-known configuration),
// and those of the objects its ConfigMaps carry in their data (a
// component's configuration file, mounted from a ConfigMap).
func objectKinds(f *source.File) (kinds []schema.GroupKind, inConfigMaps map[schema.GroupKind]bool) {
	inConfigMaps = map[schema.GroupKind]bool{}
	for _, d := range f.Documents {
		switch crd.Classify(d, nil) {
		case crd.ClassCustomResource:
			kinds = append(kinds, crd.GVK(d).GroupKind())
		case crd.ClassBuiltin:
			if d.Object.Kind != "ConfigMap" || d.Object.APIVersion != "v1" {
				continue
			}
			var cm struct {
				Data map[string]string `json:"data"`
			}
			if json.Unmarshal(d.JSON, &cm) != nil {
				continue
			}
			for key, text := range cm.Data {
				if !strings.Contains(text, "kind") {
					continue
				}
				for _, e := range source.ParseInput(key, []byte(text)).Documents {
					if crd.Classify(e, nil) == crd.ClassCustomResource {
						inConfigMaps[crd.GVK(e).GroupKind()] = true
					}
				}
			}
		}
	}
	return kinds, inConfigMaps
}

// sniffed is what sniffCRDs reads of a file.
type sniffed struct {
	complete, partial int
	// kinds are the group/kind of its complete CRDs; bundle says it holds
	// other objects too (leaveCopies).
	kinds  []string
	bundle bool
}

// configLike: a kind whose group or name says configuration, as
// ComponentConfig APIs are named (config.kueue.x-k8s.io Configuration,
// controller-runtime's ControllerManagerConfig).
func configLike(gk schema.GroupKind) bool {
	return strings.HasPrefix(gk.Group, "config.") || strings.Contains(gk.Group, ".config.") ||
		strings.HasSuffix(gk.Kind, "Configuration") || strings.HasSuffix(gk.Kind, "Config")
}

// sniffCRDs counts the complete and the partial CRDs in a file, and adds
// the kinds the complete ones define to defined. A CRD without
// spec.group, spec.names.kind or spec.versions is partial: a kustomize
// patch (kubebuilder's webhook_in_*.yaml and cainjection_in_* files)
// rather than something to install.
func sniffCRDs(f *source.File, defined map[schema.GroupKind]bool) (s sniffed) {
	// ParseInput counts the CRDs that are fragments of one (no group nor
	// names) rather than returning them.
	s.partial = f.Partial
	for _, d := range f.Documents {
		if d.Object.Kind != "CustomResourceDefinition" || !strings.HasPrefix(d.Object.APIVersion, "apiextensions.k8s.io/") {
			s.bundle = true
			continue
		}
		var c struct {
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Kind string `json:"kind"`
				} `json:"names"`
				Versions []json.RawMessage `json:"versions"`
				Version  string            `json:"version"` // v1beta1
			} `json:"spec"`
		}
		if json.Unmarshal(d.JSON, &c) != nil {
			s.partial++
			continue
		}
		if c.Spec.Group != "" && c.Spec.Names.Kind != "" && (len(c.Spec.Versions) > 0 || c.Spec.Version != "") {
			s.complete++
			s.kinds = append(s.kinds, c.Spec.Group+"/"+c.Spec.Names.Kind)
			defined[schema.GroupKind{Group: c.Spec.Group, Kind: c.Spec.Names.Kind}] = true
		} else {
			s.partial++
		}
	}
	return s
}

// Render writes the starter configuration: what was found, and every
// other key commented out with its default.
func (s *Repository) Render(version string) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# yaml-language-server: $schema=%s\n", SchemaURLFor(version))
	w("#\n")
	w("# kubectl-crdlint configuration, written by `kubectl crdlint config init` from\n")
	w("# what it found in this repository: review it. Every key is optional; paths\n")
	w("# and patterns are relative to this file. Reference:\n")
	w("# https://github.com/kubectl-crdlint/kubectl-crdlint/blob/main/docs/configuration.md\n")
	if s.Truncated {
		w("#\n# The scan stopped early (a very large or deep tree): look for more CRDs.\n")
	}
	w("\n# CRD sources besides the inputs: directories, files, globs or https:// URLs\n")
	w("# (pin those with #sha256=HEX). Custom resources are validated against these\n")
	w("# CRDs even when only the custom resources are checked, as in pre-commit.\n")
	example := "- https://github.com/cert-manager/cert-manager/releases/download/v1.16.2/cert-manager.crds.yaml#sha256=...\n"
	if len(s.CRDDirs)+len(s.CRDFiles) == 0 {
		w("# crds:\n#   - config/crd/bases\n#   %s", example)
	} else {
		w("crds:\n")
		for _, d := range append(slices.Clone(s.CRDDirs), s.CRDFiles...) {
			over := ""
			if o := s.Over[d.Path]; len(o) > 0 {
				names := strings.Join(o[:min(len(o), 2)], ", ")
				if len(o) > 2 {
					names += fmt.Sprintf(" and %d more", len(o)-2)
				}
				over = fmt.Sprintf("; judges the kinds it shares with %s (the later entry wins)", names)
			}
			w("  - %s # %s%s\n", yamlString(d.Path), plural(d.CRDs, "CRD"), over)
		}
		for _, c := range s.CRDCopies {
			own := ""
			if c.OwnKinds > 0 {
				own = fmt.Sprintf(", and %s of their own", plural(c.OwnKinds, "kind"))
			}
			w("  # - %s # %s: copies of kinds above (release, install or vendored)%s; listed, they would judge in their place\n", yamlString(c.Path), plural(c.CRDs, "CRD"), own)
		}
		w("  # %s", example)
	}

	w("\n# gitignore-style patterns of files never linted.\n")
	if len(s.Templates)+len(s.Patches)+len(s.TestData) == 0 {
		w("# exclude:\n#   - charts/*/templates/\n")
	} else {
		if len(s.Templates)+len(s.Patches) == 0 {
			w("# exclude:\n")
		} else {
			w("exclude:\n")
		}
		for _, t := range s.Templates {
			w("  - %s # Helm templates: not YAML until rendered\n", yamlString(anchor(t)+"/"))
		}
		for _, p := range s.Patches {
			what := "kustomize patch or configuration: not a whole object"
			if strings.HasSuffix(p, "/") {
				what = "kustomize patches: partial objects"
			}
			w("  - %s # %s\n", yamlString(anchor(p)), what)
		}
		for _, t := range s.TestData {
			w("  # - %s # test fixtures, often invalid on purpose\n", yamlString(anchor(t)+"/"))
		}
	}

	w("\n# Kinds of tool configuration that no API server serves, beyond the well-known\n")
	w("# ones (kind, kubeadm, audit policies, component configs): skipped, never\n")
	w("# custom resources. Kind.group, or *.group for a whole group.\n")
	if len(s.ConfigKinds) == 0 {
		w("# configKinds:\n#   - Configuration.config.example.com\n")
	} else {
		w("configKinds:\n")
		for _, k := range s.ConfigKinds {
			where := k.First
			if k.Files > 1 {
				where += fmt.Sprintf(" and %s", plural(k.Files-1, "more file"))
			}
			w("  - %s # no CRD in the repository; %s\n", yamlString(k.Kind.String()), where)
		}
	}

	w(`
# validate: warn      # unknown fields: strict (default, as kubectl apply: errors), warn, ignore
# failOn: warning     # the lowest severity that fails the run: error (default), warning, none
# missingCRDs: warn # a custom resource whose CRD is not found: error (default), warn, ignore
# baseline: .crdlint-baseline.yaml # accepted findings: check --write-baseline writes it

# Rule levels: error, warning or off; a rule the API server enforces can only
# be turned off. kubectl crdlint check --list-rules lists the rules.
# rules:
#   crd-empty-object: off

# Rule levels for some files; later entries win.
# overrides:
#   - files: ["vendor/**"]
#     rules: {crd-no-pruning: off}
`)
	return []byte(b.String())
}

// anchor makes a root-relative path a pattern that matches only there: a
// path with an inner "/" is anchored already, a single name needs a
// leading one.
func anchor(p string) string {
	if strings.Contains(strings.TrimSuffix(p, "/"), "/") {
		return p
	}
	return "/" + p
}

// yamlString quotes s when YAML would not read it back as that string.
func yamlString(s string) string {
	var n yaml.Node
	if yaml.Unmarshal([]byte(s), &n) == nil && len(n.Content) == 1 {
		if v := n.Content[0]; v.Kind == yaml.ScalarNode && v.Tag == "!!str" && v.Value == s && !strings.ContainsAny(s, "#'\"") {
			return s
		}
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// Counts says what a starter for the repository lists: "1 CRD source,
// 2 excludes".
func (s *Repository) Counts() string {
	return plural(len(s.CRDDirs)+len(s.CRDFiles), "CRD source") + ", " + plural(len(s.Templates)+len(s.Patches), "exclude")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
