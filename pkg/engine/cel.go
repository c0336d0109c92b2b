package engine

import (
	"regexp"

	"github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/parser"
	celescape "k8s.io/apiserver/pkg/cel"
)

var oldSelfRE = regexp.MustCompile(`\boldSelf\b`)

// UsesOldSelf says a rule refers to oldSelf, which makes it a transition
// rule. The server decides this on the checked expression; the parsed one
// names the same identifiers. An expression that does not parse (the
// server refuses the CRD then) falls back to a word match.
func UsesOldSelf(rule string) bool {
	a, errs := parser.Parse(common.NewTextSource(rule))
	if a == nil || (errs != nil && len(errs.GetErrors()) > 0) {
		return oldSelfRE.MatchString(rule)
	}
	found := false
	celast.PreOrderVisit(a.Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		if e.Kind() == celast.IdentKind && e.AsIdent() == "oldSelf" {
			found = true
		}
	}))
	return found
}

// EscapeProperty is a property name as a CEL expression names it, escaped
// as the server escapes it when it declares the schema's fields; ok is
// false for a name CEL cannot reach.
func EscapeProperty(name string) (escaped string, ok bool) {
	return celescape.Escape(name)
}
