package cmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	rulepages "github.com/kubectl-crdlint/kubectl-crdlint/docs/rules"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
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
			ids := make([]string, 0, len(catalogue))
			for _, r := range catalogue {
				ids = append(ids, r.ID+"\t"+r.Doc)
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Complete(c, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(c.Context())
		},
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
	id := strings.ToLower(strings.TrimSpace(o.args[0]))
	for _, r := range catalogue {
		if r.ID == id {
			o.rule = r
			return nil
		}
	}
	ids := make([]string, 0, len(catalogue))
	for _, r := range catalogue {
		ids = append(ids, r.ID)
	}
	if close := closeIDs(id, ids); len(close) > 0 {
		return usageErrorf("unknown rule %q: did you mean %s?", o.args[0], orList(close))
	}
	return usageErrorf("unknown rule %q (see 'kubectl crdlint check --list-rules')", o.args[0])
}

// Run prints the page.
func (o *ExplainOptions) Run(context.Context) error {
	if o.Output == "json" {
		return report.RenderRules(o.Out, []report.Rule{o.rule}, report.JSON)
	}
	page, ok := rulepages.Page(o.rule.ID)
	if !ok {
		// The pages and the catalogue are generated together and a test
		// keeps them so; a miss is a build from a broken tree.
		return fmt.Errorf("no page for rule %s in this build", o.rule.ID)
	}
	_, err := io.WriteString(o.Out, forTerminal(string(page)))
	return err
}

// forTerminal points the page's relative links (to other pages, to the
// fixtures) at the repository, since a terminal has no docs/ to resolve
// them against, and drops the HTML comments, which are notes for the
// repository's editors.
func forTerminal(page string) string {
	for {
		start := strings.Index(page, "<!--")
		end := strings.Index(page, "-->")
		if start < 0 || end < start {
			break
		}
		page = page[:start] + strings.TrimLeft(page[end+len("-->"):], "\n")
	}
	repo := strings.TrimSuffix(report.RulesDocBase, "docs/rules/")
	return strings.NewReplacer(
		"](../../", "]("+repo,
		"](../", "]("+repo+"docs/",
	).Replace(page)
}

// closeIDs returns the IDs a mistyped one probably meant: those within a
// few edits of it, or containing it as a word ("structural" for
// crd-structural), closest first, at most three.
func closeIDs(id string, ids []string) []string {
	type cand struct {
		id string
		d  int
	}
	var cands []cand
	limit := max(2, len(id)/4)
	for _, c := range ids {
		d := editDistance(id, c)
		if d > limit && len(id) >= 3 && strings.Contains(c, id) {
			d = limit // a part of the ID: as good as a near miss
		}
		if d <= limit {
			cands = append(cands, cand{c, d})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.d - b.d })
	out := make([]string, 0, 3)
	for _, c := range cands {
		if len(out) == 3 {
			break
		}
		out = append(out, c.id)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (rule IDs are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// orList joins words as "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
