package bench

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Scenario is one of the cache and CRD-set tables: crdlint in a given
// state of its cache or with a given CRD set, and the peers' normal runs on
// the same inputs (they have no cache).
type Scenario struct {
	Key   string // what Targets looks it up by
	Title string
	About string
	Rows  []Row
}

// The scenarios' keys.
const (
	ScnWarm        = "warm"
	ScnCI          = "ci"
	ScnIncremental = "incremental"
	ScnMixed       = "mixed"
	ScnAction      = "action"
	ScnLargeCRDs   = "large-crds"
)

func findScenario(res *Results, key string) []Row {
	for _, s := range res.Scenarios {
		if s.Key == key {
			return s.Rows
		}
	}
	return nil
}

// coldCache gives each run an empty cache directory of its own.
func coldCache(dir string) func() ([]string, error) {
	return func() ([]string, error) {
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		return []string{"--cache-dir", dir}, os.MkdirAll(dir, 0o755)
	}
}

// keptCache gives every run the same directory, as a user's runs share
// theirs: each finds what the runs before it left.
func keptCache(dir string) func() ([]string, error) {
	return func() ([]string, error) { return []string{"--cache-dir", dir}, nil }
}

// snapshotCache gives each run a copy of snap, so that every run starts
// from the same cache, not from the one the run before it filled with the
// changed files' results.
func snapshotCache(snap, dir string) func() ([]string, error) {
	return func() ([]string, error) {
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		return []string{"--cache-dir", dir}, copyDir(snap, dir)
	}
}

func copyDir(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

func dirSize(dir string) (files int, bytes int64) {
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				files++
				bytes += info.Size()
			}
		}
		return nil
	})
	return files, bytes
}

// scenarioEnv is what the scenarios need of Run.
type scenarioEnv struct {
	log         io.Writer
	measure     func(t tool, runs int, crds, in string, items int) (Row, error)
	crdlintWith func(name string, before func() ([]string, error)) tool
	kcTools     []tool
	cacheRoot   string
	crdDir      string
	crsDir      string // the 1× workload
	// run runs argv once, unmeasured (to leave a cache behind, or to
	// read what a run did); an exit code over 1 is an error.
	run func(argv []string) (Measurement, error)
}

func runScenarios(ctx context.Context, cfg Config, res *Results, corpus *Corpus, env scenarioEnv) error {
	if cfg.MinorRuns > 0 {
		if err := minorsScenario(res, env, cfg.MinorRuns); err != nil {
			return err
		}
	}
	if cfg.ScenarioRuns <= 0 {
		return nil
	}
	runs := cfg.ScenarioRuns
	docs := res.Workload.Docs
	// kubeconform's configuration that was fastest on the 1× workload.
	var kc []tool
	if best, ok := fastest(res.CR, "kubeconform"); ok {
		for _, t := range env.kcTools {
			if t.name == best.Tool {
				kc = append(kc, t)
			}
		}
	}
	primeCache := func(dir, crs string) error {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		fmt.Fprintf(env.log, "  priming %s with a full run on %s\n", dir, crs)
		t := env.crdlintWith("", nil)
		_, err := env.run(t.argv(env.crdDir, crs, []string{"--cache-dir", dir}))
		return err
	}
	cacheNote := func(dir string) string {
		n, b := dirSize(dir)
		return fmt.Sprintf("the cache a full run left (%d files, %.0f KiB)", n, float64(b)/1024)
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// Warm: the same command again, nothing changed.
	fmt.Fprintln(env.log, "scenario: warm cache")
	warm := filepath.Join(env.cacheRoot, "warm")
	if err := primeCache(warm, env.crsDir); err != nil {
		return err
	}
	note := cacheNote(warm)
	row, err := env.measure(env.crdlintWith("kubectl-crdlint, warm cache", keptCache(warm)), runs, env.crdDir, env.crsDir, docs)
	if err != nil {
		return err
	}
	s := Scenario{Key: ScnWarm, Title: "Warm run: the same command again, no file changed",
		About: fmt.Sprintf("crdlint with %s (every run reuses it, as a user's runs do); kubeconform's rows are the 1× table's (same inputs, no cache).", note),
		Rows:  []Row{row}}
	for _, r := range res.CR {
		if strings.HasPrefix(r.Tool, "kubeconform") {
			s.Rows = append(s.Rows, r)
		}
	}
	res.Scenarios = append(res.Scenarios, s)

	// CI and 1% incremental: a full run's cache, then the workload
	// edited. The workload lives in a directory of its own whose files
	// keep their names across the edit, as in a repository.
	for _, sc := range []struct {
		key, title string
		pct        int
	}{
		{ScnCI, "CI run: CRDs cached, every custom resource file changed", 100},
		{ScnIncremental, "1% incremental: a full run's cache, then 1% of the files changed", 1},
	} {
		fmt.Fprintf(env.log, "scenario: %s\n", sc.key)
		dir := filepath.Join(cfg.WorkDir, "scn-"+sc.key)
		o := DefaultOptions(1)
		files, _ := Build(corpus.Templates, o)
		if err := WriteFiles(dir, files); err != nil {
			return err
		}
		snap := filepath.Join(env.cacheRoot, sc.key+"-primed")
		if err := primeCache(snap, dir); err != nil {
			return err
		}
		note := cacheNote(snap)
		o.TouchPercent = sc.pct
		files, st := Build(corpus.Templates, o)
		if err := WriteFiles(dir, files); err != nil {
			return err
		}
		row, err := env.measure(env.crdlintWith("kubectl-crdlint, "+sc.key, snapshotCache(snap, filepath.Join(env.cacheRoot, sc.key+"-run"))), runs, env.crdDir, dir, docs)
		if err != nil {
			return err
		}
		s := Scenario{Key: sc.key, Title: sc.title, Rows: []Row{row},
			About: fmt.Sprintf("%d of %d files changed (label %s added to each of their documents); crdlint starts every run from a copy of %s on the unchanged files; kubeconform runs on the changed files as usual.", st.Touched, st.Files, TouchLabel, note)}
		for _, t := range kc {
			row, err := env.measure(t, runs, env.crdDir, dir, docs)
			if err != nil {
				return err
			}
			s.Rows = append(s.Rows, row)
		}
		res.Scenarios = append(res.Scenarios, s)
	}

	if cfg.MixedFiles > 0 {
		if err := mixedScenarios(cfg, res, corpus, env, runs, kc, primeCache); err != nil {
			return err
		}
	}

	// A large CRD set of which the workload uses a hundred or so.
	if cfg.LargeCRDs > 0 {
		fmt.Fprintf(env.log, "scenario: %d CRDs\n", cfg.LargeCRDs)
		files, n, err := ExpandCRDs(corpus.CRDFiles, cfg.LargeCRDs)
		if err != nil {
			return err
		}
		large := filepath.Join(cfg.WorkDir, fmt.Sprintf("crds-%d", n))
		if err := WriteFiles(large, files); err != nil {
			return err
		}
		_, sizeSmall := dirSize(env.crdDir)
		_, sizeLarge := dirSize(large)
		s := Scenario{Key: ScnLargeCRDs, Title: fmt.Sprintf("Large CRD set: the 1× workload against %d CRDs", n),
			About: fmt.Sprintf("The corpus's %d CRDs (%.0f MiB of YAML) against %d (%.0f MiB): the corpus's and %d copies under new groups (`x<k>.<group>`), which no document uses. Both cold (an empty cache each run), measured in the same minutes.",
				corpus.CRDs, float64(sizeSmall)/(1<<20), n, float64(sizeLarge)/(1<<20), n-corpus.CRDs)}
		for _, c := range []struct{ name, dir string }{
			{fmt.Sprintf("kubectl-crdlint, %d CRDs", corpus.CRDs), env.crdDir},
			{fmt.Sprintf("kubectl-crdlint, %d CRDs", n), large},
		} {
			row, err := env.measure(env.crdlintWith(c.name, coldCache(filepath.Join(env.cacheRoot, "cold"))), runs, c.dir, env.crsDir, docs)
			if err != nil {
				return err
			}
			s.Rows = append(s.Rows, row)
		}
		res.Scenarios = append(res.Scenarios, s)
	}
	return nil
}
