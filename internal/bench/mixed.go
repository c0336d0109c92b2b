package bench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
)

// MixedOptions shape the mixed workload: a repository's worth of files as
// projects write them, each holding the examples of several projects.
type MixedOptions struct {
	Seed  uint64
	Files int
	// DocsPerFile is how many objects a file gets at least: corpus files
	// are added whole until it has as many.
	DocsPerFile int
	// BundlePercent of the files (drawn by the PRNG) start with one of
	// the corpus's CRD files, as an install bundle or a chart's output
	// holds its CRDs before its objects.
	BundlePercent int
	// Changed files (drawn by a PRNG of their own, so every other byte
	// is what the unchanged build makes) get one line more, ChangedLine:
	// the next commit of the same repository, for the scenario of the
	// Action's cache.
	Changed int
}

// ChangedLine starts a changed file of the mixed workload.
const ChangedLine = "# bench.crdlint.io: changed in the next commit\n"

// MixedStats tell what BuildMixed made.
type MixedStats struct {
	Files, Docs int
	// Bundles hold CRDs; Mentions hold none but name
	// CustomResourceDefinition in their text (a ConfigMap of a
	// ClusterResourceSet that carries one, say), which the linter must
	// parse to tell.
	Bundles, Mentions int
	Changed           int
}

var crdWord = []byte("CustomResourceDefinition")

// BuildMixed makes the mixed workload from the corpus's example files as
// written: file i is corpus files drawn at random (any project, repeats
// allowed) joined with "---" until it holds DocsPerFile objects, after a
// corpus CRD file for a bundle. Unlike Build's documents, these keep
// what real files have and generated ones lack — comments, built-in
// kinds, kinds no corpus CRD defines, CRDs among the objects, the word
// CustomResourceDefinition in files without one — which is what a cache
// must also replay. The same corpus and options give the same bytes.
func BuildMixed(c *Corpus, o MixedOptions) ([]NamedFile, MixedStats) {
	var st MixedStats
	if len(c.Examples) == 0 || o.Files <= 0 {
		return nil, st
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x6d69786564))
	changed := map[int]bool{}
	if o.Changed > 0 {
		pick := rand.New(rand.NewPCG(o.Seed^0x6368616e676564, o.Seed))
		for _, i := range pick.Perm(o.Files)[:min(o.Changed, o.Files)] {
			changed[i] = true
		}
	}
	files := make([]NamedFile, 0, o.Files)
	for fi := 0; fi < o.Files; fi++ {
		var buf bytes.Buffer
		add := func(text []byte) {
			text = bytes.TrimPrefix(text, []byte("---\n"))
			if buf.Len() > 0 {
				buf.WriteString("---\n")
			}
			buf.Write(text)
			if !bytes.HasSuffix(text, []byte("\n")) {
				buf.WriteByte('\n')
			}
		}
		bundle := rng.IntN(100) < o.BundlePercent && len(c.CRDFiles) > 0
		if bundle {
			f := c.CRDFiles[rng.IntN(len(c.CRDFiles))]
			add(f.Data)
			docs, _ := splitDocs(f.Data)
			st.Docs += len(docs)
			st.Bundles++
		}
		for n := 0; n < max(o.DocsPerFile, 1); {
			ex := c.Examples[rng.IntN(len(c.Examples))]
			add(ex.Data)
			n += ex.Docs
			st.Docs += ex.Docs
		}
		if !bundle && bytes.Contains(buf.Bytes(), crdWord) {
			st.Mentions++
		}
		data := buf.Bytes()
		if changed[fi] {
			data = slices.Concat([]byte(ChangedLine), data)
			st.Changed++
		}
		files = append(files, NamedFile{Name: fmt.Sprintf("mixed-%03d.yaml", fi), Data: data})
	}
	st.Files = len(files)
	return files, st
}

// DefaultMixed is the mixed workload of `make bench`: 200 files of about
// 25 objects, 5% of them bundles with a CRD, as the workload of 17
// projects had.
func DefaultMixed() MixedOptions {
	return MixedOptions{Seed: 20260102, Files: 200, DocsPerFile: 25, BundlePercent: 5}
}
