package cmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	rulepages "github.com/kubectl-crdlint/kubectl-crdlint/docs/rules"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/ruleset"
)

// ExplainOptions prints the page of one rule.
type ExplainOptions struct {
	// Output is markdown (also text: the page reads as text) or json.
	Output string
	// NoColor is accepted as by every command; the page has no colour.
	NoColor bool

	args []string
	rule report.Rule
	genericiooptions.IOStreams
}

// NewCmdExplain builds "explain".
func NewCmdExplain(s genericiooptions.IOStreams) *cobra.Command {
	o := &ExplainOptions{Output: "markdown", IOStreams: s}
	c := &cobra.Command{
		Use:   "explain RULE",
		Short: "Explain a rule: what it checks, why it matters, how to fix it, with examples",
		Long: `Print the page of a rule, as docs/rules/RULE.md shows it: what the rule
checks, why it matters, how to fix it, and a failing and a passing example
with what crdlint reports for the failing one. The rule IDs are those of
every finding, and of 'kubectl crdlint check --list-rules'.`,
		Example: `  # Why does crdlint report crd-empty-object?
  kubectl crdlint explain crd-empty-object

  # The rule's description as JSON
  kubectl crdlint explain crd-structural -o json`,
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			ids := make([]string, 0, len(allRules))
			for _, r := range allRules {
				ids = append(ids, r.ID+"\t"+r.Doc)
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: runOptions(o),
	}
	c.Flags().StringVarP(&o.Output, "output", "o", o.Output, "Output format: markdown (or text) or json")
	c.Flags().BoolVar(&o.NoColor, "no-color", false, "Never colour the output (the page has none; accepted as by every command)")
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"markdown", "text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// Complete takes the rule ID.
func (o *ExplainOptions) Complete(_ *cobra.Command, args []string) error {
	o.args = args
	return nil
}

// Validate finds the rule, or says which IDs come close.
func (o *ExplainOptions) Validate() error {
	switch o.Output {
	case "markdown", "text", "json":
	default:
		return usageErrorf("invalid output format %q: must be one of markdown, text, json", o.Output)
	}
	if len(o.args) != 1 {
		return usageErrorf("explain needs one rule ID, e.g. 'kubectl crdlint explain crd-structural' (see 'kubectl crdlint check --list-rules')")
	}
	r, err := ruleset.Find(o.args[0])
	if err != nil {
		return &UsageError{err}
	}
	o.rule = r
	return nil
}

// Run prints the page.
func (o *ExplainOptions) Run(context.Context) error {
	if o.Output == "json" {
		return report.RenderRules(o.Out, []report.Rule{o.rule}, report.JSON)
	}
	page, ok := rulepages.Page(o.rule.ID)
	if !ok {
		// The pages and the rule set are generated together and a test
		// keeps them so; a miss is a build from a broken tree.
		return fmt.Errorf("no page for rule %s in this build", o.rule.ID)
	}
	_, err := io.WriteString(o.Out, report.RulePageForTerminal(string(page)))
	return err
}
