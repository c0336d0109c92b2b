package crd

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/layout"
)

// Which CRD judges a custom resource when several define its kind, in
// order (docs/configuration.md states the rule for users):
//
//  1. By layer: the CRDs of --crd and crds: (Extra) before those among
//     the inputs (Input), before a cluster's (Cluster). The first are
//     the ones the user named as the kinds' definitions.
//  2. Within --crd and crds:, and within a cluster's, the later one, as
//     applying them in order would.
//  3. Among the inputs, of the CRDs of one directory (files applied
//     together, kubectl apply -f DIR) one remains: one the server
//     accepts before one it would reject (applying that fails and leaves
//     the other), then the nearer below. Then, of what each directory
//     leaves, a CRD of the custom resource's own file, which is applied
//     with it.
//  4. Then one that can serve the custom resource's version (serves):
//     the server would accept it and it serves the version. A
//     repository keeps old definitions beside current ones (a test's
//     CRD of an earlier release, a copy without the approval
//     annotation); the custom resources written for the current one
//     were never meant for them, and blaming an old copy that happens
//     to be nearer is a false error. When none can, the nearest judges,
//     and its refusal is the finding.
//  5. Then the one nearest the custom resource (nearer): a copy yields
//     to a source; then the one sharing the most of the custom
//     resource's path; then the one fewest directories below what they
//     share; then the later one, as applying in order would (which
//     decides within one file: a Helm render, a kustomize build, a
//     multi-document stream).
//
// The layers are not crossed by 3 and 4: what --crd and crds: name, and a
// cluster's CRDs, are the definitions, and a custom resource they do not
// serve is refused by the server they stand for.
//
// The place of a custom resource is that of its file, so the answer is
// the same for every document of a file and version: a per-file verdict
// cache keyed by the versions it looked up stays right
// (Catalog.IdentityAt).

// place is where a file is: the elements of its absolute, cleaned path,
// the file's name last. nil is no place in particular (a live object,
// a caller that gives none).
type place []string

// where is the place of a CRD among the inputs, and what makes it a
// copy of a definition kept elsewhere.
type where struct {
	at place
	// bundle: its file holds other objects too (an install or release
	// manifest, a rendered chart or kustomization), which is how
	// generated copies of CRDs are shipped.
	bundle bool
	// copyAt is the index in at of its first copy directory
	// (layout.CopyDir), or -1; copyDir is that directory as the file's
	// name spells it, for messages.
	copyAt  int
	copyDir string
}

// copyFor reports whether the CRD is a copy for a custom resource at p:
// a bundle's CRD is one for every other file, a CRD under a copy
// directory for every file outside that directory.
func (w *where) copyFor(p place) bool {
	if w.bundle && !slices.Equal(w.at, p) {
		return true
	}
	return w.copyAt >= 0 && !hasPrefix(p, w.at[:w.copyAt+1])
}

func hasPrefix(p, prefix place) bool {
	return len(p) >= len(prefix) && slices.Equal(p[:len(prefix)], prefix)
}

// shared is how many leading elements two places have in common.
func shared(a, b place) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// nearer compares two CRDs among the inputs for a custom resource at p:
// positive when a is nearer, negative when b is, 0 when their places
// cannot tell them apart (then the later one wins).
func nearer(a, b *where, p place) int {
	if ca, cb := a.copyFor(p), b.copyFor(p); ca != cb {
		if cb {
			return 1
		}
		return -1
	}
	sa, sb := shared(a.at, p), shared(b.at, p)
	if sa != sb {
		return cmp.Compare(sa, sb)
	}
	return cmp.Compare(len(b.at)-sb, len(a.at)-sa)
}

// beats reports whether a judges over b a custom resource at p (nil: no
// place in particular).
func beats(a, b *Entry, p place) bool {
	if a.layer != b.layer {
		return a.layer > b.layer
	}
	if a.layer == Input && a.where != nil && b.where != nil {
		if n := nearer(a.where, b.where, p); n != 0 {
			return n > 0
		}
	}
	return a.seq[0] > b.seq[0] || a.seq[0] == b.seq[0] && a.seq[1] > b.seq[1]
}

// placeOf is where a file named as reports name it is: relative names
// are relative to the working directory ("<stdin>" is a file there);
// "" is no place.
func (c *Catalog) placeOf(name string) place {
	if name == "" {
		return nil
	}
	p := filepath.Clean(name)
	if !filepath.IsAbs(p) {
		c.cwdOnce.Do(func() {
			if c.cwd == "" {
				c.cwd, _ = os.Getwd()
			}
		})
		p = filepath.Join(c.cwd, p)
	}
	return split(filepath.ToSlash(p))
}

func split(p string) place {
	var out place
	for _, e := range strings.Split(p, "/") {
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

// whereOf is the place of a CRD among the inputs written in file (as
// reports name it); bundle says the file holds other objects too.
func (c *Catalog) whereOf(file string, bundle bool) *where {
	w := &where{at: c.placeOf(file), bundle: bundle, copyAt: -1}
	// Copy directories count in the name as given, not above it: a
	// checkout under ~/dist is no copy.
	rel := filepath.ToSlash(filepath.Clean(file))
	if i := layout.CopyIn(rel); i >= 0 {
		parts := strings.Split(rel, "/")
		if k := len(w.at) - (len(parts) - i); k >= 0 {
			w.copyAt, w.copyDir = k, strings.Join(parts[:i+1], "/")
		}
	}
	return w
}

// judgeAt is the entry that judges a custom resource of gvk in file (see
// the rule above), or nil; a version of "" ranks by place alone (for
// callers that know only the kind). c.mu is not held: telling whether a
// CRD serves may validate it (once; the run lints it anyway).
func (c *Catalog) judgeAt(gvk schema.GroupVersionKind, file string) *Entry {
	gk := gvk.GroupKind()
	c.mu.RLock()
	e := c.byGK[gk]
	if e == nil || e.layer != Input || (file == "" && gvk.Version == "") || len(c.all[gk]) < 2 {
		c.mu.RUnlock()
		return e
	}
	var inputs []*Entry
	for _, x := range c.all[gk] {
		if x.layer == Input {
			inputs = append(inputs, x)
		}
	}
	c.mu.RUnlock()
	p := c.placeOf(file)
	if gvk.Version == "" {
		for _, x := range inputs {
			if beats(x, e, p) {
				e = x
			}
		}
		return e
	}
	// What applying each directory leaves: of the CRDs of one directory
	// (kubectl apply -f DIR, a file's stream) one remains, whichever
	// versions the others serve.
	var winners []*Entry
	group := map[string]int{}
	for _, x := range inputs {
		k, ok := x.dir()
		if !ok {
			winners = append(winners, x)
			continue
		}
		if i, seen := group[k]; !seen {
			group[k] = len(winners)
			winners = append(winners, x)
		} else if c.appliedOver(x, winners[i], p) {
			winners[i] = x
		}
	}
	e = winners[0]
	for _, x := range winners[1:] {
		if c.judgesBefore(x, e, gvk.Version, p) {
			e = x
		}
	}
	return e
}

// dir names the directory of a placed entry; ok is false for one without
// a place.
func (e *Entry) dir() (string, bool) {
	if e.where == nil || len(e.where.at) == 0 {
		return "", false
	}
	return strings.Join(e.where.at[:len(e.where.at)-1], "/"), true
}

// appliedOver reports whether a, applied with b (their files are in one
// directory), is the one that judges a custom resource at p: one the
// server accepts before one it would reject (applying it fails and leaves
// the other); then the one of p's own file, applied with it; then the
// later, which kubectl apply -f DIR applies last, whether either file is
// a bundle or not (the source-before-copy rule of nearer is for files
// apart, which are not applied together).
func (c *Catalog) appliedOver(a, b *Entry, p place) bool {
	if ra, rb := a.Rejected(c.strict), b.Rejected(c.strict); ra != rb {
		return rb
	}
	if oa, ob := a.ownFile(p), b.ownFile(p); oa != ob {
		return oa
	}
	return a.seq[0] > b.seq[0] || a.seq[0] == b.seq[0] && a.seq[1] > b.seq[1]
}

// judgesBefore reports whether a judges over b (both among the inputs,
// each what applying its directory leaves) a custom resource of version
// at p: the one of its own file first, which is applied with it; then
// one that can serve the version; then the nearer (beats).
func (c *Catalog) judgesBefore(a, b *Entry, version string, p place) bool {
	if oa, ob := a.ownFile(p), b.ownFile(p); oa != ob {
		return oa
	}
	if sa, sb := a.serves(version, c.strict), b.serves(version, c.strict); sa != sb {
		return sa
	}
	return beats(a, b, p)
}

// ownFile reports whether the entry is written in the file at p.
func (e *Entry) ownFile(p place) bool {
	return p != nil && e.where != nil && slices.Equal(e.where.at, p)
}

// serves reports whether a custom resource of version can be served by
// the entry's CRD: the CRD has the version, serves it, and the server
// would accept the CRD (a rejected one serves nothing).
func (e *Entry) serves(version string, strict bool) bool {
	crd := e.CRD()
	ok := false
	for i := range crd.Spec.Versions {
		if v := &crd.Spec.Versions[i]; v.Name == version {
			ok = v.Served
		}
	}
	return ok && !e.Rejected(strict)
}

// ordered is the order of entries as added: by layer, then by their
// place in it.
func ordered(a, b *Entry) bool {
	if a.layer != b.layer {
		return a.layer < b.layer
	}
	return a.seq[0] < b.seq[0] || a.seq[0] == b.seq[0] && a.seq[1] < b.seq[1]
}
