package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/kubeminor"
)

// ScnMinors is the scenario of a range of Kubernetes minors.
const ScnMinors = "minors"

// BuildEngines builds every older supported minor's engine next to the
// crdlint binary in toolDir, as release archives put them (docs/versions.md),
// where a run with --kubernetes-version finds them.
func BuildEngines(ctx context.Context, toolDir string, log io.Writer) error {
	abs, err := filepath.Abs(toolDir)
	if err != nil {
		return err
	}
	for _, r := range kubeminor.Supported {
		if r.Tag() == "" {
			continue
		}
		fmt.Fprintf(log, "building the Kubernetes %s engine\n", r.Minor)
		cmd := exec.CommandContext(ctx, "go", kubeminor.BuildArgs(r.Minor, filepath.Join(abs, kubeminor.EngineName(r.Minor)))...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building the Kubernetes %s engine: %w", r.Minor, err)
		}
	}
	return nil
}

// minorsScenario times the 1× workload, cold, judged as the newest minor
// (in process, the default) and as every supported minor at once (one
// engine per minor, as many at once as there are CPUs, merged), their
// runs alternating so that a neighbour's load falls on both alike.
func minorsScenario(res *Results, env scenarioEnv, runs int) error {
	newest := kubeminor.Newest()
	span := kubeminor.Supported[0].Minor + "-" + newest
	fmt.Fprintf(env.log, "scenario: Kubernetes %s vs %s\n", newest, span)
	cold := coldCache(filepath.Join(env.cacheRoot, "cold"))
	with := func(name, spec string) tool {
		return env.crdlintWith(name, func() ([]string, error) {
			a, err := cold()
			return append(a, "--kubernetes-version", spec), err
		})
	}
	one, all := with("kubectl-crdlint, Kubernetes "+newest, newest), with("kubectl-crdlint, Kubernetes "+span, span)
	// The same run without the CRDs judges nothing (every custom
	// resource lacks its CRD): what is left is what no minor changes
	// (reading, parsing, decoding, reporting), the part a range could do
	// once. The rest is each minor's own server code, which a range must
	// run once per minor: minorsTargets gives the floor that sets.
	unjudged := with("kubectl-crdlint, "+newest+", no CRD (nothing judged)", newest)
	var ones, alls, nones []Row
	for range runs {
		for _, c := range []struct {
			t    tool
			crds string
			rows *[]Row
		}{{one, env.crdDir, &ones}, {all, env.crdDir, &alls}, {unjudged, "", &nones}} {
			row, err := env.measure(c.t, 1, c.crds, env.crsDir, res.Workload.Docs)
			if err != nil {
				return err
			}
			*c.rows = append(*c.rows, row)
		}
	}
	s := Scenario{Key: ScnMinors, Title: fmt.Sprintf("Kubernetes minors: the 1× workload judged as %s and as %s", newest, span),
		About: fmt.Sprintf("Cold (an empty cache each run), the two runs alternating. %s is judged in process; %s by one engine per minor (%d processes, as many at once as there are CPUs), whose results the main binary merges. Peak RSS is the largest single process's; the note gives the peak of all the run's processes together (sampled every 10 ms).",
			newest, span, len(kubeminor.Supported))}
	for _, rows := range [][]Row{ones, alls, nones} {
		r := medianRow(rows)
		r.Note = "all processes: " + mib(r.TreeRSSKiB)
		s.Rows = append(s.Rows, r)
	}
	res.Scenarios = append(res.Scenarios, s)
	return nil
}

// medianRow joins rows of single runs of one tool into one row of their
// medians, as measure does for several runs.
func medianRow(rows []Row) Row {
	ms := make([]Measurement, len(rows))
	for i, r := range rows {
		ms[i] = Measurement{Wall: r.Wall, CPU: r.CPU, MaxRSSKiB: r.MaxRSSKiB, TreeRSSKiB: r.TreeRSSKiB, ExitCode: r.ExitCode}
	}
	out := rows[len(rows)-1]
	out.Summary = Median(ms)
	out.Docs, out.Invalid = rows[len(rows)-1].Docs, rows[len(rows)-1].Invalid
	for _, r := range rows {
		if r.Docs != out.Docs || r.Invalid != out.Invalid || r.Note != "" {
			out.Note = "runs disagree on counts"
		}
	}
	return out
}

// minorsTargets are issue 27's cost goals for a range: a five-minor run
// costs at most 2.5× one minor's wall time and 2× its memory, summed over
// every process.
func minorsTargets(res *Results) []Target {
	rows := findScenario(res, ScnMinors)
	wall := Target{Goal: "Five Kubernetes minors at once: wall time ≤ 2.5× one minor's"}
	mem := Target{Goal: "Five Kubernetes minors at once: peak RSS of all processes ≤ 2× one minor's"}
	if len(rows) < 2 {
		return []Target{wall, mem}
	}
	wall, mem = pairTargets(rows[:2], wall, mem, 2.5, 2, func(r Row) int64 { return r.TreeRSSKiB })
	if len(rows) == 3 && wall.Measured {
		if f := judgingFloor(rows[0], rows[2], len(kubeminor.Supported)); f != "" {
			wall.Got += "; " + f
		}
	}
	return []Target{wall, mem}
}

// judgingFloor says how far no design that runs each minor's own code
// over every object can bring a range's CPU: what nothing judged still
// takes (reading, parsing, reporting) done once, the judging (one run's
// CPU less that) once per minor. One run keeps the cores busy (about 1.9
// of 2 here), so the range's wall time is at least about as many times
// one run's as its CPU is: a measure of CPU, not of wall time, so that a
// neighbour's load on the machine does not move it.
func judgingFloor(one, unjudged Row, minors int) string {
	if one.CPU <= 0 {
		return ""
	}
	read := min(unjudged.CPU, one.CPU)
	floor := read + time.Duration(minors)*(one.CPU-read)
	return fmt.Sprintf("floor with reading shared and each minor's judging once: CPU %.2f× (judging is %.0f%% of one run's CPU)",
		floor.Seconds()/one.CPU.Seconds(), 100*(one.CPU-read).Seconds()/one.CPU.Seconds())
}
