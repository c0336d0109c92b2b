package action

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// repoRoot is the action's own source: GITHUB_ACTION_PATH.
const repoRoot = "../.."

// actionFile is action.yml as GitHub reads a composite action's metadata
// (docs: "Metadata syntax for GitHub Actions"); decoded strictly, so that a
// misspelt key fails instead of being ignored as GitHub would ignore it.
type actionFile struct {
	Name        string                  `yaml:"name"`
	Author      string                  `yaml:"author"`
	Description string                  `yaml:"description"`
	Inputs      map[string]actionInput  `yaml:"inputs"`
	Outputs     map[string]actionOutput `yaml:"outputs"`
	Runs        actionRuns              `yaml:"runs"`
	Branding    *actionBranding         `yaml:"branding"`
}

type actionInput struct {
	Description        string  `yaml:"description"`
	Required           bool    `yaml:"required"`
	Default            *string `yaml:"default"`
	DeprecationMessage string  `yaml:"deprecationMessage"`
}

type actionOutput struct {
	Description string `yaml:"description"`
	Value       string `yaml:"value"`
}

type actionRuns struct {
	Using string       `yaml:"using"`
	Steps []actionStep `yaml:"steps"`
}

// actionStep has the keys a composite step may have.
type actionStep struct {
	ID               string            `yaml:"id"`
	Name             string            `yaml:"name"`
	If               string            `yaml:"if"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Env              map[string]string `yaml:"env"`
	WorkingDirectory string            `yaml:"working-directory"`
	ContinueOnError  string            `yaml:"continue-on-error"`
}

type actionBranding struct {
	Icon  string `yaml:"icon"`
	Color string `yaml:"color"`
}

// label names a step in messages.
func (s actionStep) label(i int) string {
	switch {
	case s.ID != "":
		return s.ID
	case s.Uses != "":
		return fmt.Sprintf("#%d %s", i, s.Uses)
	}
	return fmt.Sprintf("#%d", i)
}

func readAction(t *testing.T) *actionFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var a actionFile
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return &a
}

// exprContext holds what the action's expressions may read.
type exprContext struct {
	inputs map[string]string
	steps  map[string]map[string]string // step id -> outputs
	github map[string]string
	runner map[string]string
	// failed says a step before has failed: what the status functions
	// tell (a composite action's steps see the action's status).
	failed bool
}

// value is a GitHub expression value: the action uses strings and the
// booleans that comparisons give.
type value struct {
	isBool bool
	b      bool
	s      string
}

func (v value) truthy() bool {
	if v.isBool {
		return v.b
	}
	return v.s != ""
}

func (v value) String() string {
	if v.isBool {
		return fmt.Sprint(v.b)
	}
	return v.s
}

// tokens splits an expression into identifiers (dotted paths), 'strings'
// (kept with their quotes), operators and parentheses.
func tokens(expr string) ([]string, error) {
	var out []string
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '\'':
			j := i + 1
			for ; j < len(expr); j++ {
				if expr[j] == '\'' {
					if j+1 < len(expr) && expr[j+1] == '\'' { // '' is a quote
						j++
						continue
					}
					break
				}
			}
			if j >= len(expr) {
				return nil, fmt.Errorf("unterminated string in %q", expr)
			}
			out = append(out, expr[i:j+1])
			i = j + 1
		case strings.HasPrefix(expr[i:], "=="), strings.HasPrefix(expr[i:], "!="),
			strings.HasPrefix(expr[i:], "&&"), strings.HasPrefix(expr[i:], "||"):
			out = append(out, expr[i:i+2])
			i += 2
		case c == '!' || c == '(' || c == ')':
			out = append(out, string(c))
			i++
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(expr) && (expr[j] == '_' || expr[j] == '-' || expr[j] == '.' ||
				expr[j] >= 'a' && expr[j] <= 'z' || expr[j] >= 'A' && expr[j] <= 'Z' || expr[j] >= '0' && expr[j] <= '9') {
				j++
			}
			out = append(out, expr[i:j])
			i = j
		default:
			// Anything else (numbers, functions' commas, indexing) the
			// action does not use; supporting it is not this test's job.
			return nil, fmt.Errorf("unsupported character %q in %q", c, expr)
		}
	}
	return out, nil
}

// statusFunctions are the status check functions, the only functions the
// action calls (without arguments): what they return depends on whether a
// step before failed.
var statusFunctions = map[string]bool{"always": true, "success": true, "failure": true, "cancelled": true}

// isCall reports whether toks[i] calls a status function: name().
func isCall(toks []string, i int) bool {
	return statusFunctions[toks[i]] && i+2 < len(toks) && toks[i+1] == "(" && toks[i+2] == ")"
}

// references lists the context paths an expression reads.
func references(expr string) ([]string, error) {
	toks, err := tokens(expr)
	if err != nil {
		return nil, err
	}
	var refs []string
	for i, t := range toks {
		if c := t[0]; (c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') && !isCall(toks, i) {
			refs = append(refs, t)
		}
	}
	return refs, nil
}

// hasStatusFunction reports whether a condition calls one: GitHub puts
// success() && before a condition that does not.
func hasStatusFunction(expr string) bool {
	toks, _ := tokens(expr)
	for i := range toks {
		if isCall(toks, i) {
			return true
		}
	}
	return false
}

// templates returns the expressions inside ${{ }} in s.
func templates(s string) ([]string, error) {
	var out []string
	for {
		i := strings.Index(s, "${{")
		if i < 0 {
			return out, nil
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return nil, fmt.Errorf("unterminated ${{ in %q", s)
		}
		out = append(out, strings.TrimSpace(s[i+3:i+j]))
		s = s[i+j+2:]
	}
}

// eval evaluates an expression with GitHub's semantics for the subset
// the action uses: ==, != (strings compare case-insensitively), !, &&,
// || (which give an operand, as GitHub's do) and parentheses.
func (c *exprContext) eval(expr string) (value, error) {
	toks, err := tokens(expr)
	if err != nil {
		return value{}, err
	}
	p := &parser{toks: toks, c: c}
	v, err := p.or()
	if err == nil && p.i < len(p.toks) {
		err = fmt.Errorf("unexpected %q", p.toks[p.i])
	}
	if err != nil {
		return value{}, fmt.Errorf("%s: %w", expr, err)
	}
	return v, nil
}

// expand replaces every ${{ }} in s by its value.
func (c *exprContext) expand(s string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${{")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("unterminated ${{ in %q", s)
		}
		v, err := c.eval(s[i+3 : i+j])
		if err != nil {
			return "", err
		}
		b.WriteString(s[:i])
		b.WriteString(v.String())
		s = s[i+j+2:]
	}
}

// lookup resolves a context path; an unknown one is an error, not "".
func (c *exprContext) lookup(ref string) (value, error) {
	parts := strings.Split(ref, ".")
	var (
		v  string
		ok bool
	)
	switch {
	case len(parts) == 2 && parts[0] == "inputs":
		v, ok = c.inputs[parts[1]]
	case len(parts) == 2 && parts[0] == "github":
		v, ok = c.github[parts[1]]
	case len(parts) == 2 && parts[0] == "runner":
		v, ok = c.runner[parts[1]]
	case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
		// A step that did not run, or did not set the output, reads as
		// "" on GitHub too.
		return value{s: c.steps[parts[1]][parts[3]]}, nil
	}
	if !ok {
		return value{}, fmt.Errorf("unknown context value %s", ref)
	}
	return value{s: v}, nil
}

type parser struct {
	toks []string
	i    int
	c    *exprContext
}

func (p *parser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *parser) or() (value, error) {
	l, err := p.and()
	for err == nil && p.peek() == "||" {
		p.i++
		var r value
		if r, err = p.and(); !l.truthy() {
			l = r
		}
	}
	return l, err
}

func (p *parser) and() (value, error) {
	l, err := p.cmp()
	for err == nil && p.peek() == "&&" {
		p.i++
		var r value
		if r, err = p.cmp(); l.truthy() {
			l = r
		}
	}
	return l, err
}

func (p *parser) cmp() (value, error) {
	l, err := p.unary()
	if err != nil {
		return l, err
	}
	if op := p.peek(); op == "==" || op == "!=" {
		p.i++
		r, err := p.unary()
		if err != nil {
			return r, err
		}
		if l.isBool || r.isBool {
			return value{}, fmt.Errorf("comparing a boolean: not used by the action, not modelled")
		}
		eq := strings.EqualFold(l.s, r.s)
		return value{isBool: true, b: eq == (op == "==")}, nil
	}
	return l, nil
}

func (p *parser) unary() (value, error) {
	switch t := p.peek(); {
	case t == "!":
		p.i++
		v, err := p.unary()
		return value{isBool: true, b: !v.truthy()}, err
	case t == "(":
		p.i++
		v, err := p.or()
		if err == nil && p.peek() != ")" {
			err = fmt.Errorf("missing )")
		}
		p.i++
		return v, err
	case strings.HasPrefix(t, "'"):
		p.i++
		return value{s: strings.ReplaceAll(t[1:len(t)-1], "''", "'")}, nil
	case t == "":
		return value{}, fmt.Errorf("unexpected end")
	case isCall(p.toks, p.i):
		p.i += 3
		// No run is cancelled here.
		b := map[string]bool{"always": true, "success": !p.c.failed, "failure": p.c.failed, "cancelled": false}[t]
		return value{isBool: true, b: b}, nil
	default:
		p.i++
		return p.c.lookup(t)
	}
}

// fakeCache stands in for actions/cache: keys to saved directories, and
// the keys in the order they were saved (restore-keys take the newest).
type fakeCache struct {
	dir     string
	entries map[string]string
	saved   []string
}

func newFakeCache(dir string) *fakeCache {
	return &fakeCache{dir: dir, entries: map[string]string{}}
}

// clone is a copy that shares the saved directories, which nobody writes.
func (c *fakeCache) clone(dir string) *fakeCache {
	return &fakeCache{dir: dir, entries: maps.Clone(c.entries), saved: slices.Clone(c.saved)}
}

// match is the key a restore finds: key itself, else for the first of
// restoreKeys (lines) that any saved key starts with, the newest such key.
func (c *fakeCache) match(key, restoreKeys string) (string, bool) {
	if _, ok := c.entries[key]; ok {
		return key, true
	}
	for _, prefix := range strings.Split(restoreKeys, "\n") {
		if prefix = strings.TrimSpace(prefix); prefix == "" {
			continue
		}
		for i := len(c.saved) - 1; i >= 0; i-- {
			if strings.HasPrefix(c.saved[i], prefix) {
				return c.saved[i], false
			}
		}
	}
	return "", false
}

// runIDs numbers the runs of the action, as GITHUB_RUN_ID does.
var runIDs atomic.Int64

// runnerEnv is one job's environment for the action.
type runnerEnv struct {
	workspace string
	temp      string
	ref       string
	cache     *fakeCache
	// env is the job's env (e.g. CRDLINT_ACTION_BINARY), seen by every step.
	env map[string]string
	// runID is GITHUB_RUN_ID, new for every run of the action.
	runID int64
}

// stepRun records what a step did.
type stepRun struct {
	label   string
	skipped bool
	with    map[string]string // uses: the expanded inputs
	outputs map[string]string
	stdout  string
	stderr  string
	code    int
}

// actionRun is the result of running the action once.
type actionRun struct {
	steps   []*stepRun
	outputs map[string]string // the action's outputs
	// code is the exit code of the step that failed the action, else 0.
	code    int
	failed  string
	stdout  string // all run steps' stdout, as the log shows it
	stderr  string
	summary string
	path    []string // GITHUB_PATH additions
}

// step returns the step with the id, or else the first whose uses starts
// with it ("actions/setup-go@"); a missing step fails the test.
func (r *actionRun) step(t *testing.T, label string) *stepRun {
	t.Helper()
	for _, s := range r.steps {
		if s.label == label {
			return s
		}
	}
	for _, s := range r.steps {
		if _, uses, ok := strings.Cut(s.label, " "); ok && strings.HasPrefix(uses, label) {
			return s
		}
	}
	t.Fatalf("the action has no step %s", label)
	return nil
}

// runAction runs action.yml's steps as the runner would for
// `uses: <action>` with the given inputs (with:).
func runAction(t *testing.T, a *actionFile, env *runnerEnv, with map[string]string) *actionRun {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &exprContext{
		inputs: map[string]string{},
		steps:  map[string]map[string]string{},
		github: map[string]string{"action_path": root, "action_ref": env.ref, "workspace": env.workspace},
		runner: map[string]string{"temp": env.temp, "os": runnerOS(), "arch": runnerArch()},
	}
	for name, in := range a.Inputs {
		if in.Default != nil {
			ctx.inputs[name] = *in.Default
		} else {
			ctx.inputs[name] = ""
		}
	}
	for name, v := range with {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("with: %s is not an input of action.yml", name)
		}
		ctx.inputs[name] = v
	}

	env.runID = runIDs.Add(1)
	run := &actionRun{outputs: map[string]string{}}
	var stdout, stderr, summary strings.Builder
	path := os.Getenv("PATH")
	for i, s := range a.Runs.Steps {
		sr := &stepRun{label: s.label(i)}
		run.steps = append(run.steps, sr)
		cond := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s.If), "${{"), "}}")
		if cond != "" && !hasStatusFunction(cond) {
			cond = "success() && (" + cond + ")"
		} else if cond == "" {
			cond = "success()"
		}
		v, err := ctx.eval(cond)
		if err != nil {
			t.Fatalf("step %s: if: %v", sr.label, err)
		}
		if !v.truthy() {
			sr.skipped = true
			continue
		}
		if s.Uses != "" {
			sr.with = map[string]string{}
			for k, v := range s.With {
				if sr.with[k], err = ctx.expand(v); err != nil {
					t.Fatalf("step %s: with.%s: %v", sr.label, k, err)
				}
			}
			sr.outputs = fakeUses(t, env.cache, s.Uses, sr.with)
		} else {
			sr.outputs = runStep(t, ctx, env, s, sr, root, &path, &summary)
			stdout.WriteString(sr.stdout)
			stderr.WriteString(sr.stderr)
		}
		if s.ID != "" {
			ctx.steps[s.ID] = sr.outputs
		}
		if sr.code != 0 && !ctx.failed {
			// Later steps run only if their condition calls a status
			// function that allows it.
			run.code, run.failed = sr.code, sr.label
			ctx.failed = true
		}
	}
	for name, o := range a.Outputs {
		v, err := ctx.expand(o.Value)
		if err != nil {
			t.Fatalf("output %s: %v", name, err)
		}
		run.outputs[name] = v
	}
	run.stdout, run.stderr, run.summary = stdout.String(), stderr.String(), summary.String()
	for _, p := range filepath.SplitList(path) {
		if strings.HasPrefix(p, env.temp) {
			run.path = append(run.path, p)
		}
	}
	return run
}

// runStep runs one `run:` step as the runner's bash template does:
// `bash --noprofile --norc -eo pipefail {0}` with fresh GITHUB_OUTPUT,
// GITHUB_PATH and GITHUB_STEP_SUMMARY files.
func runStep(t *testing.T, ctx *exprContext, env *runnerEnv, s actionStep, sr *stepRun, root string, path *string, summary *strings.Builder) map[string]string {
	t.Helper()
	if s.Shell != "bash" {
		t.Fatalf("step %s: shell %q: only bash is modelled", sr.label, s.Shell)
	}
	dir, err := os.MkdirTemp(env.temp, "step-")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "script.sh")
	files := map[string]string{}
	for _, name := range []string{"GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"} {
		files[name] = filepath.Join(dir, strings.ToLower(name))
		if err := os.WriteFile(files[name], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"PATH":                *path,
		"CI":                  "true",
		"GITHUB_ACTIONS":      "true",
		"GITHUB_WORKSPACE":    env.workspace,
		"GITHUB_ACTION_PATH":  root,
		"GITHUB_ACTION_REF":   env.ref,
		"GITHUB_RUN_ID":       fmt.Sprint(env.runID),
		"GITHUB_RUN_ATTEMPT":  "1",
		"RUNNER_TEMP":         env.temp,
		"RUNNER_OS":           runnerOS(),
		"RUNNER_ARCH":         runnerArch(),
		"GITHUB_OUTPUT":       files["GITHUB_OUTPUT"],
		"GITHUB_PATH":         files["GITHUB_PATH"],
		"GITHUB_STEP_SUMMARY": files["GITHUB_STEP_SUMMARY"],
	}
	for k, v := range env.env {
		vars[k] = v
	}
	for k, v := range s.Env {
		if vars[k], err = ctx.expand(v); err != nil {
			t.Fatalf("step %s: env.%s: %v", sr.label, k, err)
		}
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = env.workspace
	if s.WorkingDirectory != "" {
		wd, err := ctx.expand(s.WorkingDirectory)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Dir = filepath.Join(env.workspace, wd)
	}
	cmd.Env = baseEnv()
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			sr.code = ee.ExitCode()
		} else {
			t.Fatalf("step %s: %v", sr.label, err)
		}
	}
	sr.stdout, sr.stderr = stdout.String(), stderr.String()
	t.Logf("step %s: exit %d\nstdout:\n%s\nstderr:\n%s", sr.label, sr.code, sr.stdout, sr.stderr)

	outputs, err := parseOutputFile(files["GITHUB_OUTPUT"])
	if err != nil {
		t.Fatalf("step %s: GITHUB_OUTPUT: %v", sr.label, err)
	}
	added, err := os.ReadFile(files["GITHUB_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Split(strings.TrimSpace(string(added)), "\n") {
		if p != "" {
			*path = p + string(os.PathListSeparator) + *path
		}
	}
	b, err := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatal(err)
	}
	summary.Write(b)
	return outputs
}

// parseOutputFile reads a GITHUB_OUTPUT file: NAME=VALUE lines and
// NAME<<DELIMITER blocks, as the runner does.
func parseOutputFile(name string) (map[string]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		if k, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(k, "=") {
			var v []string
			for {
				if !sc.Scan() {
					return nil, fmt.Errorf("%s: no closing %s", k, delim)
				}
				if sc.Text() == delim {
					break
				}
				v = append(v, sc.Text())
			}
			out[k] = strings.Join(v, "\n")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %q is neither NAME=VALUE nor NAME<<DELIMITER", line)
		}
		out[k] = v
	}
	return out, sc.Err()
}

// fakeUses plays the actions the composite steps use.
func fakeUses(t *testing.T, c *fakeCache, uses string, with map[string]string) map[string]string {
	t.Helper()
	name, _, _ := strings.Cut(uses, "@")
	switch name {
	case "actions/cache/restore":
		key, path := with["key"], with["path"]
		if key == "" || path == "" {
			t.Fatalf("%s: key %q, path %q: both are required", uses, key, path)
		}
		matched, exact := c.match(key, with["restore-keys"])
		if matched == "" {
			return map[string]string{"cache-primary-key": key} // a miss sets no cache-hit
		}
		testutil.CopyTree(t, c.entries[matched], path)
		// A restore key's match is not a hit (actions/cache v4).
		return map[string]string{"cache-hit": fmt.Sprint(exact), "cache-primary-key": key, "cache-matched-key": matched}
	case "actions/cache/save":
		key, path := with["key"], with["path"]
		if key == "" || path == "" {
			t.Fatalf("%s: key %q, path %q: both are required", uses, key, path)
		}
		if _, ok := c.entries[key]; ok {
			t.Fatalf("%s: key %q saved twice: GitHub refuses that", uses, key)
		}
		if strings.Contains(key, ",") || len(key) > 512 {
			t.Fatalf("%s: key %q: GitHub refuses commas and keys over 512 characters", uses, key)
		}
		dst := filepath.Join(c.dir, fmt.Sprint(len(c.entries)))
		testutil.CopyTree(t, path, dst)
		c.entries[key] = dst
		c.saved = append(c.saved, key)
		return map[string]string{}
	case "actions/setup-go":
		// Go is on PATH already; check that what setup-go would read exists.
		if f := with["go-version-file"]; with["go-version"] == "" {
			if _, err := os.Stat(f); err != nil {
				t.Fatalf("%s: go-version-file: %v", uses, err)
			}
		}
		return map[string]string{"go-version": runtime.Version()}
	}
	t.Fatalf("uses: %s is not modelled by this test", uses)
	return nil
}

// baseEnv is this process's environment without anything a runner sets,
// so that running these tests inside GitHub Actions changes nothing.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "PATH" || k == "CI",
			strings.HasPrefix(k, "GITHUB_"), strings.HasPrefix(k, "RUNNER_"),
			strings.HasPrefix(k, "INPUT_"), strings.HasPrefix(k, "CRDLINT_"),
			strings.HasPrefix(k, "ACTIONS_"):
			continue
		}
		env = append(env, kv)
	}
	return env
}

func runnerOS() string {
	switch runtime.GOOS {
	case "darwin":
		return "macOS"
	case "windows":
		return "Windows"
	}
	return "Linux"
}

func runnerArch() string {
	if runtime.GOARCH == "arm64" {
		return "ARM64"
	}
	return "X64"
}

// sortedKeys returns m's keys in order, for stable messages.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
