package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// jsonRule is a rule in the JSON catalogue. Like the findings' JSON, its
// keys are a contract: added, never renamed.
type jsonRule struct {
	ID          string   `json:"id"`
	Severity    Severity `json:"severity"`
	Description string   `json:"description"`
	Why         string   `json:"why,omitempty"`
	Fix         string   `json:"fix,omitempty"`
	HelpURI     string   `json:"helpUri"`
	Commands    []string `json:"commands,omitempty"`
}

// RenderRules prints a rule set, for --list-rules: a table of ID,
// default severity and one-line description in text, or {"rules": [...]}
// in JSON, in the order given. Other formats are refused: a catalogue is
// no report.
func RenderRules(w io.Writer, rules []Rule, f Format) error {
	switch f {
	case Text:
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "RULE\tSEVERITY\tDESCRIPTION")
		for _, r := range rules {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Doc)
		}
		return tw.Flush()
	case JSON:
		out := struct {
			Rules []jsonRule `json:"rules"`
		}{Rules: make([]jsonRule, 0, len(rules))}
		for _, r := range rules {
			out.Rules = append(out.Rules, jsonRule{ID: r.ID, Severity: r.Severity, Description: r.Doc, Why: r.Why, Fix: r.Fix, HelpURI: r.HelpURI(), Commands: r.Commands})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	return fmt.Errorf("--list-rules prints text or json, not %s", f)
}

// RulePageForTerminal makes a rule page (docs/rules/RULE.md) readable in a
// terminal: its relative links (to other pages, to the fixtures) point at
// the repository, since a terminal has no docs/ to resolve them against,
// and the HTML comments, notes for the repository's editors, are dropped.
func RulePageForTerminal(page string) string {
	for {
		start := strings.Index(page, "<!--")
		end := strings.Index(page, "-->")
		if start < 0 || end < start {
			break
		}
		page = page[:start] + strings.TrimLeft(page[end+len("-->"):], "\n")
	}
	repo := strings.TrimSuffix(RulesDocBase, "docs/rules/")
	return strings.NewReplacer(
		"](../../", "]("+repo,
		"](../", "]("+repo+"docs/",
	).Replace(page)
}
