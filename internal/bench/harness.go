package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Config is everything `make bench` can change.
type Config struct {
	Corpus  string // the shared corpus: crds/ and crs/
	ToolDir string // where crdlint is built and the peers installed
	WorkDir string // where workloads and outputs are written
	Runs    int    // runs per tool per table (the median is reported)
	// KVRuns is the number of kubectl-validate runs on custom resources,
	// which alone take minutes.
	KVRuns int
	// KVDocs, when not 0, is the size of the subset of the 1× workload
	// (its first files) that kubectl-validate validates, at about 10
	// documents a second, together with the other two tools for a
	// comparison on the same inputs. 0 runs it on the whole 1× workload.
	KVDocs int
	// Scales are the workload multiples of the scale table (1 = 10,000
	// documents); ScaleRuns the runs per tool and scale.
	Scales    []int
	ScaleRuns int
	// ScaleKV adds kubectl-validate to the scale table (tens of minutes).
	ScaleKV bool
	// KubeconformWorkers are the -n values to run kubeconform with; each
	// is a row, and the targets use the fastest.
	KubeconformWorkers []int
	// SmallRuns is the number of runs of crdlint on one small file.
	SmallRuns int
	// ScenarioRuns is the number of measured runs per tool of each cache
	// and CRD-set scenario; 0 skips them.
	ScenarioRuns int
	// LargeCRDs is the size of the large CRD set scenario's; 0 skips it.
	LargeCRDs int
	// MixedFiles is the size of the mixed workload (BuildMixed) of the
	// mixed and Action's cache scenarios; 0 skips them.
	MixedFiles int
	// MinorRuns is the number of measured runs of each side of the
	// Kubernetes minors scenario (the newest minor vs every supported
	// one); 0 skips it and the engines' builds.
	MinorRuns int
}

// Row is one tool's line in a table.
type Row struct {
	Tool string
	Summary
	// Items is the size of the input (documents or CRDs), the same for
	// every tool of a table, which throughput is computed from.
	Items int
	Note  string
}

// PerSecond is the row's throughput over the median wall time.
func (r Row) PerSecond() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Items) / r.Wall.Seconds()
}

// PerCPUSecond is the row's throughput per second of CPU: on a machine
// shared with other work, wall time includes waiting for a core, CPU time
// much less so.
func (r Row) PerCPUSecond() float64 {
	if r.CPU <= 0 {
		return 0
	}
	return float64(r.Items) / r.CPU.Seconds()
}

// Results is a whole harness run, also written as JSON for later comparison.
type Results struct {
	Started     time.Time
	Machine     Machine
	Commit      string
	Peers       []Peer
	Isolation   string
	Workload    Stats
	CRDs        int
	Templates   int // corpus CR documents the workload is made from
	SchemaFiles int
	CR          []Row
	// Subset is the three tools on the first SubsetDocs documents of the
	// workload (SubsetFiles files), when kubectl-validate is not run on all.
	Subset                  []Row
	SubsetDocs, SubsetFiles int
	CRD                     []Row
	Scale                   map[string][]Row // tool -> one row per scale
	Scales                  []int
	Small                   Row
	Scenarios               []Scenario
	// Mixed is what the mixed workload holds; MixedJudged what
	// crdlint's warm run on it judged, and ActionJudged its run with the
	// Action's cache (internal/count, from CRDLINT_MEMSTATS=1).
	Mixed                     MixedStats
	MixedJudged, ActionJudged Counts
	Targets                   []Target
}

// Machine describes where the numbers were taken.
type Machine struct {
	CPUs      int
	CPUModel  string
	GoVersion string
	OS        string
}

func describeMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, CPUModel: "unknown"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// tool is how one tool is run on a custom resource or CRD workload.
type tool struct {
	name  string
	argv  func(crds, inputs string, extra []string) []string
	parse func([]byte) (int, int, error)
	// before, when set, runs before each measured run (outside the
	// measurement) and returns arguments for it: crdlint's cache directory,
	// which decides whether the run is cold or warm.
	before func() ([]string, error)
}

// Run is the whole harness: build, install, generate, measure, report.
func Run(ctx context.Context, cfg Config, out, log io.Writer) (*Results, error) {
	res := &Results{Started: time.Now().UTC(), Machine: describeMachine(), Peers: []Peer{Kubeconform, KubectlValidate}, Scales: cfg.Scales}
	crdlint, benchexec, commit, err := BuildLocal(ctx, cfg.ToolDir, log)
	if err != nil {
		return nil, err
	}
	res.Commit = commit
	if cfg.MinorRuns > 0 {
		if err := BuildEngines(ctx, cfg.ToolDir, log); err != nil {
			return nil, err
		}
	}
	kc, err := EnsurePeer(ctx, cfg.ToolDir, Kubeconform, log)
	if err != nil {
		return nil, err
	}
	kv, err := EnsurePeer(ctx, cfg.ToolDir, KubectlValidate, log)
	if err != nil {
		return nil, err
	}

	fmt.Fprintf(log, "generating the workload from %s into %s\n", cfg.Corpus, cfg.WorkDir)
	corpus, err := LoadCorpus(cfg.Corpus)
	if err != nil {
		return nil, err
	}
	res.CRDs, res.Templates = len(corpus.CRDFiles), len(corpus.Templates)
	crdDir := filepath.Join(cfg.WorkDir, "crds")
	if err := WriteFiles(crdDir, corpus.CRDFiles); err != nil {
		return nil, err
	}
	schemaDir := filepath.Join(cfg.WorkDir, "schemas")
	if res.SchemaFiles, err = WriteJSONSchemas(schemaDir, corpus.CRDFiles); err != nil {
		return nil, err
	}
	absSchemas, err := filepath.Abs(schemaDir)
	if err != nil {
		return nil, err
	}
	scales := append([]int{1}, cfg.Scales...)
	crDirs := map[int]string{}
	for _, k := range scales {
		if _, done := crDirs[k]; done {
			continue
		}
		files, st := Build(corpus.Templates, DefaultOptions(k))
		dir := filepath.Join(cfg.WorkDir, fmt.Sprintf("crs-x%d", k))
		if err := WriteFiles(dir, files); err != nil {
			return nil, err
		}
		crDirs[k] = dir
		if k == 1 {
			res.Workload = st
			if cfg.KVDocs > 0 && cfg.KVDocs < st.Docs {
				n := 0
				for _, f := range files {
					if res.SubsetDocs >= cfg.KVDocs {
						break
					}
					res.SubsetDocs += bytes.Count(f.Data, []byte("\n---\n")) + 1
					n++
				}
				res.SubsetFiles = n
				if err := WriteFiles(filepath.Join(cfg.WorkDir, "crs-subset"), files[:n]); err != nil {
					return nil, err
				}
			}
		}
	}

	r := NewRunner(ctx, benchexec, cfg.WorkDir)
	res.Isolation = r.Isolation()
	// Every crdlint run is given its cache directory: without one it
	// would use the user's (or $KUBECTL_CRDLINT_CACHE_DIR), and every run
	// after the first would read what the one before wrote.
	crdlintWith := func(name string, before func() ([]string, error)) tool {
		return tool{name, func(crds, in string, extra []string) []string {
			a := append([]string{crdlint, "check"}, extra...)
			a = append(a, "--strict", "-o", "json")
			if crds != "" {
				a = append(a, "--crd", crds)
			}
			return append(a, in)
		}, ParseCrdlint, before}
	}
	cacheRoot, err := filepath.Abs(filepath.Join(cfg.WorkDir, "cache"))
	if err != nil {
		return nil, err
	}
	crdlintTool := crdlintWith("kubectl-crdlint", coldCache(filepath.Join(cacheRoot, "cold")))
	var kcTools []tool
	for _, n := range cfg.KubeconformWorkers {
		kcTools = append(kcTools, tool{fmt.Sprintf("kubeconform -n %d", n), func(_, in string, _ []string) []string {
			return []string{kc, "-strict", "-summary", "-output", "json", "-n", strconv.Itoa(n),
				"-schema-location", KubeconformSchemaLocation(absSchemas), in}
		}, ParseKubeconform, nil})
	}
	kvTool := tool{"kubectl-validate", func(crds, in string, _ []string) []string {
		a := []string{kv, "--version", "1.30", "-o", "json"}
		if crds != "" {
			a = append(a, "--local-crds", crds)
		}
		return append(a, in)
	}, ParseKubectlValidate, nil}

	measure := func(t tool, runs int, crds, in string, items int) (Row, error) {
		var ms []Measurement
		row := Row{Tool: t.name, Items: items}
		for i := 0; i < runs; i++ {
			fmt.Fprintf(log, "  %s on %s: run %d/%d\n", t.name, in, i+1, runs)
			var extra []string
			if t.before != nil {
				if extra, err = t.before(); err != nil {
					return row, err
				}
			}
			m, err := r.Run(ctx, t.argv(crds, in, extra))
			if err != nil {
				return row, err
			}
			docs, invalid, err := t.parse(m.Stdout)
			if err != nil {
				return row, fmt.Errorf("%s (exit %d, stderr: %.500s): %w", t.name, m.ExitCode, m.Stderr, err)
			}
			if i > 0 && (docs != row.Docs || invalid != row.Invalid) {
				row.Note = "runs disagree on counts"
			}
			row.Docs, row.Invalid = docs, invalid
			ms = append(ms, m)
		}
		// The last run's output stays in the work dir, to see what a
		// tool's count is made of.
		outName := strings.ReplaceAll(t.name, " ", "") + "_" + filepath.Base(in) + ".json"
		if err := os.MkdirAll(filepath.Join(cfg.WorkDir, "out"), 0o755); err == nil {
			_ = os.WriteFile(filepath.Join(cfg.WorkDir, "out", outName), ms[len(ms)-1].Stdout, 0o644)
		}
		docs, invalid, note := row.Docs, row.Invalid, row.Note
		row.Summary = Median(ms)
		row.Docs, row.Invalid, row.Note = docs, invalid, note
		return row, nil
	}

	// Custom resources, validated against every corpus CRD.
	fmt.Fprintln(log, "custom resource validation")
	in := crDirs[1]
	items := res.Workload.Docs
	all := append(append([]tool{crdlintTool}, kcTools...), kvTool)
	crTable := func(in string, items int, tools []tool) ([]Row, error) {
		var rows []Row
		for _, t := range tools {
			runs := cfg.Runs
			if t.name == kvTool.name {
				runs = cfg.KVRuns
			}
			if runs <= 0 {
				continue
			}
			row, err := measure(t, runs, crdDir, in, items)
			if err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
		return rows, nil
	}
	if res.SubsetDocs == 0 {
		if res.CR, err = crTable(in, items, all); err != nil {
			return nil, err
		}
	} else {
		if res.CR, err = crTable(in, items, all[:len(all)-1]); err != nil {
			return nil, err
		}
		if res.Subset, err = crTable(filepath.Join(cfg.WorkDir, "crs-subset"), res.SubsetDocs, all); err != nil {
			return nil, err
		}
	}

	// CRDs alone. kubeconform cannot take part offline: it validates a
	// CustomResourceDefinition against the upstream Kubernetes JSON schema,
	// which it downloads.
	fmt.Fprintln(log, "CRD linting")
	for _, t := range []tool{crdlintTool, kvTool} {
		row, err := measure(t, cfg.Runs, "", crdDir, corpus.CRDs)
		if err != nil {
			return nil, err
		}
		res.CRD = append(res.CRD, row)
	}

	// Scale: the same tools on 1×, 2× and 4× the workload.
	fmt.Fprintln(log, "scale")
	res.Scale = map[string][]Row{}
	scaleTools := []tool{crdlintTool}
	if len(kcTools) > 0 {
		scaleTools = append(scaleTools, kcTools[0])
	}
	if cfg.ScaleKV {
		scaleTools = append(scaleTools, kvTool)
	}
	if cfg.ScaleRuns > 0 {
		for _, t := range scaleTools {
			for _, k := range cfg.Scales {
				row, err := measure(t, cfg.ScaleRuns, crdDir, crDirs[k], DefaultOptions(k).Docs)
				if err != nil {
					return nil, err
				}
				res.Scale[t.name] = append(res.Scale[t.name], row)
			}
		}
	}

	// One small file: the start-up cost a pre-commit hook pays.
	small, err := filepath.Abs(filepath.Join("examples", "valid", "widget-crd.yaml"))
	if err != nil {
		return nil, err
	}
	if res.Small, err = measure(crdlintTool, cfg.SmallRuns, "", small, 1); err != nil {
		return nil, err
	}
	res.Small.Note = "examples/valid/widget-crd.yaml"

	if err := runScenarios(ctx, cfg, res, corpus, scenarioEnv{
		log: log, measure: measure, crdlintWith: crdlintWith, kcTools: kcTools, cacheRoot: cacheRoot,
		crdDir: crdDir, crsDir: crDirs[1], run: func(argv []string) (Measurement, error) {
			m, err := r.Run(ctx, argv)
			if err == nil && m.ExitCode > 1 {
				err = fmt.Errorf("%s exited %d: %.500s", argv[0], m.ExitCode, m.Stderr)
			}
			return m, err
		}}); err != nil {
		return nil, err
	}

	res.Targets = Targets(res)
	Print(out, res)
	if b, err := json.MarshalIndent(res, "", "  "); err == nil {
		_ = os.WriteFile(filepath.Join(cfg.WorkDir, "results.json"), b, 0o644)
	}
	return res, nil
}
