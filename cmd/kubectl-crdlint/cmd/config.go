package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/version"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// NewCmdConfig builds "config", the parent of "config init" and "config
// view". It does nothing itself: cobra prints its help.
func NewCmdConfig(s genericiooptions.IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "Write a starter .crdlint.yaml, or show the configuration in effect",
		Long: `The configuration file .crdlint.yaml says where the CRDs of a repository are,
what to leave out, which rules matter where, and which findings are accepted.
Every command finds it in the working directory or the nearest parent, up to
the repository's root (--config names one, --no-config ignores it), and its
flags override it.`,
	}
	c.AddCommand(NewCmdConfigInit(s), NewCmdConfigView(s))
	return c
}

// ConfigInitOptions writes a starter configuration.
type ConfigInitOptions struct {
	// Force overwrites an existing configuration file; Stdout prints the
	// starter instead of writing it.
	Force, Stdout bool

	dir string
	genericiooptions.IOStreams
}

// NewCmdConfigInit builds "config init".
func NewCmdConfigInit(s genericiooptions.IOStreams) *cobra.Command {
	o := &ConfigInitOptions{IOStreams: s}
	c := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a commented starter .crdlint.yaml from what is in the repository",
		Long: `Scan DIR (default: the working directory) for directories of CRDs, Helm chart
templates and kustomize patches, and write DIR/.crdlint.yaml: crds: lists the
CRD directories, exclude: the templates and patches (which are not whole
objects), and every other key is there, commented out, with its default.
Review it before committing it: it is a starting point, not a verdict.

An existing configuration file is never overwritten without --force.`,
		Example: `  # Write .crdlint.yaml at the root of the repository
  kubectl crdlint config init

  # See what it would write
  kubectl crdlint config init --stdout`,
		Args: cobra.MaximumNArgs(1),
		RunE: runOptions(o),
	}
	f := c.Flags()
	f.BoolVar(&o.Force, "force", false, "Overwrite an existing configuration file")
	f.BoolVar(&o.Stdout, "stdout", false, "Print the starter configuration instead of writing it")
	return c
}

// Complete takes the directory to scan.
func (o *ConfigInitOptions) Complete(_ *cobra.Command, args []string) error {
	o.dir = "."
	if len(args) > 0 {
		o.dir = args[0]
	}
	return nil
}

// Validate rejects bad combinations, without I/O.
func (o *ConfigInitOptions) Validate() error {
	if o.Force && o.Stdout {
		return usageErrorf("--force and --stdout cannot be used together: --stdout writes no file")
	}
	return nil
}

// Run scans the directory and writes (or prints) the starter.
func (o *ConfigInitOptions) Run(context.Context) error {
	target, exists, err := config.Target(o.dir)
	if err != nil {
		return &UsageError{err}
	}
	if exists && !o.Stdout && !o.Force {
		return usageErrorf("%s exists: give --force to overwrite it, or --stdout to print the starter", target)
	}
	repo, err := config.ScanRepository(o.dir, config.InitOptions{})
	if err != nil {
		return inputError(err)
	}
	data := repo.Render(version.Get().Version)
	if o.Stdout {
		_, err := o.Out.Write(data)
		return err
	}
	if err := config.Write(target, data, exists); err != nil {
		return &UsageError{err}
	}
	fmt.Fprintf(o.ErrOut, "wrote %s (%s): review it, then commit it\n", target, repo.Counts())
	return nil
}

// ConfigViewOptions prints the configuration in effect. It takes the
// flags check takes that the configuration file can also set, so that a
// check command line with "config view" in its place shows what that
// check would use.
type ConfigViewOptions struct {
	validateOptions
	FailOn   severityFlag
	Disable  []string
	Baseline string
	sourceOptions

	genericiooptions.IOStreams
}

// NewCmdConfigView builds "config view".
func NewCmdConfigView(s genericiooptions.IOStreams) *cobra.Command {
	o := &ConfigViewOptions{FailOn: severityFlag(report.Error), IOStreams: s}
	c := &cobra.Command{
		Use:   "view",
		Short: "Print the configuration in effect: flags over .crdlint.yaml over the defaults",
		Long: `Print the configuration a command run here with these flags would use: the
configuration file's values with the flags applied, every key present, and a
comment naming the flag or "default" where the file says nothing.

What is wrong in the file is printed on stderr as check reports it
(config-invalid, at its line and column), the entry left out of the view, and
the exit code is 1.`,
		Example: `  # The configuration in effect here
  kubectl crdlint config view

  # What a check with these flags would use
  kubectl crdlint config view --validate=warn --disable crd-empty-object --crd vendor/crds/`,
		Args: cobra.NoArgs,
		RunE: runOptions(o),
	}
	f := c.Flags()
	o.validateOptions.addFlags(f)
	f.Var(&o.FailOn, config.FlagFailOn, "As check --fail-on: error, warning or none")
	f.StringArrayVar(&o.Disable, config.FlagDisable, nil, "As check --disable (repeatable)")
	f.StringVar(&o.Baseline, config.FlagBaseline, "", "As check --baseline")
	o.sourceOptions.addFlags(f, "As check --crd (repeatable)")
	_ = c.RegisterFlagCompletionFunc(config.FlagFailOn, cobra.FixedCompletions([]string{"error", "warning", "none"}, cobra.ShellCompDirectiveNoFileComp))
	completeValidate(c)
	return c
}

// Complete loads the configuration and applies the flags set over it.
func (o *ConfigViewOptions) Complete(c *cobra.Command, _ []string) error {
	return o.sourceOptions.complete(c.Flags())
}

// Validate rejects unknown rule IDs in --disable, as check does.
func (o *ConfigViewOptions) Validate() error {
	_, err := parseRules(o.Disable, allRules)
	return err
}

// Run prints the view on stdout and the configuration's findings on
// stderr; an error among them fails the run (exit 1), as it fails check.
func (o *ConfigViewOptions) Run(context.Context) error {
	s := o.resolved(o.validateOptions, report.Severity(o.FailOn), o.Disable)
	data, err := s.View()
	if err != nil {
		return err
	}
	if _, err := o.Out.Write(data); err != nil {
		return err
	}
	failed := false
	for _, f := range o.configFindings {
		line := fmt.Sprintf("%s:%d:%d: %s %s: %s", f.File, f.Line, f.Column, f.Severity, f.Rule, f.Message)
		if f.Field != "" {
			line += " [" + f.Field + "]"
		}
		fmt.Fprintln(o.ErrOut, line)
		failed = failed || f.Severity == report.Error
	}
	if failed {
		return errFindings
	}
	return nil
}

// plural counts: "1 CRD source", "2 CRD sources".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
