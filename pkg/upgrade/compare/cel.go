package compare

import (
	"fmt"

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
