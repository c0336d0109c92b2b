package crd

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Layer orders where CRDs come from: a CRD of a higher layer judges over
// one of a lower layer for the same group and kind whatever the order
// they are added in; within a layer the later one wins, as applying them
// in order would, but among the inputs the one nearest the custom
// resource judges it (judge.go).
type Layer int

const (
	// Cluster: CRDs read from a cluster (--crd-from-cluster, --live).
	Cluster Layer = iota
	// Input: CRDs among the inputs.
	Input
	// Extra: CRDs given with --crd and the configuration's crds:, which
	// the user named as the definitions of their kinds.
	Extra
)

// Entry is one CRD known to the catalogue.
type Entry struct {
	Def *Definition
	// Source says where the CRD came from (a file position, a cluster).
	Source string
	layer  Layer
	// seq orders the entries of a layer: the later one wins. Entries
	// added one by one count up; a deferred file's take its place in
	// the order of the files, whenever it is read.
	seq [2]int
	// where is the place of a CRD among the inputs (nil for the other
	// layers, and for one without an Origin).
	where *where

	// mu serialises compiles of the entry's versions, so that documents
	// met together do not compile the same version twice.
	mu    sync.Mutex
	errs  map[string]error
	cache *versionCache
	// pinned are the compiled versions of a CRD that cannot be shed.
	pinned map[string]*engine.Version
}

// CRD is the decoded CRD, without the versions' schemas once in a
// catalogue (Definition.Shed): the compiled versions are the schemas.
func (e *Entry) CRD() *apiextensionsv1.CustomResourceDefinition { return e.Def.v1 }

// Catalog indexes CRDs by group and kind, as the server's discovery and
// CRD handler do. It is safe for concurrent use; each version is compiled
// on first use, once, and each CRD validated at most once (Definition).
type Catalog struct {
	strict bool

	mu   sync.RWMutex
	byGK map[schema.GroupKind]*Entry
	// all are every entry added for a kind, for Duplicates.
	all  map[schema.GroupKind][]*Entry
	next int

	// deferred are files of CRDs read when a lookup may need them.
	deferred []*Deferred
	// stubs are the CRDs of indexed deferred files, by kind.
	stubs map[schema.GroupKind][]stub
	// resolved (schema.GroupKind → true): the deferred files that may
	// define the kind are read; resolvedUnindexed: those without an index.
	resolved, resolvedUnindexed sync.Map

	versions *versionCache

	fillOnce sync.Once
	// files are the files of DeferFiles, read when the catalogue is
	// first read.
	files files

	// cwd is what relative file names are relative to (placeOf).
	cwdOnce sync.Once
	cwd     string
	// config are the project's own configuration kinds (SetConfigKinds).
	config *ConfigKinds
}

// NewCatalog returns an empty catalogue. strict judges the CRDs under
// fieldValidation=Strict (a CRD with unknown fields is rejected, so its
// kind does not exist), as kubectl apply's default.
func NewCatalog(strict bool) *Catalog {
	return &Catalog{strict: strict, byGK: map[schema.GroupKind]*Entry{}, all: map[schema.GroupKind][]*Entry{}, stubs: map[schema.GroupKind][]stub{}, versions: newVersionCache(DefaultVersionBudget)}
}

// SetVersionBudget bounds the estimated bytes of the compiled versions the
// catalogue keeps (DefaultVersionBudget unless set); past it the least
// recently used are let go and compiled again when needed. It changes
// memory and time, never an answer. Call it before any lookup; the CRDs
// added so far share the catalogue's cache, so they get the budget too.
func (c *Catalog) SetVersionBudget(bytes int64) {
	c.versions.mu.Lock()
	defer c.versions.mu.Unlock()
	c.versions.budget = bytes
}

// SetConfigKinds names kinds of tool configuration beyond the well-known
// ones (.crdlint.yaml's configKinds): documents of these kinds are not
// custom resources, whatever CRD the catalogue holds. Call it before any
// lookup.
func (c *Catalog) SetConfigKinds(k *ConfigKinds) { c.config = k }

// ConfigKinds are the kinds SetConfigKinds named; nil for none or a nil
// catalogue.
func (c *Catalog) ConfigKinds() *ConfigKinds {
	if c == nil {
		return nil
	}
	return c.config
}

// Classify says what a document is, with the catalogue's configuration
// kinds (a nil catalogue has none).
func (c *Catalog) Classify(d *source.Document) Class { return Classify(d, c.ConfigKinds()) }

// Ready reads DeferFiles' files for what they define, when they have
// not been read: what the catalogue holds is then known, whether or not
// it is read. The first read of the catalogue (Lookup, Entry, Entries or
// Len) does it: a run that never looks a kind up never reads them.
func (c *Catalog) Ready() { c.filled() }

func (c *Catalog) filled() { c.fillOnce.Do(c.scan) }

// Add registers a decoded CRD of a layer. Definitions that did not decode
// are ignored: no kind can come from them. The catalogue takes d over and
// sheds it (Definition.Shed): Entry.CRD has no schemas.
func (c *Catalog) Add(d *Definition, source string, layer Layer) {
	c.add(d, source, layer, nil)
}

// add is Add at a place in the layer's order (nil: after every other).
func (c *Catalog) add(d *Definition, source string, layer Layer, seq *[2]int) {
	if d.v1 == nil {
		return
	}
	d.Shed()
	gk := schema.GroupKind{Group: d.v1.Spec.Group, Kind: d.v1.Spec.Names.Kind}
	var w *where
	if layer == Input && d.Origin != nil {
		w = c.whereOf(d.Origin.File, d.Origin.Bundle)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &Entry{Def: d, Source: source, layer: layer, where: w, errs: map[string]error{}, cache: c.versions}
	if seq != nil {
		e.seq = *seq
	} else {
		e.seq = [2]int{c.next, 0}
		c.next++
	}
	c.all[gk] = append(c.all[gk], e)
	if old, ok := c.byGK[gk]; ok && beats(old, e, nil) {
		return
	}
	c.byGK[gk] = e
}

// Duplicate is a kind two CRDs of different content define: one that
// judges its custom resources, and one that judges none or fewer of them.
type Duplicate struct {
	Kept, Dropped *Entry
	// Nearer says Dropped still judges the custom resources nearer to
	// it than to any other definition (both are among the inputs, in
	// different files): Kept judges those of no place in particular
	// and the others.
	Nearer bool
	// Refused says the server would reject Dropped and accept Kept: a
	// rejected CRD serves nothing while another can (judge.go).
	Refused bool
	// Only are the versions Dropped serves and Kept does not: Dropped
	// judges their custom resources wherever they are (judge.go).
	Only []string
}

// siblings reports whether two placed CRDs are in files of one
// directory.
func siblings(a, b *where) bool {
	return len(a.at) == len(b.at) && slices.Equal(a.at[:len(a.at)-1], b.at[:len(b.at)-1])
}

// Why says why Kept judges over Dropped, in the words of the rule
// (judge.go).
func (d Duplicate) Why() string {
	k, x := d.Kept, d.Dropped
	switch {
	case k.layer != x.layer:
		return fmt.Sprintf("%s judge before %s", layerName[k.layer], layerName[x.layer])
	case k.layer == Extra:
		return "of --crd and crds:, the later one given wins, as applying both in order would"
	case d.Refused:
		return "the server would reject this CRD, and one it rejects serves nothing while another can"
	case k.layer != Input || k.where == nil || x.where == nil:
		return "the later one wins, as applying both in order would"
	case !d.Nearer:
		return "the later one in a file wins, as applying the file would"
	case x.where.bundle:
		return "a file that holds other objects too, as install and release manifests do, judges only its own custom resources when another file defines the kind"
	case x.where.copyAt >= 0 && k.where.copyAt < 0:
		return fmt.Sprintf("a definition under a %s/ directory, a copy, judges only the custom resources under it when another defines the kind", path.Base(x.where.copyDir))
	case siblings(x.where, k.where):
		return "of two files in a directory the later one wins, as kubectl apply -f DIR would, but for the custom resources of the other's own file"
	}
	return "the definition nearest a custom resource in the tree judges it"
}

// Judges says which custom resources Dropped judges: "" for none, else
// the words of the rule that leaves them to it.
func (d Duplicate) Judges() string {
	var where string
	if d.Nearer {
		x, k := d.Dropped.where, d.Kept.where
		switch {
		case x.bundle || siblings(x, k):
			where = "the custom resources of its own file"
		case x.copyAt >= 0 && k.copyAt < 0:
			where = "the custom resources under " + x.copyDir + "/"
		default:
			where = "the custom resources nearer to it"
		}
	}
	if len(d.Only) == 0 {
		return where
	}
	versions := "version " + d.Only[0]
	if len(d.Only) > 1 {
		versions = "versions " + strings.Join(d.Only, ", ")
	}
	if where == "" {
		return "the custom resources of " + versions + ", which it alone serves"
	}
	return where + ", and those of " + versions + " anywhere, which it alone serves"
}

var layerName = map[Layer]string{Cluster: "the cluster's CRDs", Extra: "the CRDs of --crd and crds:", Input: "those among the inputs"}

// Duplicates lists, for every kind defined more than once, each CRD of it
// whose content differs from the one the catalogue uses, in the layers'
// order. Deferred files are read as far as they may define a kind twice
// and their Index cannot tell.
func (c *Catalog) Duplicates() []Duplicate {
	c.filled()
	c.readDuplicates()
	for {
		out, need := c.duplicates()
		if len(need) == 0 {
			c.keepDeep()
			sort.Slice(out, func(i, j int) bool { return ordered(out[i].Dropped, out[j].Dropped) })
			return out
		}
		for _, d := range need {
			d.Read(c)
		}
	}
}

// FromV1 wraps a CRD already decoded and defaulted (as the server stores
// it), for callers that hold typed objects rather than JSON.
func FromV1(crd *apiextensionsv1.CustomResourceDefinition) *Definition {
	return &Definition{v1: crd}
}

// Rejected reports whether the server would refuse the CRD itself, so
// that no custom resource of it can exist.
func (e *Entry) Rejected(strict bool) bool { return e.Def.Rejected(strict) }

// Len is the number of CRDs.
func (c *Catalog) Len() int {
	c.filled()
	c.readAll()
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.byGK)
}

// Entries lists the CRDs sorted by name.
func (c *Catalog) Entries() []*Entry {
	c.filled()
	c.readAll()
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*Entry, 0, len(c.byGK))
	for _, e := range c.byGK {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CRD().Name < out[j].CRD().Name })
	return out
}

// Entry returns the CRD for a group and kind that judges custom
// resources of no place and no version in particular, or nil.
func (c *Catalog) Entry(gk schema.GroupKind) *Entry { return c.EntryAt(gk.WithVersion(""), "") }

// EntryAt returns the CRD that judges a custom resource of a group,
// version and kind written in file (as reports name it; "": no place in
// particular), or nil: the one LookupAt compiles. A version of "" is no
// version in particular.
func (c *Catalog) EntryAt(gvk schema.GroupVersionKind, file string) *Entry {
	e, _ := c.entry(gvk, file, false)
	return e
}

// entry is EntryAt; with spare, CRDs of the kind read now from deferred
// files keep their decoded schemas for the compile that follows, and
// read says whether any file was read.
func (c *Catalog) entry(gvk schema.GroupVersionKind, file string, spare bool) (e *Entry, read bool) {
	c.filled()
	read = c.readFor(gvk.GroupKind(), false, spare)
	return c.judgeAt(gvk, file), read
}

// dropSpares lets go of the decoded schemas kept for a compile of gk that
// did not take them (the lookup failed, or another CRD of the kind won).
func (c *Catalog) dropSpares(gk schema.GroupKind) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, e := range c.all[gk] {
		e.Def.dropSpare()
	}
}

// Reason says why a kind cannot be served.
type Reason int

const (
	// NoCRD: no CRD defines the group and kind.
	NoCRD Reason = iota + 1
	// Rejected: the CRD defining the kind would itself be rejected.
	Rejected
	// NoVersion: the CRD has no such version.
	NoVersion
	// NotServed: the version exists but is not served.
	NotServed
	// Unservable: the server could not build the handler for the version.
	Unservable
)

// String is the reason in a summary's words.
func (r Reason) String() string {
	switch r {
	case NoCRD:
		return "no CRD"
	case Rejected:
		return "CRD rejected"
	case NoVersion:
		return "no such version"
	case NotServed:
		return "version not served"
	}
	return "CRD cannot serve it"
}

// LookupError is why a group, version and kind cannot be served, with
// the one message every command shows for it.
type LookupError struct {
	Reason Reason
	GVK    schema.GroupVersionKind
	// Entry is the CRD of the kind, nil for NoCRD.
	Entry *Entry
	// Err is the compilation failure, for Unservable.
	Err error
}

func (e *LookupError) Error() string {
	gv, kind := e.GVK.GroupVersion(), e.GVK.Kind
	switch e.Reason {
	case NoCRD:
		// The RESTMapper's words, which kubectl apply prints.
		return fmt.Sprintf("no matches for kind %q in version %q", kind, gv)
	case Rejected:
		return fmt.Sprintf("no matches for kind %q in version %q: its CustomResourceDefinition (%s) would be rejected by the server", kind, gv, e.Entry.Source)
	case NoVersion:
		return fmt.Sprintf("no matches for kind %q in version %q: CRD %s has no version %q (served: %s)", kind, gv, e.Entry.CRD().Name, e.GVK.Version, e.Entry.Served())
	case NotServed:
		return fmt.Sprintf("the server could not find the requested resource: version %q of CRD %s is not served (served: %s)", e.GVK.Version, e.Entry.CRD().Name, e.Entry.Served())
	}
	if e.Entry == nil {
		// Unserved of an error Lookup did not make: no CRD to name.
		return fmt.Sprintf("cannot serve %s, Kind=%s: %v", gv, kind, e.Err)
	}
	return fmt.Sprintf("CRD %s (%s) cannot serve version %q: %v", e.Entry.CRD().Name, e.Entry.Source, e.GVK.Version, e.Err)
}

// Note says why a document was left out, at its position
// (file:line:column), for commands that report it on stderr: a kind the
// catalogue cannot serve (Err), or Label ("skipped", "note", "error":
// the server would refuse the document) and Msg.
type Note struct {
	Pos, Label, Msg string
	Err             *LookupError
}

// Unserved is the note for a Lookup error (always a *LookupError).
func Unserved(pos string, err error) Note {
	le, ok := err.(*LookupError)
	if !ok {
		le = &LookupError{Reason: Unservable, Err: err}
	}
	return Note{Pos: pos, Err: le}
}

// TextNotes are the notes of a file's text's own problems, for commands
// that prune or list: an error leaves a document out (kubectl cannot
// send it), a warning changes nothing. Repeated keys are left out: such
// commands resolve them as kubectl does (the last value).
func TextNotes(f *source.File) []Note {
	var out []Note
	for _, fd := range f.Findings {
		if fd.Rule == source.RuleDuplicate {
			continue
		}
		label := "warning"
		if fd.Severity == report.Error {
			label = "error"
		}
		out = append(out, Note{Pos: fmt.Sprintf("%s:%d:%d", fd.File, fd.Line, fd.Column), Label: label, Msg: fd.Message})
	}
	return out
}

// VersionError is what Lookup says of a version that crd does not serve
// (NoVersion or NotServed), or nil when it serves it: for callers that
// hold a CRD outside a catalogue.
func VersionError(crd *apiextensionsv1.CustomResourceDefinition, gvk schema.GroupVersionKind) *LookupError {
	e := &Entry{Def: FromV1(crd), Source: crd.Name}
	for i := range crd.Spec.Versions {
		if v := &crd.Spec.Versions[i]; v.Name == gvk.Version {
			if v.Served {
				return nil
			}
			return &LookupError{Reason: NotServed, GVK: gvk, Entry: e}
		}
	}
	return &LookupError{Reason: NoVersion, GVK: gvk, Entry: e}
}

// Lookup returns the compiled version serving a group, version and kind
// to a custom resource of no place in particular (a live object), or a
// *LookupError saying why there is none.
func (c *Catalog) Lookup(gvk schema.GroupVersionKind) (*engine.Version, error) {
	return c.LookupAt(gvk, "")
}

// LookupAt is Lookup for a custom resource written in file (as reports
// name it): among the inputs, the CRD nearest it judges it (judge.go).
func (c *Catalog) LookupAt(gvk schema.GroupVersionKind, file string) (*engine.Version, error) {
	e, read := c.entry(gvk, file, true)
	if read {
		defer c.dropSpares(gvk.GroupKind())
	}
	if e == nil {
		return nil, &LookupError{Reason: NoCRD, GVK: gvk}
	}
	return c.LookupIn(e, gvk)
}

// LookupIn is LookupAt's answer from one entry of the catalogue (EntryAt's
// for another version of the kind): for callers that follow one object
// through several versions of the CRD that judges it, which must not
// change CRD on the way as a lookup of each version could.
func (c *Catalog) LookupIn(e *Entry, gvk schema.GroupVersionKind) (*engine.Version, error) {
	full := e.Def.judgeShed()
	// A CRD read from a cluster is one the cluster serves: its objects are
	// judged by it whether or not a create of it would pass today (a
	// newer server's fields, validation tightened since it was applied).
	if e.layer != Cluster && e.Rejected(c.strict) {
		return nil, &LookupError{Reason: Rejected, GVK: gvk, Entry: e}
	}
	var spec *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range e.CRD().Spec.Versions {
		if e.CRD().Spec.Versions[i].Name == gvk.Version {
			spec = &e.CRD().Spec.Versions[i]
		}
	}
	if spec == nil {
		return nil, &LookupError{Reason: NoVersion, GVK: gvk, Entry: e}
	}
	if !spec.Served {
		return nil, &LookupError{Reason: NotServed, GVK: gvk, Entry: e}
	}
	v, err := e.version(gvk.Version, full)
	if err != nil {
		return nil, &LookupError{Reason: Unservable, GVK: gvk, Entry: e, Err: err}
	}
	return v, nil
}

// version is the compiled version name, compiled from full when it is
// not cached (nil: the CRD decoded again).
func (e *Entry) version(name string, full *apiextensionsv1.CustomResourceDefinition) (*engine.Version, error) {
	if !e.Def.shedNow() {
		return e.pinnedVersion(name)
	}
	key := versionKey{e, name}
	if v := e.cache.get(key); v != nil {
		return v, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if v := e.cache.get(key); v != nil {
		return v, nil
	}
	if err, ok := e.errs[name]; ok {
		return nil, err
	}
	if full == nil {
		full = e.Def.Object()
	}
	v, err := compile(full, name)
	if err != nil {
		e.errs[name] = err
		return nil, err
	}
	e.cache.put(key, v)
	return v, nil
}

// pinnedVersion compiles a version of a CRD that has no JSON to decode
// again (FromV1): it is compiled once and kept, and its decoded schema
// dropped from the entry's CRD instead (release).
func (e *Entry) pinnedVersion(name string) (*engine.Version, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if v, ok := e.pinned[name]; ok {
		return v, nil
	}
	if err, ok := e.errs[name]; ok {
		return nil, err
	}
	v, err := compile(e.CRD(), name)
	if err != nil {
		e.errs[name] = err
		return nil, err
	}
	if e.pinned == nil {
		e.pinned = map[string]*engine.Version{}
	}
	e.pinned[name] = v
	e.release(name)
	return v, nil
}

// release drops the decoded v1 schema of a compiled version: the compiled
// form is all that is used from then on (the Version keeps no decoded
// schema). The verdict has been computed by now (Lookup asks it first).
// Readers of e.CRD() that may run concurrently read versions by index,
// never a whole version, so clearing one field races with nothing.
func (e *Entry) release(name string) {
	crd := e.CRD()
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == name {
			crd.Spec.Versions[i].Schema = nil
		}
	}
}

// compile compiles a version for the catalogue (engine.Compile), counted.
func compile(crd *apiextensionsv1.CustomResourceDefinition, name string) (*engine.Version, error) {
	count.VersionCompiles.Add(1)
	return engine.Compile(crd, name)
}

// CompileVersion compiles one version of crd, served or not, outside a
// catalogue (engine.Compile), counted as the catalogue's compiles are:
// for judging what storage does with objects of a version. Lookup is the
// way to judge requests, which only served versions answer.
func CompileVersion(crd *apiextensionsv1.CustomResourceDefinition, name string) (*engine.Version, error) {
	return compile(crd, name)
}

// Versions lists the CRD's version names, served ones first in the
// server's preference order.
func (e *Entry) Versions() []string {
	var names []string
	served := map[string]bool{}
	for i := range e.CRD().Spec.Versions {
		v := &e.CRD().Spec.Versions[i]
		names = append(names, v.Name)
		served[v.Name] = v.Served
	}
	sort.SliceStable(names, func(i, j int) bool {
		if served[names[i]] != served[names[j]] {
			return served[names[i]]
		}
		return version.CompareKubeAwareVersionStrings(names[i], names[j]) > 0
	})
	return names
}

// Served lists the served versions, for messages.
func (e *Entry) Served() string {
	var s []string
	for i := range e.CRD().Spec.Versions {
		if v := &e.CRD().Spec.Versions[i]; v.Served {
			s = append(s, v.Name)
		}
	}
	return strings.Join(s, ", ")
}
