package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func row(tool string, wall time.Duration, rssKiB int64, items int) Row {
	return Row{Tool: tool, Items: items, Summary: Summary{Runs: 1, Wall: wall, CPU: wall, MaxRSSKiB: rssKiB}}
}

func TestTargets(t *testing.T) {
	res := &Results{
		CR: []Row{
			row("kubectl-crdlint", 1*time.Second, 100<<10, 10000),
			row("kubeconform -n 1", 4*time.Second, 200<<10, 10000),
			row("kubeconform -n 4", 2*time.Second, 300<<10, 10000), // fastest peer: 2×, not 4×
		},
		Subset: []Row{
			row("kubectl-crdlint", 100*time.Millisecond, 100<<10, 1000),
			row("kubectl-validate", 4*time.Second, 50<<10, 1000),
		},
		CRD: []Row{
			row("kubectl-crdlint", 1*time.Second, 10<<10, 123),
			row("kubectl-validate", 5*time.Second, 20<<10, 123),
		},
		SubsetDocs: 1000,
		Scales:     []int{1, 2, 4},
		Scale: map[string][]Row{"kubectl-crdlint": {
			row("kubectl-crdlint", 10*time.Second, 0, 10000),
			row("kubectl-crdlint", 20*time.Second, 0, 20000),
			row("kubectl-crdlint", 45*time.Second, 0, 40000),
		}},
		Small:       row("kubectl-crdlint", 50*time.Millisecond, 0, 1),
		MixedJudged: Counts{"CRValidations": 0, "VersionCompiles": 0, "Parses": 12},
		Scenarios: []Scenario{
			{Key: ScnWarm, Title: "Warm run", Rows: []Row{
				row("kubectl-crdlint, warm cache", 250*time.Millisecond, 100<<10, 10000),
				row("kubeconform -n 1", 4*time.Second, 200<<10, 10000),
				row("kubeconform -n 4", 2*time.Second, 300<<10, 10000), // 8× this one, 16× the other
			}},
			{Key: ScnCI, Rows: []Row{
				row("kubectl-crdlint, ci", 1*time.Second, 100<<10, 10000),
				row("kubeconform -n 4", 2*time.Second, 300<<10, 10000),
			}},
			{Key: ScnIncremental, Rows: []Row{
				row("kubectl-crdlint, incremental", 100*time.Millisecond, 100<<10, 10000),
				row("kubeconform -n 4", 2*time.Second, 300<<10, 10000),
			}},
			{Key: ScnAction, Rows: []Row{
				row("kubectl-crdlint, the Action's cache", 500*time.Millisecond, 100<<10, 5000),
				row("kubeconform -n 4", 2*time.Second, 300<<10, 5000), // 4×
			}},
			{Key: ScnLargeCRDs, Rows: []Row{
				row("kubectl-crdlint, 123 CRDs", 5*time.Second, 500<<10, 10000),
				row("kubectl-crdlint, 1000 CRDs", 5500*time.Millisecond, 700<<10, 10000),
			}},
			{Key: ScnMinors, Rows: []Row{
				tree(row("kubectl-crdlint, Kubernetes 1.37", 10*time.Second, 500<<10, 10000), 510<<10),
				tree(row("kubectl-crdlint, Kubernetes 1.33-1.37", 24*time.Second, 520<<10, 10000), 1100<<10), // 2.4×, 2.16×
				tree(row("kubectl-crdlint, 1.37, no CRD (nothing judged)", 2*time.Second, 100<<10, 10000), 100<<10),
			}},
		},
	}
	want := map[string]string{
		"Cold CR validation throughput ≥ 1× kubeconform's (its faster configuration)":                   "PASS", // 2× the fastest kubeconform
		"CR validation throughput ≥ 50× kubectl-validate's":                                             "FAIL", // 40× on the subset
		"CRD linting throughput ≥ 3× kubectl-validate's":                                                "PASS",
		"Peak RSS ≤ kubeconform's, CR workload (1×), cold":                                              "PASS",
		"Wall time at 4× ≤ 4.4× wall time at 1× (crdlint)":                                              "FAIL", // 4.5×
		"`check` on one small file < 100 ms wall":                                                       "PASS",
		"Warm run (nothing changed) ≥ 10× kubeconform's throughput":                                     "FAIL", // 8× the fastest
		"CI run (CRDs cached, every CR file changed) ≥ 2× kubeconform's":                                "PASS",
		"1% incremental run ≥ 10× kubeconform's":                                                        "PASS",
		"CI with the Action's cache (previous commit's cache, 2% of files changed) ≥ 10× kubeconform's": "FAIL", // 4×
		"Warm run of the mixed workload judges nothing again (no CR validated, no version compiled)":    "PASS",
		"Large CRD set: wall time ≤ 1.2× the same workload's with only the corpus CRDs":                 "PASS", // 1.1×
		"Large CRD set: peak RSS ≤ 1.2× the same workload's with only the corpus CRDs":                  "FAIL", // 1.4×
		"Large CRD set: peak RSS < 1 GiB":                                                               "PASS",
		"Five Kubernetes minors at once: wall time ≤ 2.5× one minor's":                                  "PASS",
		"Five Kubernetes minors at once: peak RSS of all processes ≤ 2× one minor's":                    "FAIL",
	}
	got := Targets(res)
	if len(got) != len(want) {
		t.Fatalf("%d targets, want %d: %+v", len(got), len(want), got)
	}
	for _, tg := range got {
		if w, ok := want[tg.Goal]; !ok || tg.verdict() != w {
			t.Errorf("%s: %s (%s), want %s", tg.Goal, tg.verdict(), tg.Got, w)
		}
	}

	// One custom resource judged again fails the mixed warm target.
	res.MixedJudged = Counts{"CRValidations": 1}
	for _, tg := range Targets(res) {
		if strings.HasPrefix(tg.Goal, "Warm run of the mixed workload") && tg.verdict() != "FAIL" {
			t.Errorf("%s: %s with a custom resource judged again", tg.Goal, tg.verdict())
		}
	}
	res.MixedJudged = Counts{"CRValidations": 0, "VersionCompiles": 0}

	// Without the numbers a target is "not measured", never a PASS.
	empty := Targets(&Results{})
	for _, tg := range empty {
		if tg.verdict() != "not measured" {
			t.Errorf("%s: %s on an empty run", tg.Goal, tg.verdict())
		}
	}

	var buf bytes.Buffer
	res.Targets = got
	Print(&buf, res)
	for _, s := range []string{"| kubeconform -n 4 | 1 | 2.00 s |", "FAIL |", "### Scale", "### Warm run", "| kubectl-crdlint, 1000 CRDs | 1 | 5.50 s |", "| 2.40× (24.00 s vs 10.00 s; CPU 2.40×); floor with reading shared and each minor's judging once: CPU 4.20× (judging is 80% of one run's CPU) | PASS |"} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, buf.String())
		}
	}
}

// tree sets a row's peak RSS of all its processes.
func tree(r Row, kib int64) Row {
	r.TreeRSSKiB = kib
	return r
}

// The floor a range cannot go under: what no minor changes done once,
// each minor's judging once.
func TestJudgingFloor(t *testing.T) {
	one := Row{Summary: Summary{Wall: 5 * time.Second, CPU: 10 * time.Second}}
	unjudged := Row{Summary: Summary{Wall: time.Second, CPU: 1 * time.Second}}
	// (1 + 5×9) / 10 = 4.6× one run's CPU.
	if got, want := judgingFloor(one, unjudged, 5), "floor with reading shared and each minor's judging once: CPU 4.60× (judging is 90% of one run's CPU)"; got != want {
		t.Errorf("judgingFloor = %q, want %q", got, want)
	}
	// A run that judged nothing costing more than one that judged
	// (noise) leaves no judging: the floor is one run.
	if got := judgingFloor(one, Row{Summary: Summary{CPU: 12 * time.Second}}, 5); !strings.Contains(got, "CPU 1.00×") {
		t.Errorf("judgingFloor with more unjudged CPU = %q, want 1.00×", got)
	}
	if got := judgingFloor(Row{}, unjudged, 5); got != "" {
		t.Errorf("judgingFloor without a measured run = %q, want none", got)
	}
}
