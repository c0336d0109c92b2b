// Package ruleset joins the rules of every part of crdlint into one
// list: the linter's (CRDs, custom resources, updates, the YAML loader's),
// the configuration's, the suppressions' and the upgrade check's. It is
// what --list-rules prints, what explain and --disable accept, what SARIF
// describes, and what docs/rules/ has a page for.
//
// Each package keeps its own rules (ID, severity, prose) next to the code
// that reports them; this package only adds what needs the whole picture:
// which commands report a rule, and the group it is listed under. Find
// looks a rule up as a user types it, suggesting the IDs a mistyped one
// probably meant.
package ruleset

import (
	"slices"
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/suppress"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade"
)

// Group is where a rule is listed in docs/rules.md.
type Group int

const (
	CRD Group = iota
	CustomResource
	Update
	Upgrade
	Input
	Configuration
)

// Groups are the groups in the order docs/rules.md lists them.
var Groups = []Group{CRD, CustomResource, Update, Upgrade, Input, Configuration}

// Title is the group's heading.
func (g Group) Title() string {
	return [...]string{
		CRD:            "CRDs",
		CustomResource: "Custom resources",
		Update:         "Updates of objects (immutable)",
		Upgrade:        "Upgrades of CRDs (upgrade)",
		Input:          "Input: YAML and fields of any object",
		Configuration:  "Configuration and suppressions",
	}[g]
}

// Rules is every rule a command can report, sorted by ID, with the
// commands that report it.
var Rules = join()

var byID = func() map[string]report.Rule {
	m := make(map[string]report.Rule, len(Rules))
	for _, r := range Rules {
		m[r.ID] = r
	}
	return m
}()

// Lookup returns the rule with the ID.
func Lookup(id string) (report.Rule, bool) {
	r, ok := byID[id]
	return r, ok
}

// IDs lists the rule IDs, sorted.
func IDs() []string {
	ids := make([]string, len(Rules))
	for i, r := range Rules {
		ids[i] = r.ID
	}
	return ids
}

// inputRules are the rules of the YAML loader and of fields any object
// can have; the linter reports them, but they are about the files, not
// about CRDs or custom resources.
var inputRules = []string{
	source.RuleSyntax, source.RuleDuplicate, source.RuleNotAnObject,
	source.RuleAliasBudget, source.RuleDocumentSize, source.RuleYAML11Key,
	source.RuleJSONAsYAML, source.RuleList, source.RuleEtcdSize, source.RuleRequestSize,
	lint.RuleUnknownField,
}

// GroupOf is the group a rule is listed under.
func GroupOf(id string) Group {
	switch {
	case slices.Contains(inputRules, id):
		return Input
	case id == config.RuleInvalid || id == suppress.RuleInvalid || id == suppress.RuleUnused:
		return Configuration
	case strings.HasPrefix(id, "upgrade-"):
		return Upgrade
	case strings.HasPrefix(id, "update-"):
		return Update
	case strings.HasPrefix(id, "cr-"):
		return CustomResource
	}
	return CRD
}

// commands says which commands report a rule. check lints everything it
// reads; upgrade reads YAML, judges the CRD update with the linter's CRD
// rules and honours suppressions; immutable judges updates of objects,
// and reports what stops it from judging one (no CRD, an undecodable
// object) with the custom resource rules.
func commands(id string) []string {
	switch GroupOf(id) {
	case CRD:
		return []string{"check", "upgrade"}
	case CustomResource:
		if slices.Contains(updateCRRules, id) {
			return []string{"check", "immutable"}
		}
		return []string{"check"}
	case Update:
		return []string{"immutable"}
	case Upgrade:
		return []string{"upgrade"}
	case Configuration:
		if id == config.RuleInvalid {
			return []string{"check", "immutable", "upgrade"}
		}
		return []string{"check", "upgrade"}
	}
	if id == lint.RuleUnknownField {
		return []string{"check"}
	}
	return []string{"check", "upgrade"}
}

// updateCRRules are the custom resource rules immutable reports too
// (pkg/lint/update.go).
var updateCRRules = []string{
	lint.RuleCRCELSkipped, lint.RuleCRCRDRejected, lint.RuleCRDecode,
	lint.RuleCRNoCRD, lint.RuleCRServerPanic, lint.RuleCRVersion,
}

func join() []report.Rule {
	var out []report.Rule
	seen := map[string]bool{}
	for _, rs := range [][]report.Rule{lint.Rules, config.Rules, suppress.Rules, upgrade.Rules} {
		for _, r := range rs {
			if seen[r.ID] {
				continue
			}
			seen[r.ID] = true
			r.Commands = commands(r.ID)
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b report.Rule) int { return strings.Compare(a.ID, b.ID) })
	return out
}
