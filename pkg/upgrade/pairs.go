package upgrade

import (
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/compare"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/replay"
)

// CRD is one CRD of OLD or NEW: its document, where its findings are
// positioned, and its decoding.
type CRD struct {
	Doc *source.Document
	Def *crd.Definition
}

// FileCRDs takes the CRDs of one file of OLD (old) or NEW, counted in a
// Summary of one file. A CRD that does not decode has nothing to compare:
// it is reported as check reports it and left out. An
// apiextensions.k8s.io/v1beta1 CRD of OLD is what a cluster created
// through v1beta1 still stores: it is compared as the v1 CRD the server
// reads it as (oldV1beta1), with a warning. Documents that are not CRDs
// are counted as skipped.
func FileCRDs(f *source.File, l *lint.Linter, old bool) ([]CRD, []report.Finding, report.Summary) {
	sum := report.Summary{Files: 1, Documents: f.Count}
	fs := l.Loaded(f.Findings)
	sum.Add(f.Skips())
	var out []CRD
	for _, fd := range crd.FindCRDs(f) {
		sum.CRDs++
		sum.Check(lint.Checked(fd.Doc, ""))
		if fd.Def == nil && old {
			if def, warn := oldV1beta1(fd.Doc); def != nil {
				fs = append(fs, warn)
				fd.Def = def
			}
		}
		if fd.Def == nil || fd.Def.Object() == nil {
			fs = append(fs, l.CRD(fd.Doc, fd.Def)...)
			continue
		}
		out = append(out, CRD{fd.Doc, fd.Def})
	}
	for _, d := range f.Documents {
		if !crd.IsCRD(d) {
			sum.Skip("not a CRD")
			sum.Check(lint.Checked(d, "not a CRD"))
		}
	}
	return out, fs, sum
}

// oldV1beta1 is an apiextensions.k8s.io/v1beta1 CRD of OLD as the server
// reads it today (engine.CRDFromV1beta1), and the warning that says so;
// nil when d is not one or does not convert (check's error then says
// why).
func oldV1beta1(d *source.Document) (*crd.Definition, report.Finding) {
	if _, v := d.GroupVersion(); v != "v1beta1" {
		return nil, report.Finding{}
	}
	js, err := engine.CRDFromV1beta1(d.JSON)
	if err != nil {
		return nil, report.Finding{}
	}
	def := crd.Decode(js)
	if def.Object() == nil {
		return nil, report.Finding{}
	}
	pos, _ := d.Locate("metadata.name")
	def.Origin = &crd.Origin{File: d.File, Document: d.Index, Line: pos.Line, Column: pos.Column, Object: d.Object}
	msg := "OLD's CRD is apiextensions.k8s.io/v1beta1, which no supported Kubernetes release serves (removed in 1.22): compared as the apiextensions.k8s.io/v1 CRD a cluster that created it through v1beta1 stores"
	if o := def.Object(); o.Spec.PreserveUnknownFields {
		msg += " (spec.preserveUnknownFields: true, v1beta1's default: the cluster has kept every field its objects were given, schema or not)"
	}
	return def, lint.At(d, RuleOldV1beta1, report.Warning, "apiVersion", msg)
}

// perVersion are the v1 paths of what a v1beta1 CRD may give once for
// every version, under spec, as the conversion to v1 moves them.
var perVersion = regexp.MustCompile(`^spec\.versions\[\d+\]\.(schema\.openAPIV3Schema|subresources|additionalPrinterColumns)(.*)$`)

// inV1beta1 is where a path of OLD's CRD, as compared (v1), is written in
// a v1beta1 document: the top-level validation, subresources or columns
// a version of it does not give itself; the path unchanged otherwise.
func inV1beta1(d *source.Document, path string) string {
	if _, v := d.GroupVersion(); v != "v1beta1" {
		return path
	}
	m := perVersion.FindStringSubmatch(path)
	if m == nil {
		return path
	}
	if _, exact := d.Locate(path); exact {
		return path
	}
	top := map[string]string{"schema.openAPIV3Schema": "spec.validation.openAPIV3Schema", "subresources": "spec.subresources", "additionalPrinterColumns": "spec.additionalPrinterColumns"}[m[1]]
	return top + m[2]
}

// JudgeOptions are what Judge needs beyond the CRDs.
type JudgeOptions struct {
	// OldName names where OLD comes from in the finding about a CRD of
	// NEW that OLD lacks: "the cluster" with --live; "OLD" when empty.
	OldName string
	// StoredVersions replaces the status.storedVersions of every CRD of
	// OLD, when OLD's file cannot say.
	StoredVersions []string
	// Validate is the field validation of the requests judged (kubectl's
	// --validate; the zero value is Warn): under Strict, NEW with an
	// unknown field is a refused CRD update, and a replayed create of a
	// manifest with a field the CRD's schema does not know is refused.
	// It must be the linter's.
	Validate fieldvalidation.Directive
	// Objects lists the objects replayed in their summaries
	// (Summary.Checked), for JUnit; off, they are only counted, so that
	// a replay of a cluster's objects holds a page at a time.
	Objects bool
	// ConfigKinds are the configuration's configKinds: objects of these
	// kinds are tool configuration, skipped as check skips them.
	ConfigKinds *crd.ConfigKinds
}

// Pair is a CRD of NEW with its OLD, judged.
type Pair struct {
	Old, New CRD
	verdict  *engine.CRDVerdict
	replayer *replay.Replayer
	// refused are the comparison rules the server's verdict reports
	// (compare.ServerRule): their changes are left out, so that each refusal is
	// reported once.
	refused map[string]bool
}

// Pairs are the upgrade of a set of CRDs: NEW's CRDs, in NEW's order, each
// with its OLD, and the replay of the objects that exist today through
// them. Objects of different files may be replayed concurrently.
type Pairs struct {
	List   []*Pair
	byKind map[schema.GroupKind]*Pair
	// l reads the objects' files as it reads the CRDs'.
	l        *lint.Linter
	validate fieldvalidation.Directive
	// objects: JudgeOptions.Objects.
	objects bool
	// config: JudgeOptions.ConfigKinds.
	config *crd.ConfigKinds
}

// Judge pairs OLD's CRDs with NEW's by name, reports the CRDs of one side
// only, and asks the server about each pair's update: its findings, in
// NEW, with the rule ID of the comparison for the refusals the comparison
// knows too. It prepares the replay.
func Judge(l *lint.Linter, oldCRDs, newCRDs []CRD, opts JudgeOptions) (*Pairs, []report.Finding) {
	if opts.OldName == "" {
		opts.OldName = "OLD"
	}
	byName := map[string]CRD{}
	for _, c := range oldCRDs {
		byName[c.Def.Name()] = c
	}
	ps := &Pairs{byKind: map[schema.GroupKind]*Pair{}, l: l, validate: opts.Validate, objects: opts.Objects, config: opts.ConfigKinds}
	var out []report.Finding
	paired := map[string]bool{}
	for _, n := range newCRDs {
		name := n.Def.Name()
		oc, ok := byName[name]
		if !ok {
			out = append(out, lint.At(n.Doc, RuleCRDUnpaired, report.Warning, "metadata.name",
				opts.OldName+" has no CRD "+name+": applying NEW installs it, there is nothing to upgrade"))
			continue
		}
		paired[name] = true
		ps.List = append(ps.List, &Pair{Old: oc, New: n})
	}
	for _, c := range oldCRDs {
		if !paired[c.Def.Name()] {
			out = append(out, lint.At(c.Doc, RuleCRDUnpaired, report.Warning, "metadata.name",
				"NEW has no CRD "+c.Def.Name()+": applying NEW leaves it as it is (deleting it would delete all its objects)"))
		}
	}
	for _, p := range ps.List {
		out = append(out, p.judge(l, opts)...)
		c := p.Old.Def.Object()
		ps.byKind[schema.GroupKind{Group: c.Spec.Group, Kind: c.Spec.Names.Kind}] = p
	}
	return ps, out
}

// judge asks the server about the update and prepares the replay.
func (p *Pair) judge(l *lint.Linter, opts JudgeOptions) []report.Finding {
	if len(opts.StoredVersions) > 0 {
		p.Old.Def.Object().Status.StoredVersions = opts.StoredVersions
	}
	p.verdict = crd.ValidateUpdate(p.Old.Def, p.New.Def)
	p.refused = map[string]bool{}
	var out []report.Finding
	for _, f := range l.CRDUpdate(p.New.Doc, p.New.Def, p.verdict) {
		if r := compare.ServerRule(f.Field, f.Message); r != "" && f.Severity == report.Error {
			f.Rule = r
			p.refused[r] = true
		}
		out = append(out, f)
	}
	p.replayer = replay.New(p.Old.Def.Object(), p.New.Def.Object(), replay.Options{StoredVersions: opts.StoredVersions, Validate: opts.Validate})
	return out
}

// File replays the custom resources of a file of objects that exist
// today, each with the pair whose OLD defines its kind; documents that
// are not custom resources are counted as skipped.
func (ps *Pairs) File(f *source.File) ([]report.Finding, report.Summary) {
	sum := report.Summary{Documents: f.Count}
	sum.Add(f.Skips())
	fs := ps.l.Loaded(f.Findings)
	for _, d := range f.Documents {
		more, ok := ps.replayDoc(d, false, nil)
		why := ""
		if ok {
			sum.CustomResources++
		} else {
			// Why check would skip it (a built-in kind, tool
			// configuration, the configuration's configKinds).
			why = crd.Classify(d, ps.config).Skip()
			if why == "" {
				why = "not a custom resource"
			}
			sum.Skip(why)
		}
		if ps.objects {
			sum.Check(lint.Checked(d, why))
		}
		fs = append(fs, more...)
	}
	return fs, sum
}

// Stored replays an object read from storage (a cluster), which its
// clients wrote in the versions writtenIn.
func (ps *Pairs) Stored(f *source.File, writtenIn []string) ([]report.Finding, report.Summary) {
	var fs []report.Finding
	sum := report.Summary{Documents: f.Count, CustomResources: len(f.Documents)}
	for _, d := range f.Documents {
		more, _ := ps.replayDoc(d, true, writtenIn)
		fs = append(fs, more...)
		if ps.objects {
			sum.Check(lint.Checked(d, ""))
		}
	}
	return fs, sum
}

// replayDoc replays one document; ok is false for a document that is not a
// custom resource.
func (ps *Pairs) replayDoc(d *source.Document, stored bool, writtenIn []string) ([]report.Finding, bool) {
	if crd.Classify(d, ps.config) != crd.ClassCustomResource {
		return nil, false
	}
	gk := crd.GVK(d).GroupKind()
	p := ps.byKind[gk]
	if p == nil {
		return []report.Finding{lint.At(d, replay.RuleObjectNotReplayed, report.Warning, "kind",
			fmt.Sprintf("no CRD of OLD defines kind %s: the object is not replayed", gk))}, true
	}
	obj, ok := d.TakeValue()
	if !ok {
		if err := utiljson.Unmarshal(d.JSON, &obj); err != nil {
			return []report.Finding{lint.At(d, replay.RuleObjectNotReplayed, report.Warning, "", "the object does not decode: "+err.Error())}, true
		}
	}
	r := p.replayer.Replay(replay.Object{Value: obj, Stored: stored, WrittenIn: writtenIn})
	out := make([]report.Finding, 0, len(r.Outcomes))
	for _, oc := range r.Outcomes {
		out = append(out, lint.At(d, oc.Rule, oc.Severity, oc.Field, oc.Message))
	}
	return out, true
}

// Report is what the replay leaves to say, once every object is
// replayed: the comparison's changes with the CEL changes judged on the
// objects, positioned in NEW (or OLD for what was removed), and each
// CRD's summary.
func (ps *Pairs) Report() ([]report.Finding, []report.UpgradeSummary) {
	var fs []report.Finding
	var sums []report.UpgradeSummary
	for _, p := range ps.List {
		for _, c := range p.replayer.Changes() {
			if p.refused[c.Rule] {
				continue
			}
			d, path := p.New.Doc, c.Path
			if c.InOld {
				d, path = p.Old.Doc, inV1beta1(p.Old.Doc, c.Path)
			}
			fs = append(fs, lint.At(d, c.Rule, c.Severity, path, c.Message))
		}
		s := p.replayer.Summary()
		s.UpdateRefused = p.verdict.Rejected(ps.validate.Refuses())
		sums = append(sums, s)
	}
	return fs, sums
}

// CountBreaking sets each summary's BreakingChanges from the findings as
// the run reports them (configuration and suppressions applied): the
// comparison's changes that are errors on its CRD. The summary then says
// what fails the run beside the objects, and never "none broken" alone
// for a run that exits 1 on the CRDs' changes.
func CountBreaking(sums []report.UpgradeSummary, fs []report.Finding) {
	at := make(map[string]int, len(sums))
	for i := range sums {
		sums[i].BreakingChanges = 0
		at[sums[i].CRD] = i
	}
	for _, f := range fs {
		i, ok := at[f.Object.Name]
		if !ok || !changeRule[f.Rule] || f.Severity != report.Error || f.Suppressed != nil ||
			f.Object.Kind != "CustomResourceDefinition" {
			continue
		}
		sums[i].BreakingChanges++
	}
}

// changeRule says a rule ID is the comparison's.
var changeRule = func() map[string]bool {
	m := make(map[string]bool, len(compare.Rules))
	for _, r := range compare.Rules {
		m[r.ID] = true
	}
	return m
}()
