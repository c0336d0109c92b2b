package minors

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

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
		KubernetesVersion string                `json:"kubernetesVersion"`
		Minors            []report.MinorSummary `json:"kubernetesVersions"`
	} `json:"summary"`
	Skews []report.Skew `json:"kubernetesVersionSkews"`
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
	b, _ := run(t, bin, append(args, "-o", "json", "--no-cache", "--no-config")...)
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

// verdicts runs every minor's engine on file and lists, per object, the
// minors that give it a finding of severity whose rule starts with rule.
func verdicts(t *testing.T, file string, args []string, severity report.Severity, rule string) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for _, r := range kubeminor.Supported {
		o := runJSON(t, binary(t, r.Minor), append([]string{"check", "--kubernetes-version", r.Minor, file}, args...)...)
		if o.Summary.KubernetesVersion != r.Minor {
			t.Errorf("%s: the summary names Kubernetes %q, want %s", r.Minor, o.Summary.KubernetesVersion, r.Minor)
		}
		seen := map[string]bool{}
		for _, f := range o.Findings {
			if f.Severity != severity || !strings.HasPrefix(f.Rule, rule) || f.File != file || seen[f.Object.Name] {
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
}

var verdictCases = []verdictCase{
	{file: "cel-libraries.yaml", severity: report.Error},
	{file: "custom-resources.yaml", args: []string{"--crd", "cel-libraries.yaml"}, severity: report.Error, rule: "cr-cel"},
	{file: "formats.yaml", severity: report.Warning, rule: "crd-unrecognized-format"},
}

// TestVerdictsPerMinor: each minor's engine refuses exactly the CRDs, and
// reports errors on exactly the custom resources, and warns on exactly
// the formats, that the minor's own libraries do.
func TestVerdictsPerMinor(t *testing.T) {
	for _, c := range verdictCases {
		got := verdicts(t, c.file, c.args, c.severity, c.rule)
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
	refused := verdicts(t, c.file, c.args, c.severity, c.rule)
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
	single := map[string][]string{}
	for i, r := range kubeminor.Supported {
		o := runJSON(t, binary(t, ""), append(args, "--kubernetes-version", r.Minor)...)
		for _, f := range o.Findings {
			single[key(f)] = append(single[key(f)], r.Minor)
		}
		if m := merged.Summary.Minors[i]; m.Version != r.Minor || m.Errors != o.Summary.Errors || m.Warnings != o.Summary.Warnings {
			t.Errorf("the range's summary of %s is %+v; its own run: %d errors, %d warnings", r.Minor, m, o.Summary.Errors, o.Summary.Warnings)
		}
	}
	var partial int
	for k, minors := range single {
		if !slices.Equal(holds[k], minors) {
			t.Errorf("finding %s\n  range says %v, single runs %v", k, holds[k], minors)
		}
		if len(minors) < len(kubeminor.Supported) {
			partial++
		}
	}
	if len(holds) != len(single) || partial < 5 {
		t.Errorf("%d findings in the range, %d in the single runs, %d held by some minors only", len(holds), len(single), partial)
	}

	text, code := run(t, binary(t, ""), append(args, "--kubernetes-version", span, "--no-cache", "--no-config")...)
	for _, want := range []string{
		"CustomResourceDefinition distincts.example.com: rejected by 1.33–1.34 (undeclared reference to 'distinct'), accepted by 1.35–1.37",
		"CustomResourceDefinition semvers.example.com: rejected by 1.33 (undeclared reference to 'isSemver'), accepted by 1.34–1.37",
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
