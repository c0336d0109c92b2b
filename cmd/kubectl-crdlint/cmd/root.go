// Package cmd holds the kubectl-crdlint commands, built the kubectl way:
// an options struct per command with Complete, Validate and Run, writing
// only to its IOStreams so that every command runs in-process in tests.
package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/gcpace"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/version"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/review"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/ruleset"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Exit codes.
const (
	ExitClean    = 0
	ExitFindings = 1
	ExitUsage    = 2
)

// UsageError is a bad flag, argument or input: exit code 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, a ...any) error {
	return &UsageError{fmt.Errorf(format, a...)}
}

// usageErrorAs makes an error of type E found in err's chain (a
// package's mark for "the input is at fault": a selector the server
// refuses, a file that cannot be rewritten) a usage error of its cause;
// any other error is returned as it is.
func usageErrorAs[E interface {
	*T
	error
	Unwrap() error
}, T any](err error) error {
	var e E
	if errors.As(err, &e) {
		return &UsageError{e.Unwrap()}
	}
	return err
}

// options is what every command's options do, the kubectl way.
type options interface {
	Complete(c *cobra.Command, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// runOptions is a command's RunE: o completed from the command line,
// validated, then run.
func runOptions(o options) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		if err := o.Complete(c, args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(c.Context())
	}
}

// errFindings ends a run whose findings reach --fail-on: exit 1, nothing
// more to print.
var errFindings = errors.New("findings at or above --fail-on")

// NewCmdRoot builds the command tree.
func NewCmdRoot(s genericiooptions.IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "kubectl-crdlint",
		Short: "Lint CRDs and custom resources with the API server's own rules, offline",
		Long: `kubectl crdlint tells you what the Kubernetes API server would do with your
CustomResourceDefinitions and custom resources before you apply them: which it
would reject and why, positioned at file:line:column, in the server's words.`,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl crdlint",
		},
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &UsageError{fmt.Errorf("%w\nSee '%s --help' for usage.", err, c.CommandPath())}
	})
	root.AddCommand(NewCmdCheck(s), NewCmdPrune(s), NewCmdFields(s), NewCmdImmutable(s), NewCmdTest(s), NewCmdUpgrade(s), NewCmdConfig(s), NewCmdExplain(s), NewCmdVersion(s), NewCmdCompletion(s))
	return root
}

// Main runs the command line and returns the exit code. Errors are one
// line on stderr; a panic becomes one line too, never a stack trace.
func Main(s genericiooptions.IOStreams, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(s.ErrOut, "error: internal error: %v (please report this with the input that caused it)\n", r)
			if os.Getenv("CRDLINT_DEBUG") != "" {
				s.ErrOut.Write(debug.Stack())
			}
			code = ExitUsage
		}
	}()
	if os.Getenv("CRDLINT_DEBUG") == "" {
		// client-go reports retries and discovery failures through klog;
		// the error we return says it once, in one line.
		klog.SetLogger(logr.Discard())
	}
	// What a command reading from a cluster reads of stdin is kept: it
	// learns only once connected that the cluster's minor judges
	// (resolveMinors), and then hands the whole of it to that minor's
	// engine.
	in := &keptReader{r: s.In}
	if s.In != nil && slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "--live") || strings.HasPrefix(a, "--crd-from-cluster")
	}) {
		s.In = in
	}
	root := NewCmdRoot(s)
	root.SetArgs(args)
	helpErr := failedHelp(root, s.Out)
	c, err := root.ExecuteContextC(context.Background())
	if err == nil && *helpErr != nil {
		// cobra ignores what writing the help returns: a full disk or a
		// closed pipe would pass for help printed.
		err = *helpErr
	}
	var d *delegated
	switch {
	case errors.As(err, &d):
		if s.In == in {
			s.In = io.MultiReader(bytes.NewReader(in.kept.Bytes()), in.r)
		}
		return runMinors(s, c, args, d)
	case err == nil:
		return ExitClean
	case errors.Is(err, errFindings):
		return ExitFindings
	}
	msg := err.Error()
	if !strings.Contains(msg, "See '") && isCobraUsage(msg) {
		msg += "\nSee 'kubectl crdlint --help' for usage."
	}
	fmt.Fprintf(s.ErrOut, "error: %s\n", msg)
	return ExitUsage
}

// failedHelp makes root's help (--help, help CMD) written in one piece to
// out, and returns where the error of writing it is kept.
func failedHelp(root *cobra.Command, out io.Writer) *error {
	var werr error
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		var b bytes.Buffer
		c.SetOut(&b)
		help(c, args)
		c.SetOut(out)
		if _, err := out.Write(b.Bytes()); err != nil {
			werr = err
		}
	})
	return &werr
}

// keptReader reads r and keeps what it read.
type keptReader struct {
	r    io.Reader
	kept bytes.Buffer
}

func (k *keptReader) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	k.kept.Write(p[:n])
	return n, err
}

// isCobraUsage recognises cobra's own argument errors, which are not
// wrapped by the flag error function.
func isCobraUsage(msg string) bool {
	return strings.HasPrefix(msg, "unknown command") || strings.Contains(msg, "arg(s)")
}

// inputError turns the loader's typed error into a usage error.
func inputError(err error) error {
	var ie *source.InputError
	if errors.As(err, &ie) {
		return &UsageError{ie}
	}
	return err
}

// useColor decides colour for a writer: a terminal, and neither NO_COLOR
// nor --no-color.
func useColor(w io.Writer, noColor bool) bool {
	if noColor || os.Getenv("NO_COLOR") != "" {
		return false
	}
	return isTerminal(w)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// severityFlag is --fail-on.
type severityFlag report.Severity

func (s *severityFlag) String() string { return report.Severity(*s).String() }
func (s *severityFlag) Type() string   { return "severity" }
func (s *severityFlag) Set(v string) error {
	sev, err := report.ParseSeverity(v)
	if err != nil {
		return err
	}
	*s = severityFlag(sev)
	return nil
}

// parseRules reads --disable's values (repeatable, comma-separated) into
// a set, refusing unknown rule IDs (the case counts: IDs are lowercase)
// with explain's "did you mean".
func parseRules(values []string, rules []report.Rule) (map[string]bool, error) {
	known := map[string]bool{}
	for _, r := range rules {
		known[r.ID] = true
	}
	out := map[string]bool{}
	for _, v := range values {
		for _, id := range strings.Split(v, ",") {
			id = strings.TrimSpace(id)
			if !known[id] {
				return nil, usageErrorf("--disable: %v", ruleset.Unknown(id))
			}
			out[id] = true
		}
	}
	return out, nil
}

// stdinOnce refuses "-" given more than once: stdin can be read once.
func stdinOnce(paths []string) error {
	n := 0
	for _, p := range paths {
		if p == "-" {
			n++
		}
	}
	if n > 1 {
		return usageErrorf("- (stdin) may be given only once")
	}
	return nil
}

// render prints a result its review finished (Reviewer.Finish) and
// turns the review's verdict, findings at --fail-on, into exit 1.
func render(s genericiooptions.IOStreams, res report.Result, format report.Format, rv *review.Reviewer, noColor bool) error {
	res.Count()
	ro := report.Options{Color: useColor(s.Out, noColor), ToolVersion: version.Get().Version, SummaryLine: true}
	if err := report.Render(s.Out, format, res, ro); err != nil {
		return err
	}
	if rv.Failed() {
		return errFindings
	}
	return nil
}

// TuneGC paces the collector by what a run holds (gcpace.Tune). Only the
// binary calls it: tests running Main in-process keep theirs.
func TuneGC() { gcpace.Tune() }
