package replay

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/compare"
)

// Severities that follow the evidence. The comparison alone cannot know
// whether a tightening (a bound, an enum, a list type, a CEL rule, ...)
// refuses anything: only objects can, so without them it is an error
// (nothing shows it is safe). The Replayer judges each such change on the
// objects replayed in its version; when at least one was judged and none of
// them is broken by it, nothing that exists stops working, and the change
// is a warning saying how many objects were judged. An object that does
// break it keeps the error, at the object, and so does the change.

// judgedRules are the comparison's rules whose harm the replay observes
// on each object: a refusal of its create or its labels-only update, or a
// stored field pruned, at or below the change's field (Change.Field). A
// rule left out harms what objects cannot show: clients' requests (a
// version unserved or removed, a subresource removed, a selectable field
// removed, a scale path moved), the server's refusal of the CRD update
// (scope, kind, a stored version removed), writes a controller built for
// OLD makes (the status subresource added), or conversion (the webhook
// removed). Transition rules are judged too, but only a labels-only update
// of each object is replayed: the updates a transition rule is written to
// refuse are refused whatever the objects hold, so it stays an error
// (followsEvidence).
var judgedRules = map[string]bool{
	compare.RuleBoundTightened:         true,
	compare.RuleCELRuleAdded:           true,
	compare.RuleCELRuleChanged:         true,
	compare.RuleEmbeddedChanged:        true,
	compare.RuleEnumAdded:              true,
	compare.RuleEnumRemoved:            true,
	compare.RuleFieldRemoved:           true,
	compare.RuleFormatChanged:          true,
	compare.RuleIntOrStringRemoved:     true,
	compare.RuleJunctorChanged:         true,
	compare.RuleListTypeChanged:        true,
	compare.RuleMultipleOfChanged:      true,
	compare.RuleNullableRemoved:        true,
	compare.RulePatternChanged:         true,
	compare.RulePreserveUnknownRemoved: true,
	compare.RuleRequiredAdded:          true,
	compare.RuleRequiredAddedOptional:  true,
	compare.RuleTransitionRuleAdded:    true,
	compare.RuleTypeChanged:            true,
}

// followsEvidence says a change's severity follows the objects: a warning
// when some judged it and none is broken.
func followsEvidence(c compare.Change) bool {
	return judgedRules[c.Rule] && c.Severity == report.Error && (c.CEL == nil || !c.CEL.Transition)
}

// judgeKey identifies a change across the comparisons a Replayer makes.
// A field newly required under an optional parent becomes an error once
// an object sets the parent (Options.Present): both rules are one change.
type judgeKey struct {
	rule, version, oldVersion, path string
	inOld                           bool
}

func keyOf(c compare.Change) judgeKey {
	rule := c.Rule
	if rule == compare.RuleRequiredAddedOptional {
		rule = compare.RuleRequiredAdded
	}
	return judgeKey{rule, c.Version, c.OldVersion, c.Path, c.InOld}
}

// judgement is one change and what the objects said of it.
type judgement struct {
	change compare.Change
	// checked counts the objects judged in the change's version; set,
	// those of them that hold the field (setField).
	checked, set int
	// broken counts those it breaks; named names the first maxNamed (for
	// a CEL rule, with the rule's error).
	broken int
	named  []string
}

// setField is the field whose presence tells whether an object is
// concerned by the change: a newly required field's parent, else the
// change's field; nil when every object is.
func (j *judgement) setField() compare.DataPath {
	f := j.change.Field
	if keyOf(j.change).rule == compare.RuleRequiredAdded && len(f) > 0 {
		f = f[:len(f)-1]
	}
	return f
}

// name counts an object the change breaks and keeps the first maxNamed
// names in order: objects are replayed in parallel, and the message must
// not depend on which finished first.
func (j *judgement) name(s string) {
	j.broken++
	i, _ := slices.BinarySearch(j.named, s)
	if i < maxNamed {
		j.named = slices.Insert(j.named, i, s)
		j.named = j.named[:min(len(j.named), maxNamed)]
	}
}

// trace is what the replay of one object tells the judgements: where NEW's
// verdicts were judged against OLD's, and the fields of the harm found.
type trace struct {
	// stored is the object as OLD stores it, in version storedIn.
	stored   map[string]any
	storedIn string
	// create and update are the versions NEW's create and labels-only
	// update were judged in, "" when not judged or when OLD refuses them
	// too (then the object shows nothing about the upgrade).
	create, update string
	// harm are the fields of the refusals and data losses found
	// (upgrade-object-create-refused, -update-refused, -data-lost);
	// unplaced says one of them has no field (a decode error, a junctor's
	// or a root rule's refusal) and may be any change's doing.
	harm     []string
	unplaced bool
	// hidden are NEW's create errors that a refusal for unknown fields
	// (--validate=strict) kept from the findings: harm all the same.
	hidden []Outcome
	// explained are the errors (field and message) of the CEL rules the
	// replay evaluated alone on the object (judgeCEL): a refusal that is
	// one of them is that rule's, judged by its evaluation, and is blamed
	// on no other change, with or without a field (a rule on the root).
	explained map[string]bool
}

func errorKey(fld, msg string) string { return fld + "\x00" + msg }

// judges says the object was replayed where the change applies: its
// create or its update judged in the change's version; for a change of
// the storage pair (OLD's storage version read as NEW's), an object
// stored in OLD's and updated in NEW's. A change to status is judged only
// by objects that store a status: manifests have none (and the status
// subresource drops it from creates), so they show nothing about what
// controllers write there; objects read from a cluster do.
func (t *trace) judges(c compare.Change) bool {
	if c.Version == "" || (underStatus(c) && !compare.Has(t.stored, compare.DataPath{"status"})) {
		return false
	}
	if c.OldVersion != "" && c.OldVersion != c.Version {
		return t.storedIn == c.OldVersion && t.update == c.Version
	}
	return t.create == c.Version || t.update == c.Version
}

// underStatus says a change is about the object's status.
func underStatus(c compare.Change) bool {
	return len(c.Field) > 0 && c.Field[0] == "status"
}

// breaks says the object's harm may be the change's doing: a refusal or
// loss at or below its field, or one without a field; or, for nullable
// removed, a null stored there (dropped or refused from now on).
func (t *trace) breaks(c compare.Change) bool {
	if t.unplaced {
		return true
	}
	for _, h := range t.harm {
		if under(h, c.Field) {
			return true
		}
	}
	return c.Rule == compare.RuleNullableRemoved && compare.HasNull(t.stored, c.Field)
}

// addHarm records an outcome of the object's replay.
func (t *trace) addHarm(o Outcome) {
	switch o.Rule {
	case RuleObjectCreateRefused, RuleObjectUpdateRefused, RuleObjectDataLost:
	default:
		return
	}
	if t.explained[errorKey(o.Field, o.Message)] {
		return
	}
	if o.Field == "" || o.Field == "<nil>" {
		// The server's note that CEL rules were skipped sums up the
		// object's other errors, which are placed.
		if !isCELSkipped(o.Message) {
			t.unplaced = true
		}
		return
	}
	t.harm = append(t.harm, o.Field)
}

// isCELSkipped is the server's note that it did not run the CEL rules
// because of the object's other errors (pkg/lint's cr-cel-skipped).
func isCELSkipped(msg string) bool {
	return strings.Contains(msg, "some validation rules were not checked because the object was invalid")
}

// under says an object's field, in the server's notation (spec.ports[0].name,
// spec.labels[app], or a pruned path, whose map keys are joined with dots),
// is p or below it. A name of p may span several of the field's plain
// segments (a property or key holding dots); Any matches a list index or
// a map key, however many plain segments the key was split into. Where it
// cannot tell, it says yes: a refusal wrongly blamed keeps an error, one
// wrongly cleared would hide it.
func under(field string, p compare.DataPath) bool {
	return underSegs(source.ParsePath(field), p)
}

func underSegs(segs []source.Segment, p compare.DataPath) bool {
	if len(p) == 0 {
		return true
	}
	if len(segs) == 0 {
		return false
	}
	if p[0] == compare.Any {
		for i := range segs {
			if i > 0 && segs[i].Bracket {
				break
			}
			if underSegs(segs[i+1:], p[1:]) {
				return true
			}
		}
		return false
	}
	if segs[0].Bracket {
		return segs[0].Name == p[0] && underSegs(segs[1:], p[1:])
	}
	return dottedKeys(segs, func(key string, rest []source.Segment) bool {
		return key == p[0] && underSegs(rest, p[1:])
	})
}

// record judges every change on one replayed object.
func (r *Replayer) record(res *ObjectResult, t *trace) {
	name := res.Name
	for _, j := range r.judged {
		c := j.change
		if c.CEL != nil || !t.judges(c) {
			continue // CEL rules are evaluated by judgeCEL
		}
		j.checked++
		if f := j.setField(); len(f) == 0 || compare.Has(t.stored, f) {
			j.set++
		}
		if t.breaks(c) {
			j.name(name)
		}
	}
}

// judgedMessage replaces a change's "unknown without objects" with what
// the objects said: how many were judged, how many of them hold the
// field, and which it breaks. replayed is the number of objects of the
// kind replayed, to say why none judged it.
func judgedMessage(msg string, j *judgement, replayed int) string {
	for _, s := range []string{" (tightens; unknown without objects)", " (tightens or unknown without objects)"} {
		msg = strings.TrimSuffix(msg, s)
	}
	c := j.change
	switch {
	case j.checked == 0 && underStatus(c):
		return fmt.Sprintf("%s; not judged: no object read as %s and accepted by OLD stores a status (%s replayed; manifests have none, --live reads the cluster's)", msg, c.Version, report.Plural(replayed, "object"))
	case j.checked == 0:
		return fmt.Sprintf("%s; not judged: no object is read as %s and accepted by OLD (%s replayed)", msg, c.Version, report.Plural(replayed, "object"))
	}
	what := fmt.Sprintf("%s; judged on %s read as %s", msg, report.Plural(j.checked, "existing object"), c.Version)
	set := ""
	// Every object sets spec: saying so tells nothing.
	if f := j.setField(); len(f) > 0 && f.String() != "spec" {
		switch {
		case j.set == 0:
			set = fmt.Sprintf(" (none of them sets %s)", f)
		case j.set == j.checked && j.checked > 1:
			set = fmt.Sprintf(" (all of them set %s)", f)
		case j.set == 1:
			set = fmt.Sprintf(" (1 of them sets %s)", f)
		default:
			set = fmt.Sprintf(" (%d of them set %s)", j.set, f)
		}
	}
	named := strings.Join(j.named, "; ")
	if more := j.broken - len(j.named); more > 0 {
		named += fmt.Sprintf("; and %d more", more)
	}
	transition := c.CEL != nil && c.CEL.Transition
	switch {
	case j.broken == 0 && transition:
		return what + ": it refuses the labels-only update of none of them" + set + "; the updates it is written to refuse are refused whatever the objects hold"
	case j.broken == 0:
		return what + ": none of them breaks it" + set
	case transition:
		return fmt.Sprintf("%s: it refuses the labels-only update of %d: %s", what, j.broken, named)
	case c.CEL != nil:
		return fmt.Sprintf("%s: it refuses %d that OLD accepted: %s", what, j.broken, named)
	}
	return fmt.Sprintf("%s: %d of them may break it (see their findings): %s", what, j.broken, named)
}
