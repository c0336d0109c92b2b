package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/cachedir"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/gcpace"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/kubeminor"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/version"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/cluster"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/review"
)

// flagEngineProtocol, hidden, makes a run write its whole result for the
// run that started it (report.WriteEngine) instead of rendering it.
const flagEngineProtocol = "engine-protocol"

// minorOptions are --kubernetes-version: which minors' API servers judge.
// The minor this binary links judges in process; any other is judged by
// that minor's engine (kubeminor.FindEngine), the same command run by
// kubectl-crdlint built against the minor's libraries.
type minorOptions struct {
	Spec           string
	EngineProtocol int

	// minors are the minors to judge as, oldest first; chosen says the
	// flag or the configuration named them.
	minors []string
	chosen bool
}

func (o *minorOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Spec, config.FlagKubernetesVersion, "", "Judge as this Kubernetes minor's API server ("+kubeminor.Names()+"; default "+kubeminor.Newest()+"), with its own libraries; a range (1.33-1.37) or a list (1.33,1.36) judges as each, naming the minors each finding holds for")
	fs.IntVar(&o.EngineProtocol, flagEngineProtocol, 0, "Write the result for the run that started this one, in this protocol version")
	_ = fs.MarkHidden(flagEngineProtocol)
}

// delegated ends a command whose minors are not (only) this binary's:
// Main runs them through their engines (runMinors).
type delegated struct {
	minors []string
	// cacheDir is --cache-dir, where engines built from source go.
	cacheDir string
	failOn   report.Severity
	// flags are added to the command line a single minor's engine runs.
	flags []string
}

func (d *delegated) Error() string {
	return "judged by Kubernetes " + strings.Join(d.minors, ", ") + " elsewhere"
}

// resolve takes the minors from the settings and says whether another
// process judges: a *delegated error.
func (o *sourceOptions) resolveMinors(fs *pflag.FlagSet, s *config.Settings) error {
	m := &o.Minor
	if fs.Lookup(config.FlagKubernetesVersion) == nil {
		return nil
	}
	m.minors = s.KubernetesVersions
	m.chosen = fs.Changed(config.FlagKubernetesVersion) || len(s.Config.KubernetesVersions) > 0
	if co := clusterOf(fs); co != nil && !m.chosen && m.EngineProtocol == 0 {
		// Reading from a cluster, its own minor judges unless one is
		// given: asked once connected (after the flags are validated,
		// before anything is judged). Another minor than this binary's
		// hands the run to that minor's engine, told the minor.
		co.judgeAs = func(c *cluster.Client) error {
			minor, err := serverMinor(c)
			if err != nil || minor == kubeminor.Own() {
				return err
			}
			return &delegated{minors: []string{minor}, cacheDir: o.CacheDir, failOn: s.FailOn, flags: []string{"--" + config.FlagKubernetesVersion + "=" + minor}}
		}
	}
	own := kubeminor.Own()
	if m.EngineProtocol > 0 {
		if m.EngineProtocol != report.EngineProtocol {
			return usageErrorf("--%s=%d: this engine speaks protocol %d", flagEngineProtocol, m.EngineProtocol, report.EngineProtocol)
		}
		if len(m.minors) != 1 || m.minors[0] != own {
			return usageErrorf("this engine judges as Kubernetes %s, not %s", own, strings.Join(m.minors, ", "))
		}
		return nil
	}
	if len(m.minors) == 1 && m.minors[0] == own {
		return nil
	}
	if len(m.minors) > 1 {
		if fl := fs.Lookup("write-baseline"); fl != nil && fl.Changed {
			return usageErrorf("--write-baseline records the findings of one Kubernetes minor: give one with --%s", config.FlagKubernetesVersion)
		}
		if fl := fs.Lookup("in-place"); fl != nil && fl.Changed {
			return usageErrorf("--in-place writes what one Kubernetes minor stores: give one with --%s", config.FlagKubernetesVersion)
		}
	}
	return &delegated{minors: m.minors, cacheDir: o.CacheDir, failOn: s.FailOn}
}

// render prints a result as render does, naming the minor that judged
// (the newest by default: the reader sees which server's verdict it is);
// an engine writes it for the run that started it instead.
func (o *sourceOptions) render(s genericiooptions.IOStreams, res report.Result, format report.Format, rv *review.Reviewer, noColor bool) error {
	if o.Minor.EngineProtocol > 0 {
		return report.WriteEngine(s.Out, kubeminor.Own(), res)
	}
	res.Summary.KubernetesVersion = kubeminor.Own()
	return render(s, res, format, rv, noColor)
}

// rangeMessage names every command that takes a range: those merged
// here, and test, whose runner hands each minor's cases to its engine.
var rangeMessage = strings.Join(rangeCommands, ", ") + " and test"

// rangeCommands are the commands that report findings, which a run of
// several minors merges; the others print what one minor does.
var rangeCommands = []string{"check", "immutable", "upgrade"}

// runMinors runs c's command line (args) as d's minors: one minor by its
// engine, with the same arguments, its output and exit code the run's;
// several in parallel (as many at once as there are CPUs), this binary's
// own minor in this process and every other by its engine, their results
// merged. It returns the exit code.
func runMinors(s genericiooptions.IOStreams, c *cobra.Command, args []string, d *delegated) int {
	fail := func(err error) int {
		fmt.Fprintf(s.ErrOut, "error: %v\n", err)
		return ExitUsage
	}
	engines := make([]string, len(d.minors))
	for i, m := range d.minors {
		p, err := engineFor(m, d.cacheDir, s.ErrOut)
		if err != nil {
			return fail(err)
		}
		engines[i] = p
	}
	if len(d.minors) == 1 {
		return passThrough(s, engines[0], withFlags(args, d.flags...))
	}
	if !slices.Contains(rangeCommands, c.Name()) {
		return fail(fmt.Errorf("%s judges as one Kubernetes minor at a time: give one with --%s (a range or a list is for %s)", c.Name(), config.FlagKubernetesVersion, rangeMessage))
	}
	var stdin []byte
	if slices.Contains(args, "-") {
		var err error
		if stdin, err = io.ReadAll(s.In); err != nil {
			return fail(fmt.Errorf("reading stdin: %v", err))
		}
	}
	type out struct {
		stdout, stderr bytes.Buffer
		code           int
	}
	outs := make([]out, len(d.minors))
	at := min(len(d.minors), max(1, runtime.NumCPU()))
	if at > 1 {
		// Judges running at once share the memory of about two runs
		// (gcpace.Share); this process is one of them.
		gcpace.Share()
	}
	sem := make(chan struct{}, at)
	var wg sync.WaitGroup
	for i, m := range d.minors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			a := withFlags(args, "--"+config.FlagKubernetesVersion+"="+m, fmt.Sprintf("--%s=%d", flagEngineProtocol, report.EngineProtocol))
			if m == kubeminor.Own() {
				// This binary's minor is judged here rather than by a
				// copy of this process: the run would otherwise hold an
				// idle process of ~70 MB (the libraries' package state)
				// beside every engine for its whole length, and start
				// one more.
				outs[i].code = Main(genericiooptions.IOStreams{In: bytes.NewReader(stdin), Out: &outs[i].stdout, ErrOut: &outs[i].stderr}, a)
				// What it held is garbage now: give it back to the
				// system at once, not minutes later, while the engines
				// still judging need it.
				debug.FreeOSMemory()
				return
			}
			cmd := exec.Command(engines[i], a...)
			if at > 1 {
				cmd.Env = append(os.Environ(), gcpace.SharedEnv+"=1")
			}
			cmd.Stdin = bytes.NewReader(stdin)
			cmd.Stdout, cmd.Stderr = &outs[i].stdout, &outs[i].stderr
			outs[i].code = exitCode(cmd.Run())
		}()
	}
	wg.Wait()
	results := make([]report.Result, len(d.minors))
	seen := map[string]bool{}
	for i := range outs {
		o := &outs[i]
		if o.code != ExitClean {
			// An engine that wrote no result failed: its one-line error,
			// naming the minor unless every minor said the same (an
			// input error: a path that does not exist, a bad flag).
			msg := strings.TrimPrefix(strings.TrimSpace(o.stderr.String()), "error: ")
			if msg == "" {
				// Killed (out of memory, a signal): it said nothing.
				msg = fmt.Sprintf("the engine ended with exit code %d and no message", o.code)
			}
			if !slices.ContainsFunc(outs, func(p out) bool { return p.code == ExitClean || p.stderr.String() != o.stderr.String() }) {
				return fail(errors.New(msg))
			}
			return fail(fmt.Errorf("Kubernetes %s: %s", d.minors[i], msg))
		}
		minor, r, err := report.ReadEngine(o.stdout.Bytes())
		if err != nil {
			return fail(fmt.Errorf("Kubernetes %s: %v", d.minors[i], err))
		}
		if minor != d.minors[i] {
			return fail(fmt.Errorf("the engine %s judges as Kubernetes %s, not %s", engines[i], minor, d.minors[i]))
		}
		results[i] = r
		// What each says on the side (notices, warnings), once.
		for _, line := range strings.Split(strings.TrimRight(o.stderr.String(), "\n"), "\n") {
			if line != "" && !seen[line] {
				seen[line] = true
				fmt.Fprintln(s.ErrOut, line)
			}
		}
	}
	res := report.Merge(d.minors, results)
	res.Rules = allRules
	format := report.Text
	if fl := c.Flags().Lookup("output"); fl != nil {
		format = report.Format(fl.Value.String())
	}
	noColor := false
	if fl := c.Flags().Lookup("no-color"); fl != nil {
		noColor = fl.Value.String() == "true"
	}
	res.Count()
	ro := report.Options{Color: useColor(s.Out, noColor), ToolVersion: version.Get().Version, SummaryLine: true}
	if err := report.Render(s.Out, format, res, ro); err != nil {
		return fail(err)
	}
	// Each engine reviewed its findings; the worst minor decides.
	if res.Fails(d.failOn) {
		return ExitFindings
	}
	return ExitClean
}

// engineFor is minor's engine: this executable for its own minor.
func engineFor(minor, cacheDir string, notices io.Writer) (string, error) {
	if minor == kubeminor.Own() {
		return os.Executable()
	}
	root, err := cachedir.Resolve(cacheDir)
	if err != nil {
		return kubeminor.FindEngine(minor, "", notices)
	}
	return kubeminor.FindEngine(minor, engineCache{root}.dir(), notices)
}

// engineCache is where engines built from source go.
type engineCache struct{ root string }

func (e engineCache) dir() string {
	d, err := cachedir.Sub(e.root, cachedir.Engines)
	if err != nil {
		return ""
	}
	return d
}

// passThrough runs engine with args, on this process's streams.
func passThrough(s genericiooptions.IOStreams, engine string, args []string) int {
	cmd := exec.CommandContext(context.Background(), engine, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.In, s.Out, s.ErrOut
	return exitCode(cmd.Run())
}

// exitCode is a finished child's exit code (2 when it could not run).
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return ExitClean
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	}
	return ExitUsage
}

// withFlags adds flags to args, after the user's (a flag's later value
// wins) and before a "--" that ends the flags.
func withFlags(args []string, flags ...string) []string {
	i := slices.Index(args, "--")
	if i < 0 {
		i = len(args)
	}
	out := append([]string{}, args[:i]...)
	out = append(out, flags...)
	return append(out, args[i:]...)
}
