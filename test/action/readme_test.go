package action

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// readmeSection returns the README's section with the given heading, up to
// the next second-level heading.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README.md has no %q section", heading)
	}
	s = s[i+1:]
	if j := strings.Index(s[len(heading):], "\n## "); j >= 0 {
		s = s[:len(heading)+j+1]
	}
	return s
}

// codeBlocks returns the fenced blocks of the given language in s.
func codeBlocks(s, lang string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// workflow is the part of a workflow file the README's examples use.
type workflow struct {
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		Steps []struct {
			ID   string            `yaml:"id"`
			If   string            `yaml:"if"`
			Uses string            `yaml:"uses"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestREADMEWorkflows keeps the README's workflows true: they are the
// files under testdata/workflows, byte for byte; they give the action only
// inputs it has; the SARIF one uploads the report the action names, even
// after findings failed the step; and the action's step of each, run on the
// fixture repository laid out as they assume, does what the README says.
func TestREADMEWorkflows(t *testing.T) {
	section := readmeSection(t, "## GitHub Action")
	blocks := codeBlocks(section, "yaml")
	files := []string{"annotations.yaml", "sarif.yaml"}
	if len(blocks) != len(files) {
		t.Fatalf("README's GitHub Action section has %d yaml blocks, want %d (%s)", len(blocks), len(files), files)
	}
	a := readAction(t)
	c := builtCache(t)
	for i, name := range files {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "workflows", name))
			if err != nil {
				t.Fatal(err)
			}
			if blocks[i] != string(want) {
				t.Fatalf("README's yaml block %d differs from testdata/workflows/%s; paste this:\n%s", i+1, name, want)
			}
			var wf workflow
			if err := yaml.Unmarshal(want, &wf); err != nil {
				t.Fatal(err)
			}
			job, ok := wf.Jobs["crdlint"]
			if !ok {
				t.Fatalf("no job crdlint")
			}
			at := -1
			for j, s := range job.Steps {
				if strings.HasPrefix(s.Uses, "kubectl-crdlint/kubectl-crdlint@") {
					at = j
				}
			}
			if at < 1 || !strings.HasPrefix(job.Steps[0].Uses, "actions/checkout@") {
				t.Fatalf("want actions/checkout, then kubectl-crdlint/kubectl-crdlint@<ref>")
			}
			step := job.Steps[at]
			if !regexp.MustCompile(`@v\d+\.\d+\.\d+$`).MatchString(step.Uses) {
				t.Errorf("uses %s: pin a release tag", step.Uses)
			}
			for k := range step.With {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("with: %s is not an input of action.yml", k)
				}
			}

			env := newEnv(t, "errors", c)
			run := runAction(t, a, env, step.With)
			if run.code != 1 {
				t.Fatalf("on the fixture repository: exit %d at %q, want 1 (its planted findings)\n%s%s", run.code, run.failed, run.stdout, run.stderr)
			}
			if step.With["output"] != "sarif" {
				if got := annotations(t, run.stdout); len(got) == 0 || !strings.Contains(got[0], "config/samples/") {
					t.Errorf("annotations %q: want the findings in config/samples", got)
				}
				return
			}

			if wf.Permissions["security-events"] != "write" {
				t.Errorf("permissions: upload-sarif needs security-events: write")
			}
			if at+1 >= len(job.Steps) || !strings.HasPrefix(job.Steps[at+1].Uses, "github/codeql-action/upload-sarif@") {
				t.Fatalf("the step after the action is not github/codeql-action/upload-sarif")
			}
			upload := job.Steps[at+1]
			// Without a status function the upload is skipped when the
			// findings fail the action's step: exactly when it matters.
			if !regexp.MustCompile(`always\(\)|cancelled\(\)|failure\(\)`).MatchString(upload.If) {
				t.Errorf("upload-sarif if: %q runs only after success", upload.If)
			}
			ctx := &exprContext{steps: map[string]map[string]string{step.ID: {"sarif-file": run.outputs["sarif-file"]}}}
			sarif, err := ctx.expand(upload.With["sarif_file"])
			if err != nil {
				t.Fatalf("sarif_file: %v", err)
			}
			// upload-sarif reads the file from the repository root.
			if got := readSARIF(t, env.workspace, sarif); len(got) == 0 {
				t.Errorf("the report %s that upload-sarif reads has no results", sarif)
			}
		})
	}
}

// TestREADMEInputs keeps the README's input table and outputs in step with
// action.yml.
func TestREADMEInputs(t *testing.T) {
	section := readmeSection(t, "## GitHub Action")
	a := readAction(t)
	rows := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|( `([^`]*)`)? \\|").FindAllStringSubmatch(section, -1)
	var listed []string
	for _, r := range rows {
		name, def := r[1], r[3]
		listed = append(listed, name)
		in, ok := a.Inputs[name]
		if !ok {
			t.Errorf("README lists input %s, which action.yml does not have", name)
			continue
		}
		if want := deref(in.Default); def != want {
			t.Errorf("README: input %s defaults to %q, action.yml to %q", name, def, want)
		}
	}
	for _, name := range sortedKeys(a.Inputs) {
		if !slices.Contains(listed, name) {
			t.Errorf("README's input table lacks %s", name)
		}
	}
	for _, name := range sortedKeys(a.Outputs) {
		if !strings.Contains(section, "`"+name+"`") {
			t.Errorf("README does not mention output %s", name)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestREADMEContainer checks the README's docker lines against the image
// definition (name, tag, mount point), and runs their kubectl-crdlint
// commands with the binary the action builds, in the fixture repository as
// /work. docker itself cannot run here.
func TestREADMEContainer(t *testing.T) {
	section := readmeSection(t, "## Container image")
	blocks := codeBlocks(section, "sh")
	if len(blocks) != 1 {
		t.Fatalf("README's Container image section has %d sh blocks, want 1", len(blocks))
	}
	var workdir string
	for _, in := range readDockerfile(t, filepath.Join(repoRoot, "Dockerfile")) {
		if in.cmd == "WORKDIR" {
			workdir = in.args
		}
	}
	line := regexp.MustCompile(`^docker run --rm -v "\$PWD:([^"]+)" ghcr\.io/kubectl-crdlint/kubectl-crdlint(:\d+\.\d+\.\d+)? (.*)$`)
	c := builtCache(t)
	bin := shared.run.outputs["binary"]
	for _, l := range strings.Split(strings.TrimSpace(blocks[0]), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("%s: not `docker run --rm -v \"$PWD:/work\" ghcr.io/kubectl-crdlint/kubectl-crdlint[:X.Y.Z] ARGS`", l)
			continue
		}
		if m[1] != workdir {
			t.Errorf("%s: mounts at %s, but the image works in %s", l, m[1], workdir)
		}
		// The arguments are plain words (no quotes) in these lines.
		env := newEnv(t, "errors", c)
		cmd := exec.Command(bin, strings.Fields(m[3])...)
		cmd.Dir = env.workspace
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out.String(), "config/samples/widgets.yaml:17:3: error cr-schema") {
			t.Errorf("kubectl-crdlint %s in the fixture repository: %v, want exit 1 with its planted error:\n%s", m[3], err, &out)
		}
	}
}
