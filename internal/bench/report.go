package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Target is one of the performance goals, checked on one run.
type Target struct {
	Goal string
	Got  string
	// Measured is false when the run did not produce the numbers (a table
	// switched off by a flag); Pass is then meaningless.
	Measured, Pass bool
}

func (t Target) verdict() string {
	switch {
	case !t.Measured:
		return "not measured"
	case t.Pass:
		return "PASS"
	}
	return "FAIL"
}

func findRow(rows []Row, prefix string) (Row, bool) {
	for _, r := range rows {
		if strings.HasPrefix(r.Tool, prefix) {
			return r, true
		}
	}
	return Row{}, false
}

// fastest returns the row with the highest throughput among those whose
// tool name starts with prefix (kubeconform at several -n values).
func fastest(rows []Row, prefix string) (Row, bool) {
	var best Row
	found := false
	for _, r := range rows {
		if strings.HasPrefix(r.Tool, prefix) && (!found || r.PerSecond() > best.PerSecond()) {
			best, found = r, true
		}
	}
	return best, found
}

func ratioTarget(goal string, us, them Row, okUs, okThem bool, want float64) Target {
	t := Target{Goal: goal}
	if !okUs || !okThem || them.PerSecond() == 0 {
		return t
	}
	x := us.PerSecond() / them.PerSecond()
	t.Measured, t.Pass = true, x >= want
	t.Got = fmt.Sprintf("%.2f× (%.1f vs %.1f /s, %s; per CPU-second %.2f×)", x, us.PerSecond(), them.PerSecond(), them.Tool,
		us.PerCPUSecond()/them.PerCPUSecond())
	return t
}

// Targets checks the goals against a run's tables. Every ratio is
// between two tools measured in the same run, so a busy machine slows both.
func Targets(res *Results) []Target {
	us, okUs := findRow(res.CR, "kubectl-crdlint")
	kc, okKC := fastest(res.CR, "kubeconform")
	// kubectl-validate is compared on the inputs it ran on: the subset
	// when there is one.
	kvTable := res.CR
	if len(res.Subset) > 0 {
		kvTable = res.Subset
	}
	kvUs, okKVUs := findRow(kvTable, "kubectl-crdlint")
	kv, okKV := findRow(kvTable, "kubectl-validate")
	ts := []Target{
		// The performance decision revised the first target from 3× to
		// 1× (a cold run pays the server's CRD validation and
		// compilation; see docs/performance.md).
		ratioTarget("Cold CR validation throughput ≥ 1× kubeconform's (its faster configuration)", us, kc, okUs, okKC, 1),
		ratioTarget("CR validation throughput ≥ 50× kubectl-validate's", kvUs, kv, okKVUs, okKV, 50),
	}
	cus, okCUs := findRow(res.CRD, "kubectl-crdlint")
	ckv, okCKV := findRow(res.CRD, "kubectl-validate")
	ts = append(ts, ratioTarget("CRD linting throughput ≥ 3× kubectl-validate's", cus, ckv, okCUs, okCKV, 3))

	rss := func(goal string, us Row, ok bool, peers []Row) Target {
		t := Target{Goal: goal}
		if !ok || len(peers) == 0 {
			return t
		}
		low := peers[0]
		for _, p := range peers[1:] {
			if p.MaxRSSKiB < low.MaxRSSKiB {
				low = p
			}
		}
		t.Measured, t.Pass = true, us.MaxRSSKiB <= low.MaxRSSKiB
		t.Got = fmt.Sprintf("%s vs %s (%s)", mib(us.MaxRSSKiB), mib(low.MaxRSSKiB), low.Tool)
		return t
	}
	kubeconform := func(rows []Row) []Row {
		var out []Row
		for _, r := range rows {
			if strings.HasPrefix(r.Tool, "kubeconform") {
				out = append(out, r)
			}
		}
		return out
	}
	ts = append(ts, rss("Peak RSS ≤ kubeconform's, CR workload (1×), cold", us, okUs, kubeconform(res.CR)))

	t := Target{Goal: "Wall time at 4× ≤ 4.4× wall time at 1× (crdlint)"}
	var one, four Row
	for i, k := range res.Scales {
		rows := res.Scale["kubectl-crdlint"]
		if i >= len(rows) {
			break
		}
		switch k {
		case 1:
			one = rows[i]
		case 4:
			four = rows[i]
		}
	}
	if one.Wall > 0 && four.Wall > 0 {
		x := four.Wall.Seconds() / one.Wall.Seconds()
		t.Measured, t.Pass = true, x <= 4.4
		t.Got = fmt.Sprintf("%.2f× (%s vs %s)", x, secs(four.Wall), secs(one.Wall))
	}
	ts = append(ts, t)

	t = Target{Goal: "`check` on one small file < 100 ms wall"}
	if res.Small.Wall > 0 {
		t.Measured, t.Pass = true, res.Small.Wall < 100*time.Millisecond
		t.Got = fmt.Sprintf("%.0f ms (median of %d)", float64(res.Small.Wall)/float64(time.Millisecond), res.Small.Runs)
	}
	ts = append(ts, t)
	return append(ts, scenarioTargets(res)...)
}

// scenarioTargets are the cache and CRD-set goals. kubeconform has no
// cache, so each cache scenario compares with its normal run on the same
// inputs, in its fastest configuration.
func scenarioTargets(res *Results) []Target {
	var ts []Target
	for _, g := range []struct {
		key, goal string
		want      float64
	}{
		{ScnWarm, "Warm run (nothing changed) ≥ 10× kubeconform's throughput", 10},
		{ScnCI, "CI run (CRDs cached, every CR file changed) ≥ 2× kubeconform's", 2},
		{ScnIncremental, "1% incremental run ≥ 10× kubeconform's", 10},
		{ScnAction, "CI with the Action's cache (previous commit's cache, 2% of files changed) ≥ 10× kubeconform's", 10},
	} {
		rows := findScenario(res, g.key)
		us, okUs := findRow(rows, "kubectl-crdlint")
		kc, okKC := fastest(rows, "kubeconform")
		ts = append(ts, ratioTarget(g.goal, us, kc, okUs, okKC, g.want))
	}
	// The mixed workload's warm run replays every file: none judged.
	t := Target{Goal: "Warm run of the mixed workload judges nothing again (no CR validated, no version compiled)"}
	if res.MixedJudged != nil {
		c := res.MixedJudged
		t.Measured, t.Pass = true, c["CRValidations"] == 0 && c["VersionCompiles"] == 0
		t.Got = fmt.Sprintf("%d CRs validated, %d versions compiled", c["CRValidations"], c["VersionCompiles"])
	}
	ts = append(ts, t)
	rows := findScenario(res, ScnLargeCRDs)
	wall := Target{Goal: "Large CRD set: wall time ≤ 1.2× the same workload's with only the corpus CRDs"}
	rss := Target{Goal: "Large CRD set: peak RSS ≤ 1.2× the same workload's with only the corpus CRDs"}
	abs := Target{Goal: "Large CRD set: peak RSS < 1 GiB"}
	wall, rss = pairTargets(rows, wall, rss, 1.2, 1.2, func(r Row) int64 { return r.MaxRSSKiB })
	if rss.Measured {
		large := rows[1]
		abs.Measured, abs.Pass = true, large.MaxRSSKiB < 1<<20
		abs.Got = mib(large.MaxRSSKiB)
	}
	ts = append(ts, wall, rss, abs)
	return append(ts, minorsTargets(res)...)
}

// pairTargets judges the second of two rows against the first: its wall
// time at most wallMax times the first's, and the memory rss reads of it
// at most memMax times. Without both rows (or the first's figures) the
// targets stay not measured.
func pairTargets(rows []Row, wall, mem Target, wallMax, memMax float64, rss func(Row) int64) (Target, Target) {
	if len(rows) != 2 || rows[0].Wall <= 0 || rss(rows[0]) <= 0 {
		return wall, mem
	}
	base, other := rows[0], rows[1]
	x := other.Wall.Seconds() / base.Wall.Seconds()
	wall.Measured, wall.Pass = true, x <= wallMax
	wall.Got = fmt.Sprintf("%.2f× (%s vs %s; CPU %.2f×)", x, secs(other.Wall), secs(base.Wall), other.CPU.Seconds()/base.CPU.Seconds())
	x = float64(rss(other)) / float64(rss(base))
	mem.Measured, mem.Pass = true, x <= memMax
	mem.Got = fmt.Sprintf("%.2f× (%s vs %s)", x, mib(rss(other)), mib(rss(base)))
	return wall, mem
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func mib(kib int64) string { return fmt.Sprintf("%.0f MiB", float64(kib)/1024) }

func table(w io.Writer, unit string, rows []Row) {
	fmt.Fprintf(w, "| tool | runs | wall (median) | CPU user+sys | peak RSS | %s/s | %s/CPU-s | checked | invalid found |\n", unit, unit)
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		note := ""
		if r.Note != "" {
			note = " (" + r.Note + ")"
		}
		fmt.Fprintf(w, "| %s%s | %d | %s | %s | %s | %.1f | %.1f | %d | %d |\n",
			r.Tool, note, r.Runs, secs(r.Wall), secs(r.CPU), mib(r.MaxRSSKiB), r.PerSecond(), r.PerCPUSecond(), r.Docs, r.Invalid)
	}
}

// Print writes the report as Markdown, ready for docs/performance.md.
func Print(w io.Writer, res *Results) {
	m := res.Machine
	fmt.Fprintf(w, "\n## Run of %s\n\n", res.Started.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "Machine: %d CPUs, %s, %s, %s. crdlint at %s; ", m.CPUs, m.CPUModel, m.OS, m.GoVersion, res.Commit)
	for i, p := range res.Peers {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "%s %s", p.Name, p.Version)
	}
	fmt.Fprintf(w, ". Offline: %s.\n\n", res.Isolation)
	mut := []string{}
	for _, k := range []string{MutWrongType, MutUnknownField, MutSpecScalar} {
		mut = append(mut, fmt.Sprintf("%d %s", res.Workload.Mutations[k], k))
	}
	fmt.Fprintf(w, "Workload (1×): %d custom resource documents in %d files, made from %d corpus examples, mutated: %s; validated against %d corpus CRD files (%d kubeconform schema files).\n\n",
		res.Workload.Docs, res.Workload.Files, res.Templates, strings.Join(mut, ", "), res.CRDs, res.SchemaFiles)

	fmt.Fprintln(w, "### Custom resource validation (1×)")
	fmt.Fprintln(w)
	table(w, "docs", res.CR)
	fmt.Fprintln(w)
	if len(res.Subset) > 0 {
		fmt.Fprintf(w, "### Custom resource validation, all three tools on the first %d documents (%d files)\n\n", res.SubsetDocs, res.SubsetFiles)
		if kv, ok := findRow(res.Subset, "kubectl-validate"); ok {
			fmt.Fprintf(w, "kubectl-validate checked %.1f documents a second here; the whole workload would take it about %.0f minutes, so by default it runs on this subset only (BENCH_KV_DOCS=0 runs it on everything).\n",
				kv.PerSecond(), float64(res.Workload.Docs)/kv.PerSecond()/60)
		}
		fmt.Fprintln(w)
		table(w, "docs", res.Subset)
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "### CRD linting (the whole corpus)")
	fmt.Fprintln(w)
	table(w, "CRDs", res.CRD)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "kubeconform is not in this table: offline it has no schema for CustomResourceDefinition itself (it downloads the upstream one).")
	fmt.Fprintln(w)

	if len(res.Scale) > 0 {
		fmt.Fprintln(w, "### Scale")
		fmt.Fprintln(w)
		fmt.Fprint(w, "| tool |")
		for _, k := range res.Scales {
			fmt.Fprintf(w, " %d× wall | %d× RSS |", k, k)
		}
		fmt.Fprintln(w, " largest ÷ 1× wall |")
		fmt.Fprint(w, "|---|")
		for range res.Scales {
			fmt.Fprint(w, "---:|---:|")
		}
		fmt.Fprintln(w, "---:|")
		for _, name := range []string{"kubectl-crdlint", "kubeconform", "kubectl-validate"} {
			for tool, rows := range res.Scale {
				if !strings.HasPrefix(tool, name) || len(rows) == 0 {
					continue
				}
				fmt.Fprintf(w, "| %s |", tool)
				for _, r := range rows {
					fmt.Fprintf(w, " %s | %s |", secs(r.Wall), mib(r.MaxRSSKiB))
				}
				fmt.Fprintf(w, " %.2f× |\n", rows[len(rows)-1].Wall.Seconds()/rows[0].Wall.Seconds())
			}
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "### One small file\n\n`kubectl-crdlint check %s`: median wall %.0f ms over %d runs, CPU %.0f ms, peak RSS %s.\n\n",
		res.Small.Note, float64(res.Small.Wall)/1e6, res.Small.Runs, float64(res.Small.CPU)/1e6, mib(res.Small.MaxRSSKiB))

	for _, s := range res.Scenarios {
		fmt.Fprintf(w, "### %s\n\n%s\n\n", s.Title, s.About)
		table(w, "docs", s.Rows)
		fmt.Fprintln(w)
	}

	fmt.Fprintln(w, "### Targets")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| target | measured | verdict |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, t := range res.Targets {
		fmt.Fprintf(w, "| %s | %s | %s |\n", t.Goal, t.Got, t.verdict())
	}
	fmt.Fprintln(w)
}
