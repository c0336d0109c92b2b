package input

import (
	"os"
	"path/filepath"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"
)

// Why a file of a repository is not read as manifests. These files are
// skipped and counted, never judged: running over a whole repository
// reports only real problems.
const (
	// SkipHelmTemplate: a file under a Helm chart's templates/ (a
	// directory beside a Chart.yaml) is a Go template, not YAML.
	SkipHelmTemplate = "Helm chart template"
	// SkipKustomization: kustomization.yaml (and .yml, Kustomization) is
	// kustomize's configuration, not an API object.
	SkipKustomization = "kustomization"
	// SkipKustomizePatch: a file a kustomization uses as a patch (or a
	// transformer, generator, replacement, configuration) holds partial
	// objects that kustomize merges into others.
	SkipKustomizePatch = "kustomize patch or configuration"
)

// kustomizationNames are the file names kustomize reads, in its order.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// repo answers which files of a repository are not manifests, reading
// each Chart.yaml stat and kustomization once.
type repo struct {
	charts  map[string]bool            // dir -> holds a Chart.yaml
	kustoms map[string]map[string]bool // dir -> files its kustomization uses as patches
}

func newRepo() *repo {
	return &repo{charts: map[string]bool{}, kustoms: map[string]map[string]bool{}}
}

// skip says why a file is not manifests, or "".
func (r *repo) skip(p string) string {
	if p == "-" {
		return ""
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	base := filepath.Base(abs)
	for _, n := range kustomizationNames {
		if base == n {
			return SkipKustomization
		}
	}
	if r.helmTemplate(abs) {
		return SkipHelmTemplate
	}
	// A patch is referenced by a kustomization in its directory or above
	// it (overlays refer to ../base files and vice versa rarely).
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if r.patches(dir)[abs] {
			return SkipKustomizePatch
		}
		if isRoot(dir) {
			break
		}
	}
	return ""
}

// helmTemplate: some ancestor named templates sits beside a Chart.yaml.
func (r *repo) helmTemplate(abs string) bool {
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if filepath.Base(dir) == "templates" && r.chart(filepath.Dir(dir)) {
			return true
		}
		if isRoot(dir) {
			return false
		}
	}
}

func (r *repo) chart(dir string) bool {
	if v, ok := r.charts[dir]; ok {
		return v
	}
	_, err := os.Stat(filepath.Join(dir, "Chart.yaml"))
	r.charts[dir] = err == nil
	return err == nil
}

// isRoot: the walk up stops at a repository's root or the file system's.
func isRoot(dir string) bool {
	if filepath.Dir(dir) == dir {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, ".git"))
	return err == nil
}

// patches lists the files the kustomization of dir uses as patches and
// configuration, as absolute paths.
func (r *repo) patches(dir string) map[string]bool {
	if m, ok := r.kustoms[dir]; ok {
		return m
	}
	m := map[string]bool{}
	r.kustoms[dir] = m
	for _, n := range kustomizationNames {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			continue
		}
		var k kustomization
		if sigsyaml.Unmarshal(data, &k) != nil {
			return m
		}
		for _, p := range k.paths() {
			if p == "" || strings.Contains(p, "://") {
				continue
			}
			m[filepath.Join(dir, filepath.FromSlash(p))] = true
		}
		return m
	}
	return m
}

// kustomization holds the fields of a Kustomization (or Component) that
// name files which are not whole objects.
type kustomization struct {
	Patches []struct {
		Path string `json:"path"`
	} `json:"patches"`
	PatchesStrategicMerge []string `json:"patchesStrategicMerge"`
	PatchesJSON6902       []struct {
		Path string `json:"path"`
	} `json:"patchesJson6902"`
	Replacements []struct {
		Path string `json:"path"`
	} `json:"replacements"`
	Transformers   []string `json:"transformers"`
	Generators     []string `json:"generators"`
	Validators     []string `json:"validators"`
	Configurations []string `json:"configurations"`
}

func (k *kustomization) paths() []string {
	var out []string
	for _, p := range k.Patches {
		out = append(out, p.Path)
	}
	for _, p := range k.PatchesJSON6902 {
		out = append(out, p.Path)
	}
	for _, p := range k.Replacements {
		out = append(out, p.Path)
	}
	// patchesStrategicMerge entries are paths or inline patches; an
	// inline one has a newline or a colon and never names a file.
	for _, p := range k.PatchesStrategicMerge {
		if !strings.ContainsAny(p, "\n:") {
			out = append(out, p)
		}
	}
	for _, l := range [][]string{k.Transformers, k.Generators, k.Validators, k.Configurations} {
		for _, p := range l {
			if !strings.ContainsAny(p, "\n:") {
				out = append(out, p)
			}
		}
	}
	return out
}
