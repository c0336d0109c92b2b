package minors

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/apiservertest"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/kubeminor"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// engineDir is where the engines and the main binary (kubectl-crdlint)
// are.
func engineDir(t *testing.T) string {
	t.Helper()
	d := os.Getenv(kubeminor.EngineDirEnv)
	if d == "" {
		t.Skipf("%s is not set: hack/minors/test.sh builds every minor's engine and runs these tests", kubeminor.EngineDirEnv)
	}
	return d
}

// binary is minor's engine, or the main binary for its own minor ("").
func binary(t *testing.T, minor string) string {
	d := engineDir(t)
	if minor == "" || minor == kubeminor.Newest() {
		return filepath.Join(d, "kubectl-crdlint")
	}
	return filepath.Join(d, kubeminor.EngineName(minor))
}

type output struct {
	Findings []report.Finding `json:"findings"`
	Summary  struct {
		Errors            int                   `json:"errors"`
		Warnings          int                   `json:"warnings"`
		CustomResources   int                   `json:"customResources"`
		KubernetesVersion string                `json:"kubernetesVersion"`
		Minors            []report.MinorSummary `json:"kubernetesVersions"`
	} `json:"summary"`
	Skews    []report.Skew           `json:"kubernetesVersionSkews"`
	Upgrades []report.UpgradeSummary `json:"upgrades"`
}

// run runs bin with args in testdata and returns its output and exit code.
func run(t *testing.T, bin string, args ...string) ([]byte, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = "testdata"
	cmd.Env = append(os.Environ(), kubeminor.EngineDirEnv+"="+engineDir(t), "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code == 2 {
		t.Fatalf("%s %s: exit 2: %s", bin, strings.Join(args, " "), stderr.String())
	}
	return out, code
}

func runJSON(t *testing.T, bin string, args ...string) output {
	t.Helper()
	args = append(args, "-o", "json", "--no-config")
	if args[0] == "check" {
		args = append(args, "--no-cache") // the verdict cache is check's
	}
	b, _ := run(t, bin, args...)
	var o output
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, b)
	}
	return o
}

var (
	expectLine = regexp.MustCompile(`(?m)^# (rejected-by|errors-in|warnings-in): (\S+)$`)
	nameLine   = regexp.MustCompile(`(?m)name: ([a-z0-9.-]+)`)
)

// expectations reads the '# rejected-by:'-style comments of a testdata
// file: object name → the minors of the comment.
func expectations(t *testing.T, file string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		e, n := expectLine.FindStringSubmatch(doc), nameLine.FindStringSubmatch(doc)
		if e == nil || n == nil {
			continue
		}
		var minors []string
		if e[2] != "none" {
			if minors, err = kubeminor.Parse(e[2]); err != nil {
				t.Fatalf("%s: %s: %v", file, n[1], err)
			}
		}
		out[n[1]] = minors
	}
	if len(out) == 0 {
		t.Fatalf("%s has no expectations", file)
	}
	return out
}

// verdicts runs every minor's engine on c's file and lists, per object,
// the minors that give it a finding of c's severity whose rule starts
// with c's rule and whose message has c's message.
func verdicts(t *testing.T, c verdictCase) map[string][]string {
	t.Helper()
	file, severity, rule := c.file, c.severity, c.rule
	got := map[string][]string{}
	for _, r := range kubeminor.Supported {
		o := runJSON(t, binary(t, r.Minor), append([]string{"check", "--kubernetes-version", r.Minor, file}, c.args...)...)
		if o.Summary.KubernetesVersion != r.Minor {
			t.Errorf("%s: the summary names Kubernetes %q, want %s", r.Minor, o.Summary.KubernetesVersion, r.Minor)
		}
		seen := map[string]bool{}
		for _, f := range o.Findings {
			if f.Severity != severity || !strings.HasPrefix(f.Rule, rule) || !strings.Contains(f.Message, c.message) || f.File != file || seen[f.Object.Name] {
				continue
			}
			seen[f.Object.Name] = true
			got[f.Object.Name] = append(got[f.Object.Name], r.Minor)
		}
	}
	return got
}

type verdictCase struct {
	file     string
	args     []string
	severity report.Severity
	rule     string
	message  string
}

var verdictCases = []verdictCase{
	{file: "cel-libraries.yaml", severity: report.Error},
	{file: "custom-resources.yaml", args: []string{"--crd", "cel-libraries.yaml"}, severity: report.Error, rule: "cr-cel"},
	{file: "formats.yaml", severity: report.Warning, rule: "crd-unrecognized-format"},
	{file: "cel-costs.yaml", severity: report.Error, rule: "crd-cel", message: "estimated rule cost exceeds budget"},
}

// TestVerdictsPerMinor: each minor's engine refuses exactly the CRDs, and
// reports errors on exactly the custom resources, and warns on exactly
// the formats, and finds over the cost budget exactly the rules, that the
// minor's own libraries do.
func TestVerdictsPerMinor(t *testing.T) {
	for _, c := range verdictCases {
		got := verdicts(t, c)
		for name, w := range expectations(t, c.file) {
			if !slices.Equal(got[name], w) {
				t.Errorf("%s: %s: %s in %v, want %v", c.file, name, c.severity, got[name], w)
			}
		}
	}
}

var update = flag.Bool("update", false, "rewrite docs/versions.md's generated sections")

// TestVersionsDoc: docs/versions.md's table of CEL libraries is what the
// engines answer for a new CRD using each.
func TestVersionsDoc(t *testing.T) {
	c := verdictCases[0]
	refused := verdicts(t, c)
	b, err := os.ReadFile(filepath.Join("testdata", c.file))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	out.WriteString("| library | a rule using it | new CRDs may use it from |\n| --- | --- | --- |\n")
	rule := regexp.MustCompile(`(?m)^            - rule: "(.*)"$`)
	for _, doc := range strings.Split(string(b), "\n---\n")[1:] {
		lib := strings.TrimPrefix(strings.SplitN(doc, "\n", 2)[0], "# ")
		name := nameLine.FindStringSubmatch(doc)[1]
		from := kubeminor.Supported[0].Minor + " (every supported minor)"
		if r := refused[name]; len(r) == len(kubeminor.Supported) {
			from = "no supported minor"
		} else if len(r) > 0 {
			i := slices.IndexFunc(kubeminor.Supported, func(x kubeminor.Release) bool { return x.Minor == r[len(r)-1] })
			from = kubeminor.Supported[i+1].Minor
		}
		fmt.Fprintf(&out, "| %s | `%s` | %s |\n", lib, rule.FindStringSubmatch(doc)[1], from)
	}
	testutil.Section(t, filepath.Join("..", "..", "docs", "versions.md"), "cel", out.String(), *update)
}

// rangeEqualsSingles runs args (through the main binary) as every
// supported minor at once and as each alone, and checks that the range
// reports each finding once, naming exactly the minors whose own runs
// report it, with each minor's counts. It returns how many findings hold
// for some minors only.
func rangeEqualsSingles(t *testing.T, args []string) (partial int) {
	t.Helper()
	span := kubeminor.Supported[0].Minor + "-" + kubeminor.Newest()
	merged := runJSON(t, binary(t, ""), append(args, "--kubernetes-version", span)...)
	holds := map[string][]string{}
	for _, f := range merged.Findings {
		if f.KubernetesVersions == "" {
			t.Fatalf("a finding of a range run names no minor: %+v", f)
		}
		if _, dup := holds[key(f)]; dup {
			t.Fatalf("a finding reported twice: %+v", f)
		}
		holds[key(f)] = f.KubernetesVersions.List()
	}
	if len(merged.Summary.Minors) != len(kubeminor.Supported) {
		t.Fatalf("the range's summary has %d minors, want %d", len(merged.Summary.Minors), len(kubeminor.Supported))
	}
	single := map[string][]string{}
	for i, r := range kubeminor.Supported {
		o := runJSON(t, binary(t, ""), append(args, "--kubernetes-version", r.Minor)...)
		if o.Summary.KubernetesVersion != r.Minor {
			t.Errorf("%s: the summary names Kubernetes %q", r.Minor, o.Summary.KubernetesVersion)
		}
		for _, f := range o.Findings {
			single[key(f)] = append(single[key(f)], r.Minor)
		}
		if m := merged.Summary.Minors[i]; m.Version != r.Minor || m.Errors != o.Summary.Errors || m.Warnings != o.Summary.Warnings {
			t.Errorf("the range's summary of %s is %+v; its own run: %d errors, %d warnings", r.Minor, m, o.Summary.Errors, o.Summary.Warnings)
		}
		// upgrade's summary per CRD, through the engine protocol: the
		// newest's (here every minor's is the same).
		if !reflect.DeepEqual(merged.Upgrades, o.Upgrades) {
			t.Errorf("the range's upgrades %+v; %s's own run: %+v", merged.Upgrades, r.Minor, o.Upgrades)
		}
	}
	for k, minors := range single {
		if !slices.Equal(holds[k], minors) {
			t.Errorf("finding %s\n  range says %v, single runs %v", k, holds[k], minors)
		}
		if len(minors) < len(kubeminor.Supported) {
			partial++
		}
	}
	if len(holds) != len(single) {
		t.Errorf("%d findings in the range, %d in the single runs", len(holds), len(single))
	}
	return partial
}

// TestCommandsPerMinor: every command that takes --kubernetes-version
// judges as one older minor through its engine, and the commands that
// report findings (immutable and upgrade here; check above) merge a range
// as their single runs say; prune and fields refuse a range in one line;
// test takes it (its runner hands each minor's cases to its engine:
// TestSuiteMinors).
func TestCommandsPerMinor(t *testing.T) {
	old := kubeminor.Supported[0].Minor
	span := old + "-" + kubeminor.Newest()
	for _, args := range [][]string{
		{"immutable", "--crd", "commands/crd.yaml", "commands/old.yaml", "commands/new.yaml"},
		{"upgrade", "commands/crd.yaml", "commands/crd-v2.yaml", "commands/old.yaml"},
	} {
		t.Run(args[0], func(t *testing.T) {
			// 1.33-1.34 and 1.35-1.37 word the failed rules apart.
			if partial := rangeEqualsSingles(t, args); partial < 2 {
				t.Errorf("%d findings held by some minors only, want at least 2", partial)
			}
			text, code := run(t, binary(t, ""), append(args, "--kubernetes-version", old, "--no-config")...)
			if code != 1 || !strings.HasSuffix(string(text), ", judged by Kubernetes "+old+"\n") {
				t.Errorf("%s as %s: exit %d, want 1 and a summary naming %s:\n%s", args[0], old, code, old, text)
			}
		})
	}
	// An input error every minor gives is said once, as one minor says it
	// (not as the first minor's to fail).
	for _, spec := range []string{old, span} {
		out, stderr, code := runOut(t, "check", "--no-config", "--kubernetes-version", spec, "does-not-exist.yaml")
		if code != 2 || out != "" || !strings.HasPrefix(stderr, "error: ") || strings.Contains(stderr, "Kubernetes") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("check of a missing file as %s: exit %d, stdout %q, stderr %q; want exit 2 and one line naming no minor", spec, code, out, stderr)
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"prune", "--dry-run", "--crd", "commands/crd.yaml", "commands/prune.yaml"}, 1, "1 field would be pruned and 1 defaulted in 1 object\n"},
		{[]string{"fields", "commands/crd.yaml"}, 0, "gadgets.example.com   v1        metadata.namespace   string   implicit\n"},
		{[]string{"test", "../../../examples/testing"}, 0, " passed, 0 failed ("},
	} {
		takesRange := c.args[0] == "test"
		t.Run(c.args[0], func(t *testing.T) {
			out, stderr, code := runOut(t, append(c.args, "--no-config", "--kubernetes-version", old)...)
			if code != c.code || !strings.Contains(out, c.want) {
				t.Errorf("as %s: exit %d, want %d and %q:\n%s%s", old, code, c.code, c.want, out, stderr)
			}
			out, stderr, code = runOut(t, append(c.args, "--no-config", "--kubernetes-version", span)...)
			if takesRange {
				if code != c.code || !strings.Contains(out, c.want) {
					t.Errorf("as %s: exit %d, want %d and %q:\n%s%s", span, code, c.code, c.want, out, stderr)
				}
				return
			}
			want := "error: " + c.args[0] + " judges as one Kubernetes minor at a time: give one with --kubernetes-version (a range or a list is for check, immutable, upgrade and test)\n"
			if code != 2 || out != "" || stderr != want {
				t.Errorf("as %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", span, code, out, stderr, want)
			}
		})
	}
}

// runOut runs the main binary with args in testdata: its stdout, stderr
// and exit code, whatever it is.
func runOut(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary(t, ""), args...)
	cmd.Dir = "testdata"
	cmd.Env = append(os.Environ(), kubeminor.EngineDirEnv+"="+engineDir(t), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// key is a finding without the minors it holds for.
func key(f report.Finding) string {
	f.KubernetesVersions = ""
	b, _ := json.Marshal(f)
	return string(b)
}

// TestRangeEqualsSingles: a run of all minors reports each finding once,
// naming exactly the minors whose own runs (through the main binary,
// which hands each to its engine) report it; the counts per minor are the
// single runs'; a CRD some minors refuse says so; the exit code follows
// the worst minor.
func TestRangeEqualsSingles(t *testing.T) {
	args := []string{"check", "--crd", "cel-libraries.yaml", "."}
	span := kubeminor.Supported[0].Minor + "-" + kubeminor.Newest()
	if partial := rangeEqualsSingles(t, args); partial < 5 {
		t.Errorf("%d findings held by some minors only, want at least 5", partial)
	}

	text, code := run(t, binary(t, ""), append(args, "--kubernetes-version", span, "--no-cache", "--no-config")...)
	for _, want := range []string{
		"CustomResourceDefinition distincts.example.com: rejected by 1.33–1.34 (undeclared reference to 'distinct'), accepted by 1.35–1.37",
		"CustomResourceDefinition semvers.example.com: rejected by 1.33 (undeclared reference to 'isSemver'), accepted by 1.34–1.37",
		"CustomResourceDefinition matchfunctions.example.com: rejected by 1.37 (Forbidden: estimated rule cost exceeds budget by factor of more than 100x",
		"Kubernetes 1.33: ",
		"judged by Kubernetes 1.33–1.37\n",
		"[spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule] (1.33–1.34)\n",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the range's text output lacks %q:\n%s", want, text)
		}
	}
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	// A minor with no error at all still fails the run when another has one.
	_, code = run(t, binary(t, ""), "check", "--no-cache", "--no-config", "--kubernetes-version", "1.35,1.36", "semver-only.yaml")
	if code != 0 {
		t.Errorf("semver-only.yaml: 1.35 and 1.36 accept it: exit %d", code)
	}
	_, code = run(t, binary(t, ""), "check", "--no-cache", "--no-config", "--kubernetes-version", "1.33,1.36", "semver-only.yaml")
	if code != 1 {
		t.Errorf("semver-only.yaml: 1.33 refuses it: exit %d, want 1", code)
	}
}

// TestClusterMinor: check --live, given no minor, judges as the minor the
// cluster reports: the in-process API server reporting 1.36 is judged by
// the 1.36 engine (its summary names it), one reporting 1.34 refuses a
// stored CRD whose rule 1.34 cannot compile (as a new CRD) while 1.37
// accepts it, and one reporting 1.30 is a one-line error naming the
// supported minors.
func TestClusterMinor(t *testing.T) {
	bin := binary(t, "")
	crds, err := os.ReadFile(filepath.Join("testdata", "cel-libraries.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var distinct []byte
	for _, doc := range strings.Split(string(crds), "\n---\n") {
		if strings.Contains(doc, "name: distincts.example.com") {
			distinct = []byte(doc)
		}
	}
	live := func(t *testing.T, version string, args ...string) (output, string, int) {
		srv := apiservertest.Start(t, apiservertest.Options{Version: version})
		srv.ApplyCRD(t, distinct)
		if args[0] != "--crd-from-cluster" {
			args = append([]string{"--live"}, args...)
		}
		cmd := exec.Command(bin, append([]string{"check", "--no-config", "-o", "json"}, args...)...)
		// Read by the main binary before it knows the cluster's minor,
		// and handed whole to the engine.
		cmd.Stdin = strings.NewReader("apiVersion: example.com/v1\nkind: Distinct\nmetadata: {name: d, namespace: default}\nspec: {l: [a, b]}\n")
		cmd.Env = append(os.Environ(), kubeminor.EngineDirEnv+"="+engineDir(t), "KUBECONFIG="+srv.Kubeconfig(t, apiservertest.AdminUser))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		_ = cmd.Run()
		var o output
		if cmd.ProcessState.ExitCode() != 2 {
			if err := json.Unmarshal(stdout.Bytes(), &o); err != nil {
				t.Fatalf("%v: %s\n%s", err, stdout.Bytes(), stderr.Bytes())
			}
		}
		return o, stderr.String(), cmd.ProcessState.ExitCode()
	}
	refusals := func(o output) (n int) {
		for _, f := range o.Findings {
			if f.Severity == report.Error && strings.Contains(f.Message, "undeclared reference to 'distinct'") {
				n++
			}
		}
		return n
	}
	t.Run("1.36", func(t *testing.T) {
		o, stderr, code := live(t, "1.36.6", "crds")
		if code != 0 || o.Summary.KubernetesVersion != "1.36" || refusals(o) != 0 {
			t.Errorf("exit %d, judged by %q, %d refusals (stderr %q); want exit 0, judged by 1.36, none", code, o.Summary.KubernetesVersion, refusals(o), stderr)
		}
	})
	t.Run("1.34", func(t *testing.T) {
		o, stderr, code := live(t, "1.34.1", "crd/distincts.example.com")
		if code != 1 || o.Summary.KubernetesVersion != "1.34" || refusals(o) == 0 {
			t.Errorf("exit %d, judged by %q, %d refusals (stderr %q); want exit 1, judged by 1.34, the distinct() rule refused", code, o.Summary.KubernetesVersion, refusals(o), stderr)
		}
		// Local objects on stdin against the cluster's CRDs.
		o, stderr, code = live(t, "1.34.1", "--crd-from-cluster", "-")
		if code != 0 || o.Summary.KubernetesVersion != "1.34" || o.Summary.CustomResources != 1 {
			t.Errorf("--crd-from-cluster -: exit %d, judged by %q, %d custom resources (stderr %q); want exit 0, judged by 1.34, 1", code, o.Summary.KubernetesVersion, o.Summary.CustomResources, stderr)
		}
		// Given, the minor is judged as whatever the cluster runs.
		o, stderr, code = live(t, "1.34.1", "--kubernetes-version", "1.37", "crd/distincts.example.com")
		if code != 0 || o.Summary.KubernetesVersion != "1.37" {
			t.Errorf("--kubernetes-version 1.37: exit %d, judged by %q (stderr %q)", code, o.Summary.KubernetesVersion, stderr)
		}
	})
	t.Run("1.30", func(t *testing.T) {
		_, stderr, code := live(t, "1.30.14", "crds")
		want := "runs Kubernetes 1.30, which kubectl-crdlint does not judge as (supported minors: " + kubeminor.Names() + "); to judge as one of them, give it with --kubernetes-version\n"
		if code != 2 || !strings.HasPrefix(stderr, "error: the cluster at https://127.0.0.1:") || !strings.HasSuffix(stderr, want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("exit %d, stderr %q; want exit 2 and one line ending %q", code, stderr, want)
		}
	})
}

// TestEnginesLinkTheirRelease: each engine carries its minor's modules,
// and the module pins of its apiextensions-apiserver release for
// kube-openapi and cel-go (checked against the root go.mod and
// hack/minors by internal/kubeminor's TestModfiles).
func TestEnginesLinkTheirRelease(t *testing.T) {
	celGo := map[string]bool{}
	for _, r := range kubeminor.Supported {
		bi, err := buildinfo.ReadFile(binary(t, r.Minor))
		if err != nil {
			t.Fatal(err)
		}
		deps := map[string]string{}
		for _, d := range bi.Deps {
			deps[d.Path] = d.Version
		}
		for _, m := range []string{"k8s.io/apiextensions-apiserver", "k8s.io/apiserver", "k8s.io/apimachinery", "k8s.io/client-go", "k8s.io/component-base"} {
			if deps[m] != r.Module() {
				t.Errorf("%s's engine links %s %s, want %s", r.Minor, m, deps[m], r.Module())
			}
		}
		celGo[deps["github.com/google/cel-go"]] = true
	}
	var versions []string
	for v := range celGo {
		versions = append(versions, v)
	}
	sort.Strings(versions)
	if len(versions) < 3 {
		t.Errorf("cel-go releases linked: %v; the supported minors ship at least three", versions)
	}
}
