package compare

import (
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
)

// cel compares the x-kubernetes-validations of a node present in both
// revisions. Rules are matched by expression first, whatever their order
// and messages; the rules left on both sides are then paired in order as
// changed, and what remains is added or removed. Messages, message
// expressions, reasons and field paths are not compared: they change how a
// refusal reads, not what is refused.
func (w *walker) cel(o, n apiextensionsv1.ValidationRules, l loc) {
	if len(o) == 0 && len(n) == 0 {
		return
	}
	pairO := make([]int, len(o)) // index+1 of the NEW rule paired with o[i]
	pairN := make([]bool, len(n))
	for j, nr := range n {
		for i, or := range o {
			if pairO[i] == 0 && or.Rule == nr.Rule {
				pairO[i], pairN[j] = j+1, true
				break
			}
		}
	}
	var restO, restN []int
	for i, p := range pairO {
		if p == 0 {
			restO = append(restO, i)
		} else if isTrue(o[i].OptionalOldSelf) != isTrue(n[p-1].OptionalOldSelf) {
			w.celChanged(o, n, i, p-1, l)
		}
	}
	for j, p := range pairN {
		if !p {
			restN = append(restN, j)
		}
	}
	k := min(len(restO), len(restN))
	for x := 0; x < k; x++ {
		or, nr := o[restO[x]], n[restN[x]]
		if isTrue(or.OptionalOldSelf) == isTrue(nr.OptionalOldSelf) && widens(or.Rule, nr.Rule) {
			continue // a loosening, as a bound raised: no change
		}
		w.celChanged(o, n, restO[x], restN[x], l)
	}
	vp := l.np.Child("x-kubernetes-validations")
	for _, j := range restN[k:] {
		r := n[j]
		ch := Change{Path: vp.Index(j).Child("rule").String(), Field: l.data, New: r.Rule,
			CEL: &CELChange{Node: l.np.String(), Index: j, Rule: r, Transition: usesOldSelf(r.Rule)}}
		if ch.CEL.Transition {
			ch.Rule = RuleTransitionRuleAdded
			ch.Message = fmt.Sprintf("transition rule %s added: updates that break it are refused, and transition rules are never ratcheted", js(r.Rule))
		} else {
			ch.Rule = RuleCELRuleAdded
			ch.Message = fmt.Sprintf("validation rule %s added: objects that break it are refused (tightens; unknown without objects)", js(r.Rule))
		}
		w.add(ch)
	}
	op := l.op.Child("x-kubernetes-validations")
	for _, i := range restO[k:] {
		r := o[i]
		ch := Change{Rule: RuleCELRuleRemoved, Path: op.Index(i).Child("rule").String(), InOld: true, Field: l.data, Old: r.Rule,
			CEL: &CELChange{Node: l.op.String(), Index: i, Rule: r, Transition: usesOldSelf(r.Rule)}}
		if ch.CEL.Transition {
			ch.Message = fmt.Sprintf("transition rule %s removed: updates it refused are accepted (an immutability or transition guarantee is gone)", js(r.Rule))
		} else {
			ch.Message = fmt.Sprintf("validation rule %s removed: objects it refused are accepted", js(r.Rule))
		}
		w.add(ch)
	}
}

func (w *walker) celChanged(o, n apiextensionsv1.ValidationRules, i, j int, l loc) {
	or, nr := o[i], n[j]
	ch := Change{Rule: RuleCELRuleChanged, Path: l.np.Child("x-kubernetes-validations").Index(j).Child("rule").String(), Field: l.data,
		Old: or.Rule, New: nr.Rule,
		CEL: &CELChange{Node: l.np.String(), Index: j, Rule: nr, Old: &or, Transition: usesOldSelf(nr.Rule)}}
	if or.Rule == nr.Rule {
		ch.Message = fmt.Sprintf("validation rule %s: optionalOldSelf changed from %t to %t: it now runs on %s", js(nr.Rule),
			isTrue(or.OptionalOldSelf), isTrue(nr.OptionalOldSelf), map[bool]string{true: "creates too", false: "updates only"}[isTrue(nr.OptionalOldSelf)])
	} else {
		ch.Message = fmt.Sprintf("validation rule changed from %s to %s: objects OLD accepted may be refused (tightens or unknown without objects)", js(or.Rule), js(nr.Rule))
	}
	w.add(ch)
}

// usesOldSelf says a rule refers to oldSelf, which makes it a transition
// rule (as the server decides it).
func usesOldSelf(rule string) bool { return engine.UsesOldSelf(rule) }

// widens reports whether rule n accepts whatever rule o accepts because it
// is o with alternatives added: every top-level || operand of o is one of
// n's (rook's "self == ” || self == oldSelf" becoming "self == ” ||
// oldSelf == ” || self == oldSelf"). CEL's || is true when any operand
// is, whatever the others evaluate to, errors included, so every object
// (and update) o lets through, n does. Operands are compared as written,
// white space aside; a rule the scan cannot split for sure (a top-level
// ?:, which binds looser than ||, a comment, an unbalanced bracket or
// quote) is not found to widen, and stays a changed rule.
func widens(o, n string) bool {
	od, ok := disjuncts(o)
	if !ok {
		return false
	}
	nd, ok := disjuncts(n)
	if !ok || len(nd) <= len(od) {
		return false
	}
	for _, d := range od {
		if !slices.Contains(nd, d) {
			return false
		}
	}
	return true
}

// disjuncts splits a CEL expression at its top-level ||, each operand
// with its white space runs outside literals made one space and its
// enclosing parentheses removed; ok is false when the split may be wrong.
func disjuncts(expr string) (out []string, ok bool) {
	var cur strings.Builder
	depth := 0
	flush := func() bool {
		w := strings.TrimSpace(cur.String())
		d := unparen(w)
		cur.Reset()
		if d != w {
			// (a || b) || c is a || b || c; a parenthesized group
			// that does not split is one operand.
			if sub, ok := disjuncts(d); ok && len(sub) > 1 {
				out = append(out, sub...)
				return true
			}
		}
		out = append(out, d)
		return d != ""
	}
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\'' || c == '"':
			end := stringEnd(expr, i)
			if end < 0 {
				return nil, false
			}
			cur.WriteString(expr[i:end])
			i = end - 1
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth--; depth < 0 {
				return nil, false
			}
		case c == '/' && i+1 < len(expr) && expr[i+1] == '/':
			return nil, false // a comment
		case depth == 0 && c == '?':
			return nil, false // a conditional: below || in precedence
		case depth == 0 && c == '|' && i+1 < len(expr) && expr[i+1] == '|':
			if !flush() {
				return nil, false
			}
			i++
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			// One space for a run, outside literals only.
			if b := cur.String(); b != "" && b[len(b)-1] != ' ' {
				cur.WriteByte(' ')
			}
			continue
		}
		cur.WriteByte(c)
	}
	if depth != 0 || !flush() {
		return nil, false
	}
	return out, true
}

// stringEnd is the index just past the CEL string literal whose quote is
// at i (triple quotes too; after an r or R prefix, a raw string, where a
// backslash escapes nothing), or -1.
func stringEnd(s string, i int) int {
	q := s[i : i+1]
	if strings.HasPrefix(s[i:], strings.Repeat(q, 3)) {
		q = strings.Repeat(q, 3)
	}
	raw := i > 0 && (s[i-1] == 'r' || s[i-1] == 'R')
	for j := i + len(q); j < len(s); j++ {
		if s[j] == '\\' && !raw {
			j++
			continue
		}
		if strings.HasPrefix(s[j:], q) {
			return j + len(q)
		}
	}
	return -1
}

// unparen removes the parentheses that enclose all of d, if any.
func unparen(d string) string {
	for len(d) >= 2 && d[0] == '(' && d[len(d)-1] == ')' {
		depth := 0
		for i := 0; i < len(d); i++ {
			switch d[i] {
			case '\'', '"':
				if e := stringEnd(d, i); e > 0 {
					i = e - 1
				}
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 && i < len(d)-1 {
				return d // the first ( closes before the end: (a) || (b)
			}
		}
		d = strings.TrimSpace(d[1 : len(d)-1])
	}
	return d
}
