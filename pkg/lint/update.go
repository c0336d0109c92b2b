package lint

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/immutable"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// PairKey identifies an object across revisions: by group, not version,
// as the server does (an object written as v1alpha1 and updated as
// v1beta1 is one object, read back in the request's version).
type PairKey struct{ Group, Kind, Namespace, Name string }

func (k PairKey) name() string {
	if k.Namespace != "" {
		return k.Namespace + "/" + k.Name
	}
	return k.Name
}

// Revision is the custom resources of one revision of a set of objects
// (OLD or NEW of an update), in order, keyed for pairing.
type Revision struct {
	Docs  map[PairKey]*source.Document
	Order []PairKey
	// Files and Documents count what was read.
	Files, Documents int
	// Skips counts what is no custom resource: whole files (Skip) and
	// documents (not objects, built-in kinds, tool configuration), by
	// reason, as check counts them.
	Skips report.Summary
	// Findings are its files' text's own problems (source.File.Findings,
	// repeated keys aside): a document kubectl cannot send is no object
	// of the revision, and the run says why rather than pass over it.
	Findings []report.Finding

	config *crd.ConfigKinds
}

// NewRevision returns an empty revision; config are the configuration
// kinds beyond the well-known ones (crd.Catalog.ConfigKinds; nil: none).
func NewRevision(config *crd.ConfigKinds) *Revision {
	return &Revision{Docs: map[PairKey]*source.Document{}, config: config}
}

// Add takes a file's custom resources into the revision; a later object
// of the same key replaces an earlier one.
func (r *Revision) Add(f *source.File) {
	r.Files++
	r.Documents += f.Count
	r.Skips.Add(f.Skips())
	for _, fd := range f.Findings {
		if fd.Rule != source.RuleDuplicate {
			r.Findings = append(r.Findings, fd)
		}
	}
	for _, d := range f.Documents {
		switch class := crd.Classify(d, r.config); class {
		case crd.ClassCustomResource:
			r.AddDoc(d)
		case crd.ClassBuiltin, crd.ClassConfig:
			r.Skips.Skip(class.Skip())
		}
	}
}

// Skip counts a file that is not manifests (input.Judging.Skipped).
func (r *Revision) Skip(reason string) {
	r.Files++
	r.Skips.Skip(reason)
}

// AddDoc takes one object into the revision.
func (r *Revision) AddDoc(d *source.Document) {
	g, _ := d.GroupVersion()
	r.Put(PairKey{g, d.Object.Kind, d.Object.Namespace, d.Object.Name}, d)
}

// Put takes one object into the revision under a key of its counterpart
// (a live object read for an object of NEW that names no namespace).
func (r *Revision) Put(k PairKey, d *source.Document) {
	if _, dup := r.Docs[k]; !dup {
		r.Order = append(r.Order, k)
	}
	r.Docs[k] = d
}

// Updates pairs the objects of two revisions and judges each update as
// the server would; objects only in one of them are reported. Objects of
// NEW that name no namespace are in defaultNS.
func (l *Linter) Updates(oldRev, newRev *Revision, defaultNS string) []report.Finding {
	// The texts' own problems, NEW's and then OLD's; once when OLD and
	// NEW are the same files (immutable . .).
	out := append([]report.Finding(nil), newRev.Findings...)
	type at struct {
		file, rule   string
		line, column int
	}
	seen := map[at]bool{}
	for _, f := range newRev.Findings {
		seen[at{f.File, f.Rule, f.Line, f.Column}] = true
	}
	for _, f := range oldRev.Findings {
		if !seen[at{f.File, f.Rule, f.Line, f.Column}] {
			out = append(out, f)
		}
	}
	for _, k := range newRev.Order {
		nd := newRev.Docs[k]
		od, ok := oldRev.Docs[k]
		if !ok {
			out = append(out, finding(nd, RuleUpdateUnpaired, report.Warning, "",
				fmt.Sprintf("%s %s is only in the new revision: a create, not an update", k.Kind, k.name())))
			continue
		}
		out = append(out, l.Update(od, nd, defaultNS)...)
	}
	for _, k := range oldRev.Order {
		if _, ok := newRev.Docs[k]; !ok {
			od := oldRev.Docs[k]
			out = append(out, finding(od, RuleUpdateUnpaired, report.Warning, "",
				fmt.Sprintf("%s %s is only in the old revision: the new revision does not update it", k.Kind, k.name())))
		}
	}
	return out
}

// Update is the server's verdict on updating od to nd (a PUT of nd over
// od as stored), and the Immutable Fields design's markers.
func (l *Linter) Update(od, nd *source.Document, defaultNS string) []report.Finding {
	gvk := crd.GVK(nd)
	v, err := l.opts.Catalog.LookupAt(gvk, nd.File)
	if err != nil {
		return l.lookupFindings(nd, err)
	}
	var oldObj, newObj map[string]any
	if err := utiljson.Unmarshal(od.JSON, &oldObj); err != nil {
		return []report.Finding{finding(od, RuleCRDecode, report.Error, "", err.Error())}
	}
	if err := utiljson.Unmarshal(nd.JSON, &newObj); err != nil {
		return []report.Finding{finding(nd, RuleCRDecode, report.Error, "", err.Error())}
	}
	ns := nd.Object.Namespace
	if ns == "" {
		ns = defaultNS
	}
	update := v.Update
	// An object written in a version other than the storage version is
	// stored converted and pruned by the storage version's schema, and
	// read back converted: followed offline under the None strategy, and
	// when the update changes version (a webhook CRD then leaves the
	// update unjudged). Written and updated in the storage version, it is
	// stored as decoded, and Update reads it so.
	_, ov := od.GroupVersion()
	e := l.opts.Catalog.EntryAt(gvk, nd.File)
	if ov != gvk.Version || (e != nil && e.CRD() != nil && ov != e.StorageVersion() && !e.ConvertsByWebhook()) {
		f, ok := l.converted(nd, ov, oldObj)
		if !ok {
			return f
		}
		// The old object is as storage reads it, defaulted in the
		// storage version (UpdateFromStorage).
		update = v.UpdateFromStorage
	}
	vd := update(oldObj, newObj, ns)
	if vd.Panic != "" {
		return []report.Finding{finding(nd, RuleCRServerPanic, report.Error, "", "Internal error occurred: "+vd.Panic)}
	}
	if vd.DecodeError != nil {
		return []report.Finding{finding(nd, RuleCRDecode, report.Error, "",
			fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", v.GVK.Kind, v.GVK.Version, v.GVK.Kind, vd.DecodeError))}
	}
	// The new object is the request's body: its unknown fields are the
	// field validation's, as on a create.
	out, refused := l.unknown(nd, vd.Unknown, unknownMessages(vd.Unknown))
	if refused {
		return out
	}
	var celErrs map[string]bool
	if len(vd.Errors) > 0 {
		celErrs = v.CELErrors(vd.Object.Object, oldObj)
	}
	out = append(out, errorFindings(nd, vd.Errors, func(e *field.Error) string {
		if celErrs[e.Error()] {
			return RuleUpdateCEL
		}
		return RuleUpdateInvalid
	}, RuleCRCELSkipped)...)
	if e != nil && e.Def.Markers != nil {
		out = append(out, l.markerFindings(e.Def, v, od, nd, oldObj, newObj)...)
	}
	return out
}

// converted is oldObj, written as version ov, read back in nd's version
// (changed in place), as the server reads the object an update starts
// from when either is not the storage version: the create's request
// decoded in ov (pruned, defaulted), converted to the storage version by
// the CRD's None strategy (apiVersion relabelled, pruned by that
// version's schema) and stored; read back, defaulted in the storage
// version by the storage decoder, then converted to nd's version
// (relabelled, pruned, not defaulted again: UpdateFromStorage). A CRD
// that converts by webhook leaves the update unjudged, said in a
// warning: crdlint cannot call the webhook.
func (l *Linter) converted(nd *source.Document, ov string, oldObj map[string]any) ([]report.Finding, bool) {
	gvk := crd.GVK(nd)
	notJudged := func(why string) ([]report.Finding, bool) {
		what := fmt.Sprintf("%s is %s in the old revision and %s in the new one", nd.Object.String(), ov, gvk.Version)
		if ov == gvk.Version {
			what = fmt.Sprintf("%s is %s, which is not the storage version", nd.Object.String(), ov)
		}
		return []report.Finding{finding(nd, RuleUpdateUnpaired, report.Warning, "apiVersion",
			fmt.Sprintf("%s: %s; the update is not judged", what, why))}, false
	}
	e := l.opts.Catalog.EntryAt(gvk, nd.File)
	if e == nil || e.CRD() == nil {
		return notJudged("no CRD serves it")
	}
	// The create, decoded in ov; then stored and read back as storage
	// does (crd.Entry.RoundTrip).
	// The CRD that judges the new object judges the old one too, in
	// whatever version it was written (LookupIn: never another CRD).
	// A version it does not serve could not have created OLD: not judged,
	// and said why, rather than judged as if stored.
	ovv, err := l.opts.Catalog.LookupIn(e, schema.GroupVersionKind{Group: gvk.Group, Version: ov, Kind: gvk.Kind})
	if err != nil {
		return notJudged(err.Error())
	}
	if _, err := ovv.Read(oldObj); err != nil {
		return notJudged(err.Error())
	}
	if _, err := e.RoundTrip(oldObj, ov, gvk.Version, true); err != nil {
		return notJudged(err.Error())
	}
	return nil, true
}

// markerSchemas keeps each CRD version's marker schema, parsed once per
// run from the CRD as written (the server's decoder drops the markers).
var markerSchemas sync.Map // markerKey -> *immutable.Schema (nil: none)

type markerKey struct {
	def     *crd.Definition
	version string
}

// markerFindings compares the stored revisions under the CRD's
// x-kubernetes-mutability markers.
func (l *Linter) markerFindings(def *crd.Definition, v *engine.Version, od, nd *source.Document, oldObj, newObj map[string]any) []report.Finding {
	k := markerKey{def, v.GVK.Version}
	cached, ok := markerSchemas.Load(k)
	if !ok {
		s, err := immutable.FromObject(def.Markers, v.GVK.Version)
		if err != nil {
			s = nil
		}
		cached, _ = markerSchemas.LoadOrStore(k, s)
	}
	s := cached.(*immutable.Schema)
	if s == nil {
		return nil
	}
	var out []report.Finding
	for _, vi := range immutable.Compare(s, oldObj, newObj) {
		d := nd
		if _, exact := nd.Locate(vi.Path); !exact {
			if _, inOld := od.Locate(vi.Path); inOld {
				d = od // a removed field: point at it in OLD
			}
		}
		msg := fmt.Sprintf("%s (%s: %s)", vi.Message, vi.Rule, vi.Value)
		out = append(out, finding(d, RuleUpdateImmutable, report.Error, vi.Path, msg))
	}
	return out
}

// Counterparts is the old revision of newRev's objects when it is read
// elsewhere (a cluster): get returns each object's counterpart, nil for
// one that does not exist there (a create, reported when pairing). The
// counterparts are keyed as in newRev so that they pair whatever
// namespace get found them in, and each counts as a file read.
func Counterparts(newRev *Revision, get func(k PairKey, d *source.Document) (*source.Document, error)) (*Revision, error) {
	r := NewRevision(newRev.config)
	for _, k := range newRev.Order {
		od, err := get(k, newRev.Docs[k])
		if err != nil {
			return nil, err
		}
		if od == nil {
			continue
		}
		r.Files++
		r.Documents++
		r.Put(k, od)
	}
	return r, nil
}

// UpdateSummary counts a judging of the updates from oldRev to newRev:
// the files and documents read, and the updates judged (the objects of
// newRev that oldRev has too). With live, oldRev's objects were read from
// a cluster and count as objects, not files. It lists newRev's objects,
// where the findings of their updates are.
func UpdateSummary(oldRev, newRev *Revision, live bool) report.Summary {
	sum := report.Summary{Files: oldRev.Files + newRev.Files, Documents: oldRev.Documents + newRev.Documents}
	sum.Add(oldRev.Skips)
	sum.Add(newRev.Skips)
	if live {
		sum.Files, sum.Objects, sum.Live = newRev.Files, oldRev.Files, true
	}
	for _, k := range newRev.Order {
		if _, ok := oldRev.Docs[k]; ok {
			sum.CustomResources++
		}
		sum.Check(Checked(newRev.Docs[k], ""))
	}
	return sum
}
