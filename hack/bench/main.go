// Command bench is `make bench`: kubectl-crdlint side by side with
// kubeconform and kubectl-validate on the same generated workload, offline.
// Run it from the repository root:
//
//	go run ./hack/bench [flags]
//
// Every flag has an environment variable (BENCH_RUNS, ...) so that make
// can pass settings through. The report is Markdown on stdout; progress
// goes to stderr; the numbers are also written to <work>/results.json.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/bench"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envStr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q: want a comma-separated list of positive integers", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func main() {
	var cfg bench.Config
	var scales, workers string
	flag.StringVar(&cfg.Corpus, "corpus", envStr("BENCH_CORPUS", "../shared/corpus"), "the corpus of CRDs (crds/) and custom resources (crs/) [BENCH_CORPUS]")
	flag.StringVar(&cfg.ToolDir, "tools", envStr("BENCH_TOOLS", ".tools"), "directory for the built and installed tools [BENCH_TOOLS]")
	flag.StringVar(&cfg.WorkDir, "work", envStr("BENCH_WORK", ".bench"), "directory for workloads and outputs [BENCH_WORK]")
	flag.IntVar(&cfg.Runs, "runs", envInt("BENCH_RUNS", 3), "runs per tool for the CR and CRD tables [BENCH_RUNS]")
	flag.IntVar(&cfg.KVRuns, "kv-runs", envInt("BENCH_KV_RUNS", 1), "kubectl-validate runs on the CR workload, minutes each; 0 skips it [BENCH_KV_RUNS]")
	flag.IntVar(&cfg.KVDocs, "kv-docs", envInt("BENCH_KV_DOCS", 1000), "documents of the 1× workload that kubectl-validate (and, for comparison, the others) validate; 0 for all [BENCH_KV_DOCS]")
	flag.StringVar(&scales, "scales", envStr("BENCH_SCALES", "1,2,4"), "workload multiples for the scale table [BENCH_SCALES]")
	flag.IntVar(&cfg.ScaleRuns, "scale-runs", envInt("BENCH_SCALE_RUNS", 1), "runs per tool and scale; 0 skips the scale table [BENCH_SCALE_RUNS]")
	flag.BoolVar(&cfg.ScaleKV, "scale-kv", os.Getenv("BENCH_SCALE_KV") == "1", "add kubectl-validate to the scale table (very slow) [BENCH_SCALE_KV=1]")
	flag.StringVar(&workers, "kubeconform-n", envStr("BENCH_KUBECONFORM_N", "1,4"), "kubeconform -n values, one row each [BENCH_KUBECONFORM_N]")
	flag.IntVar(&cfg.SmallRuns, "small-runs", envInt("BENCH_SMALL_RUNS", 11), "runs of crdlint on one small file [BENCH_SMALL_RUNS]")
	flag.IntVar(&cfg.ScenarioRuns, "scenario-runs", envInt("BENCH_SCENARIO_RUNS", 3), "measured runs per tool of the warm, CI, 1% incremental, mixed, Action's cache and large CRD set scenarios; 0 skips them [BENCH_SCENARIO_RUNS]")
	flag.IntVar(&cfg.LargeCRDs, "large-crds", envInt("BENCH_LARGE_CRDS", 1000), "CRDs of the large CRD set scenario; 0 skips it [BENCH_LARGE_CRDS]")
	flag.IntVar(&cfg.MixedFiles, "mixed-files", envInt("BENCH_MIXED_FILES", 200), "files of the mixed workload (mixed and Action's cache scenarios); 0 skips them [BENCH_MIXED_FILES]")
	flag.IntVar(&cfg.MinorRuns, "minor-runs", envInt("BENCH_MINOR_RUNS", 3), "measured runs of each side of the Kubernetes minors scenario (the newest minor vs all five, alternating); 0 skips it and the engines' builds [BENCH_MINOR_RUNS]")
	flag.Parse()
	var err error
	if cfg.Scales, err = ints(scales); err == nil {
		cfg.KubeconformWorkers, err = ints(workers)
	}
	if err != nil || flag.NArg() > 0 || cfg.Runs <= 0 || cfg.SmallRuns <= 0 {
		fmt.Fprintln(os.Stderr, "bench: bad flags (see -h)", err)
		os.Exit(2)
	}
	if _, err := os.Stat("go.mod"); err != nil {
		fmt.Fprintln(os.Stderr, "bench: run from the repository root (go run ./hack/bench)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := bench.Run(ctx, cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
