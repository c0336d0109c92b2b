package config

import (
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/layout"
)

// leaveCopies moves out of s.CRDDirs and s.CRDFiles the copies of the
// project's CRDs into s.CRDCopies: a directory under a copy directory
// (layout.CopyDir: releases/, dist/, vendor/, an OLM bundle/), or one
// whose CRD files all hold other objects too (install and release
// manifests), or such a file at the root, when a source left in defines
// one of its kinds. Listed in crds:, a copy would judge in its source's
// place (the later entry wins) and double the CRDs every run reads; a
// copy of kinds no source defines (other projects' CRDs, vendored) is
// the only definition there is, and stays. files are the files of
// complete CRDs, root-relative, as sniffCRDs read them.
func (s *Repository) leaveCopies(files map[string]sniffed) {
	type candidate struct {
		p     CountedPath
		dir   bool
		copy  bool
		kinds map[string]bool
	}
	var cs []*candidate
	add := func(p CountedPath, dir bool, in func(string) bool, named bool) {
		c := &candidate{p: p, dir: dir, copy: named, kinds: map[string]bool{}}
		bundles, n := 0, 0
		for f, sn := range files {
			if !in(f) {
				continue
			}
			for _, k := range sn.kinds {
				c.kinds[k] = true
			}
			n++
			if sn.bundle {
				bundles++
			}
		}
		c.copy = c.copy || n > 0 && bundles == n
		cs = append(cs, c)
	}
	for _, d := range s.CRDDirs {
		add(d, true, func(f string) bool { return strings.HasPrefix(f, d.Path+"/") }, layout.CopyIn(d.Path+"/f") >= 0)
	}
	for _, f := range s.CRDFiles {
		add(f, false, func(g string) bool { return g == f.Path }, false)
	}
	sourced := map[string]bool{}
	for _, c := range cs {
		if !c.copy {
			for k := range c.kinds {
				sourced[k] = true
			}
		}
	}
	s.CRDDirs, s.CRDFiles = nil, nil
	for _, c := range cs {
		dup := false
		for k := range c.kinds {
			dup = dup || sourced[k]
		}
		switch {
		case c.copy && dup:
			own := 0
			for k := range c.kinds {
				if !sourced[k] {
					own++
				}
			}
			s.CRDCopies = append(s.CRDCopies, CopiedPath{c.p, own})
		case c.dir:
			s.CRDDirs = append(s.CRDDirs, c.p)
		default:
			s.CRDFiles = append(s.CRDFiles, c.p)
		}
	}
	// In the order Render lists them: a later entry judges the kinds it
	// shares with an earlier one.
	kinds := map[string]map[string]bool{}
	for _, c := range cs {
		kinds[c.p.Path] = c.kinds
	}
	var listed []string
	for _, p := range append(pathsOf(s.CRDDirs), pathsOf(s.CRDFiles)...) {
		for _, q := range listed {
			for k := range kinds[p] {
				if kinds[q][k] {
					if s.Over == nil {
						s.Over = map[string][]string{}
					}
					s.Over[p] = append(s.Over[p], q)
					break
				}
			}
		}
		listed = append(listed, p)
	}
}

// CopiedPath is a path of copies of CRDs, how many, and how many of
// their kinds no source defines.
type CopiedPath struct {
	CountedPath
	OwnKinds int
}
