package replay

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/compare"
)

// The replay: the custom resources that exist under OLD, put through what
// the server does to them once NEW is applied. Each object is taken as
// OLD stores it (created under OLD: pruned and defaulted in its version,
// converted to OLD's storage version as the None strategy does), then
// under NEW:
//
//   - a create of the same manifest (new objects made from the same
//     templates);
//   - its next update, one that changes only metadata.labels as a
//     controller's write does: the stored object read back under NEW
//     (decoded with NEW's schema of the version it is stored in, converted
//     to the manifest's version), the label added, and the update judged
//     with the server's ratcheting, so that unchanged invalid values pass
//     as on a real server;
//   - the stored fields NEW prunes on that write (data loss);
//   - whether the version it is stored in stays in NEW.
//
// OLD's verdicts on the same create and update are computed too: a
// refusal is reported only where OLD accepted (something that works today
// stops working). A conversion webhook cannot be called offline: an object
// that would need one is reported as not replayed, never guessed.

// Replay rule IDs: findings about existing objects, positioned in the
// objects' files. Like the comparison's, never renamed or reused.
const (
	RuleObjectCreateRefused     = "upgrade-object-create-refused"
	RuleObjectDataLost          = "upgrade-object-data-lost"
	RuleObjectNotReplayed       = "upgrade-object-not-replayed"
	RuleObjectRefusedByOld      = "upgrade-object-refused-by-old"
	RuleObjectStoredVersionGone = "upgrade-object-stored-version-removed"
	RuleObjectUpdateRefused     = "upgrade-object-update-refused"
	RuleObjectVersionUnserved   = "upgrade-object-version-unserved"
)

// Rules are the replay's rules, sorted by ID, each with its severity and
// a line of doc; their Why and Fix are the command's (upgrade.Rules).
var Rules = []report.Rule{
	{ID: RuleObjectCreateRefused, Severity: report.Error, Doc: "upgrade: NEW refuses a create of an existing object's manifest that OLD accepts (new objects from the same templates fail); the server's message."},
	{ID: RuleObjectDataLost, Severity: report.Error, Doc: "upgrade: NEW prunes a field an existing object has stored: the value is gone at the object's next write."},
	{ID: RuleObjectNotReplayed, Severity: report.Warning, Doc: "upgrade: an existing object cannot be replayed offline (a conversion webhook would convert it, or OLD does not serve or decode it); nothing is said about it."},
	{ID: RuleObjectRefusedByOld, Severity: report.Warning, Doc: "upgrade: OLD refuses the object too (its create or its update): what NEW refuses of it is not a change and is not reported."},
	{ID: RuleObjectStoredVersionGone, Severity: report.Error, Doc: "upgrade: an existing object is stored in a version NEW removes: the server refuses the CRD update until the object is rewritten in another version."},
	{ID: RuleObjectUpdateRefused, Severity: report.Error, Doc: "upgrade: NEW refuses an update of an existing object that changes only its labels, with ratcheting, where OLD accepts it (controllers cannot write it); the server's message."},
	{ID: RuleObjectVersionUnserved, Severity: report.Error, Doc: "upgrade: an existing object's manifest is in a version NEW does not serve: creates, reads and updates in it fail."},
}

// controllerWrite is the field validation of the replayed update: a
// controller's client (client-go) names none, so the server's default,
// Warn, applies whatever --validate says of manifests.
const controllerWrite = fieldvalidation.Warn

// Label is the label the replayed update adds, as a controller's write
// changes labels only.
const Label = "kubectl-crdlint/replay"

// Outcome is one finding about a replayed object.
type Outcome struct {
	Rule     string          `json:"rule"`
	Severity report.Severity `json:"severity"`
	// Field is the place in the object, in the server's notation ("" for
	// the object as a whole; "<nil>" for the server's root-level errors).
	Field   string `json:"field"`
	Message string `json:"message"`
}

// ObjectResult is what the replay found for one object: its outcomes, and
// NEW's verdicts as the server would give them, for callers that compare
// with a real server.
type ObjectResult struct {
	// Name is namespace/name, or name.
	Name string `json:"name"`
	// Version is the manifest's version; Stored the version it is taken
	// to be stored in under OLD.
	Version string `json:"version"`
	Stored  string `json:"stored"`
	// Outcomes are the findings, in the order found.
	Outcomes []Outcome `json:"outcomes,omitempty"`
	// CreateJudged says NEW's create verdict was computed; CreateErrors
	// are its errors (field.Error.Error()), none when NEW accepts.
	CreateJudged bool     `json:"createJudged"`
	CreateErrors []string `json:"createErrors,omitempty"`
	// UpdateJudged and UpdateErrors: the labels-only update under NEW, in
	// UpdateVersion.
	UpdateJudged  bool     `json:"updateJudged"`
	UpdateVersion string   `json:"updateVersion,omitempty"`
	UpdateErrors  []string `json:"updateErrors,omitempty"`
	// Pruned are the stored fields NEW drops at the next write.
	Pruned []string `json:"pruned,omitempty"`
}

// Replayer replays the existing objects of one CRD through its upgrade
// from OLD to NEW, and judges the CEL rule changes on them. It is safe for
// concurrent use: objects can be replayed a page at a time, in parallel,
// and are not kept.
type Replayer struct {
	old, new *apiextensionsv1.CustomResourceDefinition
	opts     Options
	gk       schema.GroupKind
	// oldStorage and newStorage are the storage versions.
	oldStorage, newStorage string

	mu       sync.Mutex
	versions map[versionKey]*compiled
	// queries are the Present questions the comparison asks, answered
	// by the objects seen.
	queries map[presentKey]bool
	// judged are the changes the objects judge (judgedRules), by key.
	judged  []*judgement
	byKey   map[judgeKey]*judgement
	summary report.UpgradeSummary
}

type versionKey struct {
	new  bool
	name string
}

type compiled struct {
	v   *engine.Version
	err error
}

type presentKey struct {
	version string
	field   string // compare.DataPath joined
}

// maxNamed bounds the objects a judged change names.
const maxNamed = 5

// Options tune the replay. The zero value replays with OLD's own
// status.storedVersions and the server's default field validation.
type Options struct {
	// StoredVersions overrides OLD's status.storedVersions, as in
	// compare.Options.
	StoredVersions []string
	// Validate is the field validation of the creates the replay judges
	// (kubectl's --validate; the zero value is Warn, the server's
	// default): under Strict a manifest with a field the version's schema
	// does not know is refused.
	Validate fieldvalidation.Directive
}

// New prepares a replay of OLD's objects into NEW. Both are CRDs as the
// server stores them (decoded and defaulted); they are copied, not kept.
// The objects answer the comparison's Present question (Changes).
func New(old, new *apiextensionsv1.CustomResourceDefinition, opts Options) *Replayer {
	r := &Replayer{
		old: old.DeepCopy(), new: new.DeepCopy(), opts: opts,
		gk:       schema.GroupKind{Group: old.Spec.Group, Kind: old.Spec.Names.Kind},
		versions: map[versionKey]*compiled{},
		queries:  map[presentKey]bool{},
		byKey:    map[judgeKey]*judgement{},
	}
	r.oldStorage, r.newStorage = storageVersion(r.old), storageVersion(r.new)
	r.summary.CRD = old.Name
	// A dry run of the comparison: the questions it asks Present, and
	// the changes the objects judge.
	dry := compare.Options{StoredVersions: r.opts.StoredVersions}
	dry.Present = func(version string, p compare.DataPath) bool {
		r.queries[presentKey{version, strings.Join(p, "\x00")}] = false
		return false
	}
	for _, c := range compare.Revisions(r.old, r.new, dry) {
		if judgedRules[c.Rule] {
			j := &judgement{change: c}
			r.judged = append(r.judged, j)
			r.byKey[keyOf(c)] = j
		}
	}
	return r
}

func storageVersion(c *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range c.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

func versionSpec(c *apiextensionsv1.CustomResourceDefinition, name string) *apiextensionsv1.CustomResourceDefinitionVersion {
	for i := range c.Spec.Versions {
		if c.Spec.Versions[i].Name == name {
			return &c.Spec.Versions[i]
		}
	}
	return nil
}

func convertsByWebhook(c *apiextensionsv1.CustomResourceDefinition) bool {
	return c.Spec.Conversion != nil && c.Spec.Conversion.Strategy == apiextensionsv1.WebhookConverter
}

// version compiles a version of OLD or NEW once.
func (r *Replayer) version(isNew bool, name string) (*engine.Version, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := versionKey{isNew, name}
	if c, ok := r.versions[k]; ok {
		return c.v, c.err
	}
	src := r.old
	if isNew {
		src = r.new
	}
	c := &compiled{}
	c.v, c.err = crd.CompileVersion(src, name)
	r.versions[k] = c
	return c.v, c.err
}

// Object is an existing object to replay.
type Object struct {
	// Value is the object decoded as the server decodes JSON
	// (k8s.io/apimachinery/pkg/util/json: integers are int64). Replay does
	// not change it.
	Value map[string]any
	// Stored says Value is the object as a cluster stores it, read in
	// OLD's storage version with the metadata the server sets, rather than
	// a manifest to create under OLD.
	Stored bool
	// WrittenIn are other versions clients write the object in (a live
	// object's managedFields): a version NEW does not serve breaks them.
	WrittenIn []string
}

// Replay replays one object of OLD's kind.
func (r *Replayer) Replay(o Object) *ObjectResult {
	res, t := r.replay(o)
	r.mu.Lock()
	defer r.mu.Unlock()
	if t != nil {
		for _, o := range append(res.Outcomes, t.hidden...) {
			t.addHarm(o)
		}
		r.record(res, t)
	}
	r.summary.Objects++
	var create, update, lost, not bool
	for _, o := range res.Outcomes {
		switch o.Rule {
		case RuleObjectCreateRefused:
			create = true
		case RuleObjectUpdateRefused:
			update = true
		case RuleObjectVersionUnserved, RuleObjectStoredVersionGone:
			create, update = true, true
		case RuleObjectDataLost:
			lost = true
		case RuleObjectNotReplayed:
			not = true
		}
	}
	r.summary.WouldFailCreate += b2i(create)
	r.summary.WouldFailUpdate += b2i(update)
	r.summary.WouldLoseData += b2i(lost)
	r.summary.NotReplayed += b2i(not)
	return res
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// replay replays one object; the trace is nil when it was not replayed
// under NEW.
func (r *Replayer) replay(o Object) (*ObjectResult, *trace) {
	obj, stored := runtime.DeepCopyJSON(o.Value), o.Stored
	gv, _ := schema.ParseGroupVersion(str(obj["apiVersion"]))
	res := &ObjectResult{Name: objectName(obj), Version: gv.Version}
	add := func(rule, fld, format string, a ...any) {
		res.Outcomes = append(res.Outcomes, Outcome{Rule: rule, Severity: replaySeverity[rule], Field: fld, Message: fmt.Sprintf(format, a...)})
	}
	if gv.Group != r.gk.Group || str(obj["kind"]) != r.gk.Kind {
		add(RuleObjectNotReplayed, "kind", "not a %s of %s", r.gk.Kind, r.gk.Group)
		return res, nil
	}
	vm := gv.Version
	ns := namespace(obj, r.old)
	manifest := obj
	if stored {
		manifest = asManifest(obj)
	}

	// Under OLD: its create and the object as stored.
	oldCreate, storedObj, s, ok := r.storeUnderOld(obj, manifest, stored, vm, ns, add)
	if !ok {
		return res, nil
	}
	res.Stored = s
	// A manifest OLD refuses cannot exist as written: it judges nothing.
	// A stored object exists whatever OLD says of its manifest now.
	t := &trace{stored: storedObj, storedIn: s}
	judges := stored || len(oldCreate) == 0
	r.answer(s, storedObj)
	if vm != s {
		r.answer(vm, manifest)
	}

	// The stored version under NEW.
	if versionSpec(r.new, s) == nil {
		add(RuleObjectStoredVersionGone, "apiVersion", "stored as %s, which NEW removes from spec.versions: the server refuses the CRD update until the object is rewritten in another version and %s leaves status.storedVersions", s, s)
		return res, nil
	}

	// Versions clients write the object in.
	for _, w := range o.WrittenIn {
		if sv := versionSpec(r.new, w); w != vm && (sv == nil || !sv.Served) {
			add(RuleObjectVersionUnserved, "apiVersion", "written in %s (its managedFields): %s", w, r.unservedMessage(w))
		}
	}

	// A create of the same manifest under NEW.
	if sv := versionSpec(r.new, vm); sv == nil || !sv.Served {
		add(RuleObjectVersionUnserved, "apiVersion", "%s", r.unservedMessage(vm))
	} else if v, err := r.version(true, vm); err != nil {
		add(RuleObjectNotReplayed, "", "NEW cannot serve version %s: %v", vm, err)
	} else {
		vd := v.Create(runtime.DeepCopyJSON(manifest), ns)
		res.CreateJudged = true
		res.CreateErrors = verdictErrors(vd, r.opts.Validate)
		// Refused by OLD too: said once, by storeUnderOld.
		if len(res.CreateErrors) > 0 && len(oldCreate) == 0 {
			for _, o := range verdictOutcomes(vd, r.opts.Validate) {
				add(RuleObjectCreateRefused, o.Field, "%s", o.Message)
			}
		}
		if len(oldCreate) == 0 {
			t.create = vm
			if refusesUnknown(vd, r.opts.Validate) {
				// The 400 for unknown fields ends the request before
				// validation, hiding the object's other errors: they are
				// still what a change makes of it (once the field is
				// fixed), so the evidence counts them.
				for _, o := range verdictOutcomes(vd, fieldvalidation.Warn) {
					o.Rule = RuleObjectCreateRefused
					t.hidden = append(t.hidden, o)
				}
			}
		}
	}

	// The next labels-only update under NEW, and what it prunes.
	read, updateJudges := r.update(res, storedObj, s, vm, ns, add)
	if updateJudges {
		t.update = res.UpdateVersion
	}
	if !judges {
		t.create, t.update = "", ""
	}

	// CEL changes judged on the object.
	r.judgeCEL(res, t, read)
	return res, t
}

// storeUnderOld gives OLD's verdict on a create of the manifest (its
// errors, nil when accepted or not judged) and the object as OLD stores
// it, in the version s it is stored in. ok is false when the object
// cannot be replayed (reported).
func (r *Replayer) storeUnderOld(obj, manifest map[string]any, stored bool, vm, ns string, add func(rule, fld, format string, a ...any)) (oldCreate []string, storedObj map[string]any, s string, ok bool) {
	sv := versionSpec(r.old, vm)
	if sv == nil || !sv.Served {
		if stored {
			add(RuleObjectNotReplayed, "apiVersion", "OLD does not serve version %s, which the object was read in", vm)
		} else {
			add(RuleObjectNotReplayed, "apiVersion", "OLD does not serve version %s: the object cannot exist under OLD", vm)
		}
		return nil, nil, "", false
	}
	v, err := r.version(false, vm)
	if err != nil {
		add(RuleObjectNotReplayed, "", "OLD cannot serve version %s: %v", vm, err)
		return nil, nil, "", false
	}
	vd := v.Create(runtime.DeepCopyJSON(manifest), ns)
	oldCreate = verdictErrors(vd, r.opts.Validate)
	if vd.Object == nil {
		add(RuleObjectNotReplayed, "", "OLD cannot decode the object: %s", oldCreate[0])
		return oldCreate, nil, "", false
	}
	if len(oldCreate) > 0 {
		fld, why := causes(vd, r.opts.Validate)
		add(RuleObjectRefusedByOld, fld, "OLD refuses a create of this object too (%s): NEW's refusals of its create are not reported", why)
	}
	if stored {
		// A cluster's object is stored already: read in OLD's storage
		// version, it is what storage holds (converted by the server).
		storedObj = runtime.DeepCopyJSON(obj)
		if _, err := v.Read(storedObj); err != nil {
			add(RuleObjectNotReplayed, "", "OLD's storage cannot decode the object: %v", err)
			return oldCreate, nil, "", false
		}
		return oldCreate, storedObj, vm, true
	}
	storedObj = vd.Object.Object
	s = r.oldStorage
	if s != vm {
		if convertsByWebhook(r.old) {
			add(RuleObjectNotReplayed, "apiVersion", "OLD stores %s objects as %s through its conversion webhook, which crdlint cannot call", vm, s)
			return oldCreate, nil, "", false
		}
		sv, err := r.version(false, s)
		if err != nil {
			add(RuleObjectNotReplayed, "", "OLD cannot store version %s: %v", s, err)
			return oldCreate, nil, "", false
		}
		if _, err := sv.Convert(storedObj); err != nil {
			add(RuleObjectNotReplayed, "", "OLD cannot store the object as %s: %v", s, err)
			return oldCreate, nil, "", false
		}
	}
	return oldCreate, storedObj, s, true
}

// update replays the next labels-only update under NEW: the stored object
// read back under NEW in the version the manifest uses (NEW's storage
// version when NEW does not serve that one), a label added, the update
// judged; then what that write prunes. It returns the object read back,
// nil when it cannot be, and whether the update judges the upgrade: NEW
// accepts it, or OLD does not refuse it too.
func (r *Replayer) update(res *ObjectResult, storedObj map[string]any, s, vm, ns string, add func(rule, fld, format string, a ...any)) (read map[string]any, judges bool) {
	rv := vm
	if sv := versionSpec(r.new, vm); sv == nil || !sv.Served {
		rv = r.newStorage
	}
	read, pruned, why := r.read(true, storedObj, s, rv)
	if why != "" {
		add(RuleObjectNotReplayed, "", "%s", why)
		return nil, false
	}
	v, err := r.version(true, rv)
	if err != nil {
		add(RuleObjectNotReplayed, "", "NEW cannot serve version %s: %v", rv, err)
		return nil, false
	}
	vd := v.UpdateFromStorage(runtime.DeepCopyJSON(read), withLabel(read), ns)
	res.UpdateJudged, res.UpdateVersion = true, rv
	res.UpdateErrors = verdictErrors(vd, controllerWrite)
	judges = true
	if len(res.UpdateErrors) > 0 {
		if r.oldRefusesUpdate(storedObj, s, vm, ns) {
			judges = false
		} else {
			for _, o := range verdictOutcomes(vd, controllerWrite) {
				add(RuleObjectUpdateRefused, o.Field, "%s", o.Message)
			}
		}
	}
	// The write: what the update stores, in NEW's storage version.
	written := vdObject(vd)
	if written == nil {
		written = withLabel(read)
	}
	if rv != r.newStorage {
		if convertsByWebhook(r.new) {
			add(RuleObjectNotReplayed, "", "NEW stores %s objects as %s through its conversion webhook, which crdlint cannot call: what that write prunes is not known", rv, r.newStorage)
		} else if sv, err := r.version(true, r.newStorage); err == nil {
			if p, err := sv.Convert(written); err == nil {
				pruned = append(pruned, p...)
			}
		}
	}
	// Only stored data is lost: a default that reading in one version
	// added and converting to another prunes again never was stored.
	pruned = slices.DeleteFunc(pruned, func(p string) bool { return !hasPath(storedObj, p) })
	slices.Sort(pruned)
	res.Pruned = slices.Compact(pruned)
	for _, p := range res.Pruned {
		add(RuleObjectDataLost, p, "stored field %s is not in NEW's schema: the server prunes it, and its value is gone at the object's next write", p)
	}
	return read, judges
}

// read is the stored object (in version s) read back under OLD or NEW in
// version rv: decoded by storage with the schema of s, converted to rv.
// It returns the object, the stored paths pruned on the way, and why it
// cannot be read offline ("" when it can).
func (r *Replayer) read(isNew bool, storedObj map[string]any, s, rv string) (map[string]any, []string, string) {
	which := "OLD"
	c := r.old
	if isNew {
		which, c = "NEW", r.new
	}
	sv, err := r.version(isNew, s)
	if err != nil {
		return nil, nil, fmt.Sprintf("%s cannot read objects stored as %s: %v", which, s, err)
	}
	obj := runtime.DeepCopyJSON(storedObj)
	pruned, err := sv.Read(obj)
	if err != nil {
		return nil, nil, fmt.Sprintf("%s's storage cannot decode the object: %v", which, err)
	}
	if rv == s {
		return obj, pruned, ""
	}
	if convertsByWebhook(c) {
		return nil, nil, fmt.Sprintf("%s reads objects stored as %s in %s through its conversion webhook, which crdlint cannot call", which, s, rv)
	}
	v, err := r.version(isNew, rv)
	if err != nil {
		return nil, nil, fmt.Sprintf("%s cannot serve version %s: %v", which, rv, err)
	}
	p, err := v.Convert(obj)
	if err != nil {
		return nil, nil, fmt.Sprintf("%s cannot convert the object to %s: %v", which, rv, err)
	}
	return obj, append(pruned, p...), ""
}

// oldRefusesUpdate says OLD refuses the same labels-only update: then
// NEW's refusal is not a change (reported once, as refused by OLD).
func (r *Replayer) oldRefusesUpdate(storedObj map[string]any, s, vm, ns string) bool {
	if sv := versionSpec(r.old, vm); sv == nil || !sv.Served {
		return false
	}
	read, _, why := r.read(false, storedObj, s, vm)
	if why != "" {
		return false
	}
	v, err := r.version(false, vm)
	if err != nil {
		return false
	}
	vd := v.UpdateFromStorage(runtime.DeepCopyJSON(read), withLabel(read), ns)
	return len(verdictErrors(vd, controllerWrite)) > 0
}

// judgeCEL evaluates each CEL change of the version the object is read
// in under NEW on it, NEW's rule alone, on the object as NEW reads it back
// (read): a transition rule on the labels-only update, any other rule as
// on a create; OLD's rule it replaces (none, for an added rule) on the
// object as OLD reads it in OLD's version. Objects NEW's rule refuses and
// OLD's accepted are the change's. Only objects that judge the upgrade
// (trace.judges) count.
func (r *Replayer) judgeCEL(res *ObjectResult, t *trace, read map[string]any) {
	if read == nil {
		return
	}
	for _, j := range r.judged {
		c := j.change
		if c.CEL == nil || c.Version != res.UpdateVersion || !t.judges(c) {
			continue
		}
		nv, err := r.version(true, c.Version)
		if err != nil {
			continue
		}
		var newErrs field.ErrorList
		if c.CEL.Transition {
			newErrs, err = nv.RuleErrors(c.Field, c.CEL.Rule, withLabel(read), runtime.DeepCopyJSON(read))
		} else {
			newErrs, err = nv.RuleErrors(c.Field, c.CEL.Rule, runtime.DeepCopyJSON(read), nil)
		}
		if err != nil {
			continue
		}
		for _, e := range newErrs {
			if t.explained == nil {
				t.explained = map[string]bool{}
			}
			t.explained[errorKey(e.Field, e.ErrorBody())] = true
		}
		refusedByOld := false
		if c.CEL.Old != nil && len(newErrs) > 0 && !c.CEL.Transition {
			ov := c.OldVersion
			if ov == "" {
				ov = c.Version
			}
			if oldRead, _, why := r.read(false, t.stored, res.Stored, ov); why == "" {
				if v, err := r.version(false, ov); err == nil {
					oldErrs, err := v.RuleErrors(c.Field, *c.CEL.Old, oldRead, nil)
					refusedByOld = err == nil && len(oldErrs) > 0
				}
			}
		}
		r.mu.Lock()
		j.checked++
		if len(c.Field) == 0 || compare.Has(t.stored, j.setField()) {
			j.set++
		}
		if len(newErrs) > 0 && !refusedByOld {
			j.name(fmt.Sprintf("%s (%s)", res.Name, newErrs[0].Error()))
		}
		r.mu.Unlock()
	}
}

// hasPath says obj has a value at a path in the server's notation
// (spec.items[0].name). The server's pruned paths join keys with dots,
// so a key holding dots (example.com/team) is tried as the segments it
// was split into.
func hasPath(obj any, path string) bool {
	return hasSegs(obj, source.ParsePath(path))
}

func hasSegs(obj any, segs []source.Segment) bool {
	if len(segs) == 0 {
		return true
	}
	switch v := obj.(type) {
	case map[string]any:
		return dottedKeys(segs, func(key string, rest []source.Segment) bool {
			c, ok := v[key]
			return ok && hasSegs(c, rest)
		})
	case []any:
		i, err := strconv.Atoi(segs[0].Name)
		return err == nil && i >= 0 && i < len(v) && hasSegs(v[i], segs[1:])
	}
	return false
}

// dottedKeys calls try with each key a path's leading segments may spell,
// the first segment, then it joined with the plain segments after it by
// dots (the server joins a key's dots into its paths: example.com/team
// is the segments example and com/team), with the segments left; it says
// whether one try said yes.
func dottedKeys(segs []source.Segment, try func(key string, rest []source.Segment) bool) bool {
	key := ""
	for i, seg := range segs {
		if i > 0 {
			if seg.Bracket {
				break
			}
			key += "."
		}
		key += seg.Name
		if try(key, segs[i+1:]) {
			return true
		}
	}
	return false
}

// answer records the objects' answers to the comparison's Present
// questions.
func (r *Replayer) answer(version string, obj map[string]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for q, yes := range r.queries {
		if yes || q.version != version {
			continue
		}
		var p compare.DataPath
		if q.field != "" {
			p = strings.Split(q.field, "\x00")
		}
		if compare.Has(obj, p) {
			r.queries[q] = true
		}
	}
}

// Changes is the comparison of OLD and NEW with the objects replayed so
// far answering compare.Options.Present, and the changes the objects judge
// (judgedRules) judged on them: their messages say how many objects were
// judged and which the change breaks; a tightening none of them breaks
// is a warning (followsEvidence).
func (r *Replayer) Changes() []compare.Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	opts := compare.Options{StoredVersions: r.opts.StoredVersions}
	opts.Present = func(version string, p compare.DataPath) bool {
		return r.queries[presentKey{version, strings.Join(p, "\x00")}]
	}
	cs := compare.Revisions(r.old, r.new, opts)
	if r.summary.Objects == 0 {
		return cs
	}
	for i := range cs {
		j := r.byKey[keyOf(cs[i])]
		if j == nil || !judgedRules[cs[i].Rule] {
			continue
		}
		if j.checked > 0 && j.broken == 0 && followsEvidence(cs[i]) {
			cs[i].Severity = report.Warning
		}
		// The message of the change as compared now (a field required
		// under a parent the objects set says so), judged.
		jc := *j
		jc.change = cs[i]
		cs[i].Message = judgedMessage(cs[i].Message, &jc, r.summary.Objects)
	}
	return cs
}

// Summary is the replay's counts so far (UpdateRefused is the caller's
// to set, from the CRD verdict).
func (r *Replayer) Summary() report.UpgradeSummary {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.summary
}

// replaySeverity is each replay rule's severity.
var replaySeverity = func() map[string]report.Severity {
	m := map[string]report.Severity{}
	for _, r := range Rules {
		m[r.ID] = r.Severity
	}
	return m
}()

// unservedMessage is the server's 404 for a version NEW does not serve,
// in crd.LookupError's words.
func (r *Replayer) unservedMessage(vm string) string {
	if e := crd.VersionError(r.new, r.gk.WithVersion(vm)); e != nil {
		return e.Error()
	}
	return ""
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func objectName(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	name, ns := str(md["name"]), str(md["namespace"])
	if name == "" {
		name = str(md["generateName"]) + "*"
	}
	if ns != "" {
		return ns + "/" + name
	}
	return name
}

// namespace is the request's namespace: the object's, or kubectl's
// default; none for a cluster-scoped kind.
func namespace(obj map[string]any, c *apiextensionsv1.CustomResourceDefinition) string {
	if c.Spec.Scope != apiextensionsv1.NamespaceScoped {
		return ""
	}
	md, _ := obj["metadata"].(map[string]any)
	if ns := str(md["namespace"]); ns != "" {
		return ns
	}
	return crd.DefaultNamespace
}

// serverSet are the metadata fields the server sets: a create of an
// object read from a cluster sends none of them (the server would refuse
// resourceVersion).
var serverSet = []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"}

// asManifest is a stored object as a manifest to create: a copy without
// the metadata the server sets.
func asManifest(obj map[string]any) map[string]any {
	m := runtime.DeepCopyJSON(obj)
	if md, ok := m["metadata"].(map[string]any); ok {
		for _, k := range serverSet {
			delete(md, k)
		}
	}
	return m
}

// withLabel is a copy of obj with Label set: the labels-only write.
func withLabel(obj map[string]any) map[string]any {
	m := runtime.DeepCopyJSON(obj)
	md, ok := m["metadata"].(map[string]any)
	if !ok {
		md = map[string]any{}
		m["metadata"] = md
	}
	labels, ok := md["labels"].(map[string]any)
	if !ok {
		labels = map[string]any{}
		md["labels"] = labels
	}
	labels[Label] = "true"
	return m
}

// verdictErrors is a verdict's refusal of a request under the field
// validation v as the server's error strings: the decode error, the panic, the unknown fields under Strict
// (`unknown field "spec.x"`, the request's 400), or the validation
// errors, sorted.
func verdictErrors(vd *engine.Verdict, v fieldvalidation.Directive) []string {
	var out []string
	switch {
	case vd.Panic != "":
		out = []string{"Internal error occurred: " + vd.Panic}
	case vd.DecodeError != nil:
		out = []string{vd.DecodeError.Error()}
	case refusesUnknown(vd, v):
		for _, p := range vd.Unknown {
			out = append(out, fmt.Sprintf("unknown field %q", p))
		}
	default:
		for _, e := range vd.Errors {
			out = append(out, e.Error())
		}
	}
	sort.Strings(out)
	return out
}

// refusesUnknown says the request ends at decoding for its unknown
// fields: a 400 under Strict, before validation.
func refusesUnknown(vd *engine.Verdict, v fieldvalidation.Directive) bool {
	return v.Refuses() && len(vd.Unknown) > 0
}

// verdictOutcomes are a request's refusal as fields and messages, in the
// order of their text (the server's order varies with map iteration).
func verdictOutcomes(vd *engine.Verdict, v fieldvalidation.Directive) []Outcome {
	switch {
	case vd.Panic != "":
		return []Outcome{{Message: "Internal error occurred: the API server's code panics on this object (" + vd.Panic + ")"}}
	case vd.DecodeError != nil:
		return []Outcome{{Message: vd.DecodeError.Error()}}
	case refusesUnknown(vd, v):
		out := make([]Outcome, 0, len(vd.Unknown))
		for _, p := range slices.Sorted(slices.Values(vd.Unknown)) {
			out = append(out, Outcome{Field: p, Message: fmt.Sprintf("unknown field %q", p)})
		}
		return out
	}
	errs := slices.Clone(vd.Errors)
	slices.SortFunc(errs, func(a, b *field.Error) int { return strings.Compare(a.Error(), b.Error()) })
	out := make([]Outcome, 0, len(errs))
	for _, e := range errs {
		out = append(out, Outcome{Field: e.Field, Message: e.ErrorBody()})
	}
	return out
}

// maxCauses bounds the errors a refusal's summary quotes.
const maxCauses = 3

// causes says why a verdict refuses: its first error's field, and its
// errors (field: message, the first maxCauses, in the order of
// verdictOutcomes). The server's note that CEL rules were not checked
// is left out when there are others: it is a consequence, not a cause.
func causes(vd *engine.Verdict, v fieldvalidation.Directive) (fld, why string) {
	os := verdictOutcomes(vd, v)
	if real := slices.DeleteFunc(slices.Clone(os), func(o Outcome) bool { return isCELSkipped(o.Message) }); len(real) > 0 {
		os = real
	}
	if len(os) == 0 {
		return "", ""
	}
	var parts []string
	for _, o := range os[:min(len(os), maxCauses)] {
		if f := o.Field; f != "" && f != "<nil>" {
			parts = append(parts, f+": "+o.Message)
		} else {
			parts = append(parts, o.Message)
		}
	}
	why = strings.Join(parts, "; ")
	if more := len(os) - maxCauses; more > 0 {
		why += fmt.Sprintf("; and %d more", more)
	}
	return os[0].Field, why
}

// vdObject is the verdict's object as decoded JSON, or nil.
func vdObject(vd *engine.Verdict) map[string]any {
	if vd.Object == nil {
		return nil
	}
	return vd.Object.Object
}
