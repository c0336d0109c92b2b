package minors

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/kubeminor"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

type testResult struct {
	Case   string   `json:"case"`
	Minors []string `json:"kubernetesVersions"`
	Engine string   `json:"engine"`
	Passed bool     `json:"passed"`
	Error  string   `json:"error"`
}

func minorIndex(m string) int {
	return slices.IndexFunc(kubeminor.Supported, func(r kubeminor.Release) bool { return r.Minor == m })
}

// runSuites runs kubectl crdlint test (the main binary, which starts the
// other minors' engines) and returns its results and exit code.
func runSuites(t *testing.T, args ...string) ([]testResult, int) {
	t.Helper()
	b, code := run(t, binary(t, ""), append([]string{"test", "-o", "json", "--no-config"}, args...)...)
	var out struct {
		Results []testResult `json:"results"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("test %v: %v\n%s", args, err, b)
	}
	return out.Results, code
}

// passing lists, per case, the minors on which it passed and those on
// which it failed; each minor must be judged once.
func passing(t *testing.T, rs []testResult) (pass, fail map[string][]string) {
	t.Helper()
	pass, fail = map[string][]string{}, map[string][]string{}
	seen := map[string]bool{}
	for _, r := range rs {
		for _, m := range r.Minors {
			if seen[r.Case+"@"+m] {
				t.Errorf("%q is judged twice on %s", r.Case, m)
			}
			seen[r.Case+"@"+m] = true
			if r.Passed {
				pass[r.Case] = append(pass[r.Case], m)
			} else {
				fail[r.Case] = append(fail[r.Case], m)
			}
		}
	}
	for _, m := range []map[string][]string{pass, fail} {
		for k := range m {
			slices.SortFunc(m[k], func(a, b string) int { return minorIndex(a) - minorIndex(b) })
		}
	}
	return pass, fail
}

// suiteWant is, per case of testdata/suites/minors.crdtest.yaml, the
// minors on which its expectation holds and those on which it does not,
// as each minor's own libraries answer (docs/versions.md): a new CRD's
// isSemver is refused by 1.33, lists v3's distinct by 1.33 and 1.34, and
// a failed rule on an object reads `Invalid value: "object": msg` before
// 1.35.
var suiteWant = map[string][2]string{
	"a semver":       {"1.34-1.37", "1.33"},
	"not a semver":   {"1.34-1.37", "1.33"},
	"distinct items": {"1.35-1.37", "1.33-1.34"},
	"a failed rule on an object, as 1.35 on say it": {"1.35-1.37", "1.33-1.34"},
	"a failed rule on an object, as 1.34 says it":   {"1.34", ""},
	"a rule every minor agrees on":                  {"1.33,1.34,1.37", ""},
}

func minorsOf(t *testing.T, spec string) []string {
	if spec == "" {
		return nil
	}
	m, err := kubeminor.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSuiteMinors: a suite's cases are judged on each minor they must hold
// on by that minor's engine, so an expectation true of some minors'
// servers only passes on exactly those; the command line's
// --kubernetes-version is the minors of a suite that names none.
func TestSuiteMinors(t *testing.T) {
	rs, code := runSuites(t, "suites/minors.crdtest.yaml")
	if code != 1 {
		t.Errorf("exit %d, want 1 (cases fail on some minors)", code)
	}
	pass, fail := passing(t, rs)
	for name, w := range suiteWant {
		if got, want := pass[name], minorsOf(t, w[0]); !slices.Equal(got, want) {
			t.Errorf("%q passes on %v, want %v", name, got, want)
		}
		if got, want := fail[name], minorsOf(t, w[1]); !slices.Equal(got, want) {
			t.Errorf("%q fails on %v, want %v", name, got, want)
		}
	}
	if len(pass)+len(fail) == 0 || len(rs) == 0 {
		t.Fatal("no results")
	}
	for _, r := range rs {
		if len(r.Minors) == 1 && r.Engine != r.Minors[0] {
			t.Errorf("%q on %v says it was judged by %s", r.Case, r.Minors, r.Engine)
		}
	}

	// The same suite without its own kubernetesVersions, run with the
	// flag: the same results.
	b, err := os.ReadFile("testdata/suites/minors.crdtest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crds, err := filepath.Abs("testdata/suites/crds.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "\nkubernetesVersions: 1.33-1.37\n", "\n", 1)
	text = strings.Replace(text, "crds: [crds.yaml]", "crds: ["+crds+"]", 1)
	if text == string(b) {
		t.Fatal("the suite's kubernetesVersions line moved")
	}
	copyFile := filepath.Join(t.TempDir(), "flag.crdtest.yaml")
	if err := os.WriteFile(copyFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	frs, _ := runSuites(t, "--kubernetes-version", "1.33-1.37", copyFile)
	fpass, ffail := passing(t, frs)
	if !equalMaps(pass, fpass) || !equalMaps(fail, ffail) {
		t.Errorf("with --kubernetes-version 1.33-1.37: passes %v, fails %v; the suite's own kubernetesVersions: passes %v, fails %v", fpass, ffail, pass, fail)
	}
	// Without the flag, such a suite holds on the newest minor only; its
	// cases' own minors still count.
	drs, _ := runSuites(t, copyFile)
	dpass, dfail := passing(t, drs)
	want := map[string][]string{"a semver": {"1.37"}, "not a semver": {"1.37"}, "distinct items": {"1.37"}, "a failed rule on an object, as 1.35 on say it": {"1.37"}, "a failed rule on an object, as 1.34 says it": {"1.34"}, "a rule every minor agrees on": {"1.33", "1.34", "1.37"}}
	if !equalMaps(dpass, want) || len(dfail) != 0 {
		t.Errorf("without the flag: passes %v, fails %v; want passes %v", dpass, dfail, want)
	}
}

func equalMaps(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// speed500 runs a suite of 500 cases on the five supported minors
// (testutil.SpeedSuite: gateway-api's and Envoy Gateway's CEL tables and
// the in-repo suite) through the main binary and its engines, and checks
// that every case was judged on every minor.
func speed500(tb testing.TB, bin, suite string) {
	cmd := exec.Command(bin, "test", "-o", "json", "--no-config", suite)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		tb.Fatalf("%v: %s", err, stderr.String())
	}
	var out struct {
		Results []testResult `json:"results"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		tb.Fatal(err)
	}
	judged := 0
	for _, r := range out.Results {
		judged += len(r.Minors)
	}
	if judged != 500*len(kubeminor.Supported) {
		tb.Fatalf("%d case runs, want 500 on each of %d minors", judged, len(kubeminor.Supported))
	}
}

// TestSpeed500Minors: the bound, 500 cases on five minors in
// under 12 seconds on 2 cores (docs/testing-crds.md gives the figure
// measured), the engines' start and CRD compilation included.
func TestSpeed500Minors(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	bin := binary(t, "")
	suite := testutil.SpeedSuite(t, t.TempDir(), 500, "1.33-1.37")
	start := time.Now()
	speed500(t, bin, suite)
	if d := time.Since(start); d > 12*time.Second {
		t.Errorf("500 cases on five minors took %s", d)
	}
}

// BenchmarkRun500Minors: 500 cases on five minors, each minor's share by
// its engine.
func BenchmarkRun500Minors(b *testing.B) {
	d := os.Getenv(kubeminor.EngineDirEnv)
	if d == "" {
		b.Skipf("%s is not set: hack/minors/test.sh builds every minor's engine", kubeminor.EngineDirEnv)
	}
	b.Setenv(kubeminor.EngineDirEnv, d)
	suite := testutil.SpeedSuite(b, b.TempDir(), 500, "1.33-1.37")
	b.ResetTimer()
	for range b.N {
		speed500(b, filepath.Join(d, "kubectl-crdlint"), suite)
	}
}
