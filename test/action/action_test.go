package action

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// testRef is the ref the action is "used" at: the build stamps it.
const testRef = "v9.9.9"

// shared is the first run of the action: it builds kubectl-crdlint (the
// only build of these tests) and leaves it in the fake cache.
var shared struct {
	once  sync.Once
	dir   string
	run   *actionRun
	cache *fakeCache
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// builtCache returns a copy of the fake cache holding the built binary,
// building it on first use.
func builtCache(t *testing.T) *fakeCache {
	t.Helper()
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "crdlint-action-")
		if err != nil {
			t.Fatal(err)
		}
		shared.dir = dir
		c := newFakeCache(filepath.Join(dir, "cache"))
		env := newEnvIn(t, dir, "clean", c)
		shared.run = runAction(t, readAction(t), env, nil)
		shared.cache = c
	})
	if shared.cache == nil || shared.run.code != 0 || shared.cache.entries[shared.run.step(t, "prepare").outputs["key"]] == "" {
		t.Fatalf("the first run of the action (the build) failed; see the test that ran it first")
	}
	return shared.cache.clone(t.TempDir())
}

// newEnv makes a workspace holding a copy of testdata/repos/<repo>.
func newEnv(t *testing.T, repo string, c *fakeCache) *runnerEnv {
	t.Helper()
	return newEnvIn(t, t.TempDir(), repo, c)
}

func newEnvIn(t *testing.T, dir, repo string, c *fakeCache) *runnerEnv {
	t.Helper()
	src := filepath.Join("testdata", "repos", repo)
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("fixture repository: %v", err)
	}
	env := &runnerEnv{
		workspace: filepath.Join(dir, "workspace"),
		temp:      filepath.Join(dir, "runner-temp"),
		ref:       testRef,
		cache:     c,
	}
	testutil.CopyTree(t, src, env.workspace)
	if err := os.MkdirAll(env.temp, 0o755); err != nil {
		t.Fatal(err)
	}
	return env
}

// TestActionInstall follows the binary through the cache: the first run
// builds it from the action's source with setup-go's Go and saves it; a
// second run restores it and touches neither Go nor the cache.
func TestActionInstall(t *testing.T) {
	c := builtCache(t)
	first := shared.run

	setupGo := first.step(t, "actions/setup-go@")
	if setupGo.skipped {
		t.Fatalf("first run: setup-go did not run; it must on a cache miss")
	}
	if want := filepath.Join(mustAbs(t, repoRoot), "go.mod"); setupGo.with["go-version-file"] != want {
		t.Errorf("setup-go go-version-file = %q, want the action's own %q", setupGo.with["go-version-file"], want)
	}
	if got := first.step(t, "install").outputs["built"]; got != "true" {
		t.Errorf("first run: install built = %q, want true", got)
	}
	save := first.step(t, "actions/cache/save@")
	if save.skipped {
		t.Fatalf("first run: the binary was not saved to the cache")
	}
	prepare := first.step(t, "prepare").outputs
	if save.with["key"] != prepare["key"] || save.with["path"] != prepare["dir"] {
		t.Errorf("saved %q under %q; want prepare's dir %q and key %q", save.with["path"], save.with["key"], prepare["dir"], prepare["key"])
	}
	for _, part := range []string{runnerOS(), runnerArch(), testRef} {
		if !strings.Contains(prepare["key"], part) {
			t.Errorf("cache key %q does not contain %q", prepare["key"], part)
		}
	}
	// What every composite output reads was written by its step.
	for name, v := range first.outputs {
		if v == "" && name != "sarif-file" {
			t.Errorf("output %s is empty after a clean run", name)
		}
	}

	bin := first.outputs["binary"]
	if len(first.path) != 1 || first.path[0] != filepath.Dir(bin) {
		t.Errorf("GITHUB_PATH additions %q, want the binary's directory %q", first.path, filepath.Dir(bin))
	}
	out, err := exec.Command(bin, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	var v struct{ Version string }
	if err := json.Unmarshal(out, &v); err != nil || v.Version != testRef {
		t.Errorf("version %s (%v): want the action's ref %s stamped by the build", out, err, testRef)
	}
	// -s -w and CGO_ENABLED=0, as the release builds.
	if out, err := exec.Command("go", "version", "-m", bin).Output(); err != nil {
		t.Errorf("go version -m: %v", err)
	} else {
		for _, want := range []string{"CGO_ENABLED=0", "-trimpath=true"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("build settings lack %s:\n%s", want, out)
			}
		}
	}

	second := runAction(t, readAction(t), newEnv(t, "clean", c), nil)
	if second.code != 0 {
		t.Fatalf("second run failed at %s with exit %d", second.failed, second.code)
	}
	if s := second.step(t, "cache"); s.outputs["cache-hit"] != "true" {
		t.Errorf("second run: cache-hit = %q, want true", s.outputs["cache-hit"])
	}
	for _, label := range []string{"actions/setup-go@", "actions/cache/save@"} {
		if s := second.step(t, label); !s.skipped {
			t.Errorf("second run: %s ran on a cache hit", label)
		}
	}
	if got := second.step(t, "install").outputs["built"]; got != "false" {
		t.Errorf("second run: built = %q, want false", got)
	}

	// cache: false neither restores nor saves, and builds.
	third := runAction(t, readAction(t), newEnv(t, "clean", c), map[string]string{"cache": "false"})
	if third.code != 0 || third.step(t, "install").outputs["built"] != "true" {
		t.Errorf("cache: false: exit %d, built %q; want a build", third.code, third.step(t, "install").outputs["built"])
	}
	for _, s := range third.steps {
		if strings.Contains(s.label, "actions/cache/") && !s.skipped || s.label == "verdicts" && !s.skipped {
			t.Errorf("cache: false: %s ran", s.label)
		}
	}
	if !third.step(t, "cache").skipped {
		t.Errorf("cache: false: the binary's cache was restored")
	}
}

// TestActionPrebuilt covers CRDLINT_ACTION_BINARY: the given file is
// installed, nothing is built, and it is never saved to the cache.
func TestActionPrebuilt(t *testing.T) {
	builtCache(t) // the binary to install
	env := newEnv(t, "clean", newFakeCache(t.TempDir()))
	env.env = map[string]string{"CRDLINT_ACTION_BINARY": shared.run.outputs["binary"]}
	run := runAction(t, readAction(t), env, nil)
	if run.code != 0 {
		t.Fatalf("exit %d at %s", run.code, run.failed)
	}
	if got := run.step(t, "install").outputs["built"]; got != "false" {
		t.Errorf("built = %q, want false", got)
	}
	if !run.step(t, "actions/cache/save@").skipped || env.cache.entries[run.step(t, "prepare").outputs["key"]] != "" {
		t.Errorf("a prebuilt binary was saved to the cache")
	}

	env.env["CRDLINT_ACTION_BINARY"] = filepath.Join(t.TempDir(), "missing")
	run = runAction(t, readAction(t), env, nil)
	if run.code != 2 || run.failed != "install" || !strings.Contains(run.stdout, "is not a file") {
		t.Errorf("missing prebuilt binary: exit %d at %q, stdout %q; want exit 2 at install saying so", run.code, run.failed, run.stdout)
	}
}

// annotationPattern is a workflow command as report.RenderGitHub writes it.
var annotationPattern = regexp.MustCompile(`^::(error|warning|notice) file=([^,]*),line=(\d+),col=(\d+),title=([^:]*)::(.*)$`)

// annotations returns "level file:line rule" for each finding annotation
// in the log.
func annotations(t *testing.T, log string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if !strings.HasPrefix(line, "::") || strings.HasPrefix(line, "::error title=") {
			continue
		}
		m := annotationPattern.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("malformed annotation: %s", line)
			continue
		}
		out = append(out, fmt.Sprintf("%s %s:%s %s", m[1], m[2], m[3], m[5]))
	}
	return out
}

// TestActionAnnotations runs the action on the fixture repositories with
// output annotations, checking the findings it annotates (file relative to
// the repository root, line, rule), its outputs, the job summary and the
// exit code that decides the job.
func TestActionAnnotations(t *testing.T) {
	c := builtCache(t)
	const (
		odd      = "error config/samples/widgets.yaml:17 cr-schema"
		oddWarn  = "warning config/samples/widgets.yaml:18 unknown-field"
		crowded  = "error config/more samples/gadget.yaml:10 cr-schema"
		noCRDOne = "error config/samples/widgets.yaml:4 cr-no-crd"
		noCRDTwo = "error config/samples/widgets.yaml:12 cr-no-crd"
		// Under kubectl's default field validation, the repository's
		// .crdlint.yaml left out: the misspelt field refuses odd alone.
		oddStrict = "error config/samples/widgets.yaml:18 unknown-field"
	)
	tests := []struct {
		name     string
		repo     string
		with     map[string]string
		wantCode int
		want     []string // annotations, in order
		counts   string   // "errors warnings" outputs
		log      string   // in the log
	}{
		{name: "clean repository, defaults", repo: "clean", counts: "0 0"},
		{name: "whole repository", repo: "errors", wantCode: 1, want: []string{crowded, odd, oddWarn}, counts: "2 1"},
		{
			name:     "paths and crds in a working directory name files from the root",
			repo:     "errors",
			with:     map[string]string{"working-directory": "config", "paths": "samples", "crds": "crd"},
			wantCode: 1, want: []string{odd, oddWarn}, counts: "1 1",
		},
		{
			name:     "one path a line keeps spaces",
			repo:     "errors",
			with:     map[string]string{"paths": "config/samples\n  config/more samples  \n\n", "crds": "config/crd/bases/example.com_widgets.yaml"},
			wantCode: 1, want: []string{crowded, odd, oddWarn}, counts: "2 1",
		},
		{
			name:     "blank-separated paths on one line",
			repo:     "errors",
			with:     map[string]string{"paths": "config/samples  config/crd"},
			wantCode: 1, want: []string{odd, oddWarn}, counts: "1 1",
		},
		{
			name:     "a custom resource without its CRD is an error",
			repo:     "errors",
			with:     map[string]string{"paths": "config/samples"},
			wantCode: 1, want: []string{noCRDOne, noCRDTwo}, counts: "2 0",
		},
		{
			name:     "fail-on warning with a quoted flag in args",
			repo:     "errors",
			with:     map[string]string{"fail-on": "warning", "args": `--disable "cr-schema"`},
			wantCode: 1, want: []string{oddWarn}, counts: "0 1",
		},
		{
			name:     "warnings alone pass at fail-on error",
			repo:     "errors",
			with:     map[string]string{"args": "--disable cr-schema"},
			wantCode: 0, want: []string{oddWarn}, counts: "0 1",
		},
		{
			name:     "args win over inputs",
			repo:     "errors",
			with:     map[string]string{"args": "--disable=cr-schema\n--fail-on=warning"},
			wantCode: 1, want: []string{oddWarn}, counts: "0 1",
		},
		{
			name:     "the default field validation is kubectl apply's: strict",
			repo:     "errors",
			with:     map[string]string{"args": "--no-config"},
			wantCode: 1, want: []string{crowded, oddStrict}, counts: "2 0",
		},
		{
			name:     "fail-on none annotates and passes",
			repo:     "errors",
			with:     map[string]string{"fail-on": "none"},
			wantCode: 0, want: []string{crowded, odd, oddWarn}, counts: "2 1",
		},
		{
			name:     "a missing path is an error",
			repo:     "clean",
			with:     map[string]string{"paths": "nope/"},
			wantCode: 2, log: "nope",
		},
		{
			name:     "a bad flag in args is an error",
			repo:     "clean",
			with:     map[string]string{"args": "--no-such-flag"},
			wantCode: 2, log: "no-such-flag",
		},
		{
			name:     "a bad fail-on is an error",
			repo:     "clean",
			with:     map[string]string{"fail-on": "sometimes"},
			wantCode: 2, log: "sometimes",
		},
		{
			name:     "output must be annotations or sarif",
			repo:     "clean",
			with:     map[string]string{"output": "json"},
			wantCode: 2, log: `output must be annotations or sarif, not "json"`,
		},
		{
			name:     "args may not choose the format",
			repo:     "clean",
			with:     map[string]string{"args": "-o json"},
			wantCode: 2, log: "the output input chooses the format",
		},
		{
			name:     "an open quote in args",
			repo:     "clean",
			with:     map[string]string{"args": `--disable "cr-schema`},
			wantCode: 2, log: "unterminated quote",
		},
		{
			// The message quotes the input: escaped, a newline in it
			// cannot make a workflow command (here an annotation).
			name:     "an input quoted in a message cannot inject a command",
			repo:     "clean",
			with:     map[string]string{"args": "\"x\n::warning file=f,line=1,col=1,title=t::injected"},
			wantCode: 2, log: "unterminated quote",
		},
		{
			name:     "quotes in a one-line list",
			repo:     "errors",
			with:     map[string]string{"paths": `"config/more samples"`},
			wantCode: 2, log: "put a path with spaces on a line of its own",
		},
		{
			name:     "a missing working directory",
			repo:     "clean",
			with:     map[string]string{"working-directory": "nope"},
			wantCode: 2, log: `working-directory "nope" is not a directory`,
		},
	}
	a := readAction(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := runAction(t, a, newEnv(t, tt.repo, c), tt.with)
			if run.code != tt.wantCode {
				t.Fatalf("exit %d at step %q, want %d\nstdout:\n%s\nstderr:\n%s", run.code, run.failed, tt.wantCode, run.stdout, run.stderr)
			}
			if tt.wantCode != 0 && run.failed != "run" {
				t.Errorf("failed at step %q, want the run step", run.failed)
			}
			if got := run.outputs["exit-code"]; got != fmt.Sprint(tt.wantCode) {
				t.Errorf("output exit-code = %q, want %d", got, tt.wantCode)
			}
			if got := annotations(t, run.stdout); !slices.Equal(got, tt.want) {
				t.Errorf("annotations:\n got %q\nwant %q", got, tt.want)
			}
			if tt.wantCode < 2 {
				if got := run.outputs["errors"] + " " + run.outputs["warnings"]; got != tt.counts {
					t.Errorf("outputs errors, warnings = %q, want %q", got, tt.counts)
				}
				if !strings.Contains(run.summary, "| "+strings.ReplaceAll(tt.counts, " ", " | ")+" |") {
					t.Errorf("job summary lacks the counts %s:\n%s", tt.counts, run.summary)
				}
				// Each finding is a row of the summary's table too.
				for _, w := range tt.want {
					level, rest, _ := strings.Cut(w, " ")
					i := strings.LastIndex(rest, " ") // the file may have spaces
					where, rule := rest[:i], rest[i+1:]
					if row := fmt.Sprintf("| %s | `%s` | %s |", level, where, rule); !strings.Contains(run.summary, row) {
						t.Errorf("job summary lacks the row %s:\n%s", row, run.summary)
					}
				}
			} else {
				// One annotation says why, and the summary shows it.
				if !strings.Contains(run.stdout, "::error title=kubectl-crdlint") || !strings.Contains(run.stdout, tt.log) {
					t.Errorf("stdout lacks an ::error annotation with %q:\n%s", tt.log, run.stdout)
				}
				if !strings.Contains(run.summary, tt.log) {
					t.Errorf("job summary lacks %q:\n%s", tt.log, run.summary)
				}
			}
			if tt.log != "" && !strings.Contains(run.stdout+run.stderr, tt.log) {
				t.Errorf("log lacks %q", tt.log)
			}
			if run.outputs["sarif-file"] != "" {
				t.Errorf("output sarif-file = %q with output annotations", run.outputs["sarif-file"])
			}
		})
	}
}

// sarifLog is what code scanning reads of a SARIF 2.1.0 log.
type sarifLog struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID string `json:"id"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex *int   `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine   int `json:"startLine"`
						StartColumn int `json:"startColumn"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

// readSARIF parses the file and checks the shape code scanning requires;
// it returns "level uri:line rule" per result.
func readSARIF(t *testing.T, workspace, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(workspace, name))
	if err != nil {
		t.Fatalf("SARIF file: %v", err)
	}
	var log sarifLog
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatalf("SARIF file is not JSON: %v", err)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") {
		t.Errorf("version %q, $schema %q: want SARIF 2.1.0", log.Version, log.Schema)
	}
	if len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "kubectl-crdlint" {
		t.Fatalf("want one run by kubectl-crdlint, got %d runs", len(log.Runs))
	}
	run := log.Runs[0]
	var out []string
	for i, r := range run.Results {
		if r.RuleIndex == nil || *r.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[*r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %d: ruleIndex does not point at rule %s", i, r.RuleID)
		}
		if !slices.Contains([]string{"error", "warning", "note", "none"}, r.Level) || r.Message.Text == "" {
			t.Errorf("result %d: level %q, message %q", i, r.Level, r.Message.Text)
		}
		if len(r.Locations) != 1 {
			t.Errorf("result %d: %d locations, want 1", i, len(r.Locations))
			continue
		}
		loc := r.Locations[0].PhysicalLocation
		if loc.Region.StartLine < 1 || loc.Region.StartColumn < 1 {
			t.Errorf("result %d: region %+v: lines and columns start at 1", i, loc.Region)
		}
		// Code scanning resolves a relative URI against the repository
		// root: it must name the file there.
		uri := loc.ArtifactLocation.URI
		path := strings.ReplaceAll(uri, "%20", " ")
		if _, err := os.Stat(filepath.Join(workspace, path)); err != nil {
			t.Errorf("result %d: uri %q is not a file of the repository: %v", i, uri, err)
		}
		out = append(out, fmt.Sprintf("%s %s:%d %s", r.Level, uri, loc.Region.StartLine, r.RuleID))
	}
	return out
}

// TestActionSARIF runs the action with output sarif: the report lands where
// sarif-file says (relative to working-directory), names files from the
// repository root, and the sarif-file output is what upload-sarif reads.
func TestActionSARIF(t *testing.T) {
	c := builtCache(t)
	tests := []struct {
		name      string
		with      map[string]string
		env       map[string]string
		wantCode  int
		wantFile  string   // output sarif-file, relative to the workspace
		want      []string // results
		counts    string
		annotated bool
	}{
		{
			name:     "default file at the root",
			with:     map[string]string{"output": "sarif"},
			wantCode: 1, wantFile: "crdlint.sarif", counts: "2 1",
			want: []string{
				"error config/more%20samples/gadget.yaml:10 cr-schema",
				"error config/samples/widgets.yaml:17 cr-schema",
				"warning config/samples/widgets.yaml:18 unknown-field",
			},
		},
		{
			name:     "working directory and a nested file",
			with:     map[string]string{"output": "sarif", "working-directory": "config", "paths": "samples", "crds": "crd", "sarif-file": "reports/crdlint.sarif"},
			wantCode: 1, wantFile: "config/reports/crdlint.sarif", counts: "1 1",
			want: []string{"error config/samples/widgets.yaml:17 cr-schema", "warning config/samples/widgets.yaml:18 unknown-field"},
		},
		{
			name:     "fail-on none still writes the report",
			with:     map[string]string{"output": "sarif", "fail-on": "none", "paths": "config/samples", "crds": "config/crd"},
			wantCode: 0, wantFile: "crdlint.sarif", counts: "1 1",
			want: []string{"error config/samples/widgets.yaml:17 cr-schema", "warning config/samples/widgets.yaml:18 unknown-field"},
		},
		{
			name:     "without jq the counts are unknown, the report is not",
			with:     map[string]string{"output": "sarif", "paths": "config/samples", "crds": "config/crd"},
			env:      map[string]string{"CRDLINT_JQ": "no-such-jq"},
			wantCode: 1, wantFile: "crdlint.sarif", counts: " ",
			want: []string{"error config/samples/widgets.yaml:17 cr-schema", "warning config/samples/widgets.yaml:18 unknown-field"},
		},
		{
			name:     "an error leaves no report",
			with:     map[string]string{"output": "sarif", "paths": "nope"},
			wantCode: 2, wantFile: "",
		},
	}
	a := readAction(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, "errors", c)
			env.env = tt.env
			if _, err := exec.LookPath("jq"); err != nil && tt.counts != " " {
				// run.sh counts SARIF results with jq, which GitHub's
				// runners have; without it the counts are unknown.
				t.Logf("jq is not on PATH: the counts are unknown")
				tt.counts = " "
			}
			run := runAction(t, a, env, tt.with)
			if run.code != tt.wantCode {
				t.Fatalf("exit %d at %q, want %d\n%s%s", run.code, run.failed, tt.wantCode, run.stdout, run.stderr)
			}
			if got := run.outputs["sarif-file"]; got != tt.wantFile {
				t.Fatalf("output sarif-file = %q, want %q", got, tt.wantFile)
			}
			if got := annotations(t, run.stdout); len(got) > 0 {
				t.Errorf("annotations with output sarif: %q", got)
			}
			if tt.wantFile == "" {
				matches, _ := filepath.Glob(filepath.Join(env.workspace, "*.sarif"))
				if len(matches) > 0 {
					t.Errorf("a report was left after an error: %q", matches)
				}
				return
			}
			if got := readSARIF(t, env.workspace, tt.wantFile); !slices.Equal(got, tt.want) {
				t.Errorf("results:\n got %q\nwant %q", got, tt.want)
			}
			if got := run.outputs["errors"] + " " + run.outputs["warnings"]; got != tt.counts {
				t.Errorf("outputs errors, warnings = %q, want %q", got, tt.counts)
			}
			if !strings.Contains(run.summary, tt.wantFile) {
				t.Errorf("job summary does not name the report:\n%s", run.summary)
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
