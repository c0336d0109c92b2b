package input

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/kustomize"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/layout"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Why a file of a repository is not read as manifests. These files are
// skipped and counted, never judged: running over a whole repository
// reports only real problems. Every command counts them with these words.
const (
	// SkipHelmTemplate: a file under a Helm chart's templates/ (a
	// directory beside a Chart.yaml) is a Go template, not YAML.
	SkipHelmTemplate = "Helm chart template"
	// SkipKustomization: kustomization.yaml (and .yml, Kustomization) is
	// kustomize's configuration, not an API object.
	SkipKustomization = "kustomization"
	// SkipKustomizePatch: a file a kustomization of the repository uses
	// as a patch (or a replacement, transformer, generator, generator
	// input, configuration), or a file of kubebuilder's crd/patches/,
	// holds partial objects or data that kustomize merges into others.
	SkipKustomizePatch = "kustomize patch or configuration"
	// SkipTestAssertion: a kuttl or chainsaw test step's expected or
	// forbidden state (NN-assert.yaml, NN-errors.yaml, or a file a
	// chainsaw-test.yaml asserts with assert: or error:) holds partial
	// objects and JMESPath bindings to compare the cluster's with, not
	// manifests to apply.
	SkipTestAssertion = "test assertion"
	// SkipSnapshot: a file in a test snapshot directory (__snapshot__,
	// __snapshots__: layout.Snapshot) is a test's recorded output.
	SkipSnapshot = "test snapshot"
)

// maxScan bounds the directory entries the scan of a repository for
// kustomizations visits: past it, kustomizations further on are not read
// (those in a file's own directory and above it still are).
const maxScan = 200000

// repo answers which files of a repository are not manifests, reading
// each Chart.yaml stat and kustomization once.
type repo struct {
	charts map[string]bool // dir -> holds a Chart.yaml
	// read are the directories whose kustomization was read; scanned the
	// roots whose every kustomization was.
	read, scanned map[string]bool
	// patches are the files kustomizations name as other than resources,
	// as absolute paths; assertions those chainsaw tests assert with.
	patches, assertions map[string]bool
}

func newRepo() *repo {
	return &repo{charts: map[string]bool{}, read: map[string]bool{}, scanned: map[string]bool{},
		patches: map[string]bool{}, assertions: map[string]bool{}}
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
	if slices.Contains(kustomize.FileNames(), filepath.Base(abs)) {
		return SkipKustomization
	}
	if r.helmTemplate(abs) {
		return SkipHelmTemplate
	}
	if layout.Snapshot(filepath.ToSlash(abs)) {
		return SkipSnapshot
	}
	if layout.Assertion(filepath.Base(abs)) {
		return SkipTestAssertion
	}
	r.readAround(abs)
	if r.patch(abs) {
		return SkipKustomizePatch
	}
	if r.assertions[abs] {
		return SkipTestAssertion
	}
	return ""
}

// readAround reads what names the files of a repository as other than
// manifests: every kustomization and chainsaw test of the file's
// repository, and those of the file's directory and above it, also
// outside a repository.
func (r *repo) readAround(abs string) {
	dir := filepath.Dir(abs)
	if root := gitRoot(dir); root != "" {
		r.scan(root)
	}
	for d := dir; ; d = filepath.Dir(d) {
		r.readDir(d)
		if isRoot(d) {
			break
		}
	}
}

// patch reports whether a file is a kustomize patch or configuration:
// named so by any kustomization of its repository (an overlay elsewhere
// may patch a base's CRDs with ../../config/crd/patches/...) or among the
// inputs (Inputs), or in kubebuilder's crd/patches/ directory, whose
// partial CRDs (webhook_in_*.yaml, cainjection_in_*.yaml) are patches
// even when the kustomization that would use them has them commented out.
// readAround has read the kustomizations.
func (r *repo) patch(abs string) bool {
	dir := filepath.Dir(abs)
	if filepath.Base(dir) == "patches" && filepath.Base(filepath.Dir(dir)) == "crd" {
		return true
	}
	return r.patches[abs]
}

// Inputs reads the kustomizations and chainsaw tests among a run's files
// (as a directory argument expands): outside a repository, whose
// kustomizations are not all read, those of the directories given still
// name their patches.
func (r *repo) Inputs(files []string) {
	for _, f := range files {
		if f == "-" || !namesOthers(filepath.Base(f)) {
			continue
		}
		if abs, err := filepath.Abs(f); err == nil {
			r.readDir(filepath.Dir(abs))
		}
	}
}

// namesOthers reports whether a file of this name names other files as
// no manifests: a kustomization (its patches), a chainsaw test (its
// assertions).
func namesOthers(name string) bool {
	return slices.Contains(kustomize.FileNames(), name) || slices.Contains(chainsawTestNames, name)
}

// gitRoot is the repository holding dir: the nearest directory above
// with .git, or "" outside one. Outside a repository nothing is scanned:
// a run in a home directory must not walk it.
func gitRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// scan reads every kustomization and chainsaw test under root, once per
// root. Hidden
// directories, node_modules and vendor are not entered: a directory
// argument skips the hidden ones too, and the others hold no patch of the
// project's own files.
func (r *repo) scan(root string) {
	if r.scanned[root] {
		return
	}
	r.scanned[root] = true
	entries := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: pass over
		}
		if entries++; entries > maxScan {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != root && (d.Name()[0] == '.' || slices.Contains(source.VendorDirs, d.Name())) {
				return filepath.SkipDir
			}
			return nil
		}
		if namesOthers(d.Name()) {
			r.readDir(filepath.Dir(p))
		}
		return nil
	})
}

// readDir adds what the kustomization of dir, if any, names as other
// than resources to r.patches, and what its chainsaw test asserts to
// r.assertions.
func (r *repo) readDir(dir string) {
	if r.read[dir] {
		return
	}
	r.read[dir] = true
	_, paths := kustomize.NotResources(dir)
	for _, p := range paths {
		r.patches[p] = true
	}
	for _, p := range chainsawAssertions(dir) {
		r.assertions[p] = true
	}
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
