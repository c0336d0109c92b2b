package bench

import (
	"archive/tar"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// Counts are the work counters a crdlint run prints with
// CRDLINT_MEMSTATS=1 (internal/count), by name.
type Counts map[string]int64

var countsRE = regexp.MustCompile(`counts: \{([^}]*)\}`)
var countRE = regexp.MustCompile(`(\w+):(\d+)`)

// ParseCounts reads the counters from a crdlint run's stderr.
func ParseCounts(stderr []byte) (Counts, bool) {
	m := countsRE.FindSubmatch(stderr)
	if m == nil {
		return nil, false
	}
	c := Counts{}
	for _, kv := range countRE.FindAllSubmatch(m[1], -1) {
		n, _ := strconv.ParseInt(string(kv[2]), 10, 64)
		c[string(kv[1])] = n
	}
	return c, true
}

// judged says what a run judged: custom resources validated, versions
// compiled, CRDs validated, documents parsed.
func (c Counts) judged() string {
	return fmt.Sprintf("%d custom resources validated, %d CRD versions compiled, %d CRDs validated, %d documents parsed",
		c["CRValidations"], c["VersionCompiles"], c["CRDValidations"], c["Parses"])
}

// saveTar archives dir as actions/cache saves a path: a tar that keeps
// modes and modification times (the linter trusts only a private cache).
func saveTar(dir, file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// restoreTar gives each run the cache saveTar archived, extracted into an
// emptied dir, as actions/cache restores it into a new job.
func restoreTar(file, dir string) func() ([]string, error) {
	return func() ([]string, error) {
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		tr := tar.NewReader(f)
		var dirs []*tar.Header
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			p := filepath.Join(dir, filepath.FromSlash(h.Name))
			switch h.Typeflag {
			case tar.TypeDir:
				if err := os.MkdirAll(p, 0o700); err != nil {
					return nil, err
				}
				dirs = append(dirs, h)
			case tar.TypeReg:
				out, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fs.FileMode(h.Mode).Perm())
				if err != nil {
					return nil, err
				}
				_, err = io.Copy(out, tr)
				if cerr := out.Close(); err == nil {
					err = cerr
				}
				if err == nil {
					err = os.Chtimes(p, h.ModTime, h.ModTime)
				}
				if err != nil {
					return nil, err
				}
			}
		}
		// Directories last: writing their files changed their times.
		for _, h := range dirs {
			p := filepath.Join(dir, filepath.FromSlash(h.Name))
			if err := os.Chmod(p, fs.FileMode(h.Mode).Perm()); err != nil {
				return nil, err
			}
			if err := os.Chtimes(p, h.ModTime, h.ModTime); err != nil {
				return nil, err
			}
		}
		return []string{"--cache-dir", dir}, nil
	}
}

// mixedScenarios are the mixed workload's tables: crdlint cold and warm
// (the warm run must judge nothing), and CI with the Action's cache (the
// previous commit's run's cache, saved and restored as actions/cache does,
// and a few files changed), with kubeconform on the same files.
func mixedScenarios(cfg Config, res *Results, corpus *Corpus, env scenarioEnv, runs int, kc []tool, primeCache func(dir, crs string) error) error {
	mo := DefaultMixed()
	mo.Files = cfg.MixedFiles
	files, st := BuildMixed(corpus, mo)
	res.Mixed = st
	dir := filepath.Join(cfg.WorkDir, "mixed")
	if err := WriteFiles(dir, files); err != nil {
		return err
	}
	// judged runs argv once more with the counters on.
	judged := func(t tool, extra []string, crs string) (Counts, error) {
		argv := append([]string{"env", "CRDLINT_MEMSTATS=1"}, t.argv(env.crdDir, crs, extra)...)
		m, err := env.run(argv)
		if err != nil {
			return nil, err
		}
		c, ok := ParseCounts(m.Stderr)
		if !ok {
			return nil, fmt.Errorf("no counts in crdlint's stderr with CRDLINT_MEMSTATS=1: %.500s", m.Stderr)
		}
		return c, nil
	}

	var s Scenario
	// peers adds kubeconform's rows on dir to s.
	peers := func(dir string, items int) error {
		for _, t := range kc {
			row, err := env.measure(t, runs, env.crdDir, dir, items)
			if err != nil {
				return err
			}
			s.Rows = append(s.Rows, row)
		}
		return nil
	}

	fmt.Fprintln(env.log, "scenario: mixed workload, cold and warm")
	s = Scenario{Key: ScnMixed, Title: fmt.Sprintf("Mixed repository: %d files of several projects' kinds, cold and warm", st.Files)}
	row, err := env.measure(env.crdlintWith("kubectl-crdlint, cold", coldCache(filepath.Join(env.cacheRoot, "cold"))), runs, env.crdDir, dir, st.Docs)
	if err != nil {
		return err
	}
	s.Rows = append(s.Rows, row)
	warm := filepath.Join(env.cacheRoot, "mixed-warm")
	if err := primeCache(warm, dir); err != nil {
		return err
	}
	warmTool := env.crdlintWith("kubectl-crdlint, warm", keptCache(warm))
	if row, err = env.measure(warmTool, runs, env.crdDir, dir, st.Docs); err != nil {
		return err
	}
	s.Rows = append(s.Rows, row)
	if res.MixedJudged, err = judged(warmTool, []string{"--cache-dir", warm}, dir); err != nil {
		return err
	}
	if err := peers(dir, st.Docs); err != nil {
		return err
	}
	s.About = fmt.Sprintf("%d objects in %d files (`.bench/mixed/`), each corpus example files of any project joined until it holds %d objects, as written: comments, built-in kinds, kinds no corpus CRD defines; %d files start with a corpus CRD (a bundle), %d mention CustomResourceDefinition without holding one. Validated against the corpus CRDs (--crd). crdlint cold (an empty cache each run), then warm (the cache a full run left, every run reusing it); with CRDLINT_MEMSTATS=1 a warm run reported: %s. kubeconform counts the objects it has no schema for (built-in kinds, the CRDs, kinds without a corpus CRD) as errors.",
		st.Docs, st.Files, mo.DocsPerFile, st.Bundles, st.Mentions, res.MixedJudged.judged())
	res.Scenarios = append(res.Scenarios, s)

	fmt.Fprintln(env.log, "scenario: CI with the Action's cache")
	adir := filepath.Join(cfg.WorkDir, "scn-action")
	if err := WriteFiles(adir, files); err != nil {
		return err
	}
	prev := filepath.Join(env.cacheRoot, "action-prev")
	if err := primeCache(prev, adir); err != nil {
		return err
	}
	n, b := dirSize(prev)
	note := fmt.Sprintf("%d files, %.0f KiB", n, float64(b)/1024)
	saved := filepath.Join(env.cacheRoot, "action-saved.tar")
	if err := saveTar(prev, saved); err != nil {
		return err
	}
	mo.Changed = max(1, (mo.Files*2+99)/100)
	next, nst := BuildMixed(corpus, mo)
	if err := WriteFiles(adir, next); err != nil {
		return err
	}
	actionTool := env.crdlintWith("kubectl-crdlint, the Action's cache", restoreTar(saved, filepath.Join(env.cacheRoot, "action-run")))
	s = Scenario{Key: ScnAction, Title: "CI with the Action's cache: the previous commit's cache, a few files changed"}
	if row, err = env.measure(actionTool, runs, env.crdDir, adir, nst.Docs); err != nil {
		return err
	}
	s.Rows = append(s.Rows, row)
	extra, err := restoreTar(saved, filepath.Join(env.cacheRoot, "action-run"))()
	if err != nil {
		return err
	}
	if res.ActionJudged, err = judged(actionTool, extra, adir); err != nil {
		return err
	}
	if err := peers(adir, nst.Docs); err != nil {
		return err
	}
	s.About = fmt.Sprintf("What a pull request's job costs with the GitHub Action: the mixed workload in `.bench/scn-action/` as the previous commit had it, one full run there (the previous commit's job) whose cache (%s) is saved as actions/cache saves it (a tar keeping modes and times), then the next commit: %d of %d files changed (a line added at the top), and each measured run starts from that cache restored into an empty directory. With CRDLINT_MEMSTATS=1 such a run reported: %s. kubeconform runs on the changed files as usual.",
		note, nst.Changed, nst.Files, res.ActionJudged.judged())
	res.Scenarios = append(res.Scenarios, s)
	return nil
}
