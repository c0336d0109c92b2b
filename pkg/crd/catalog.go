package crd

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Layer orders where CRDs come from: a CRD of a higher layer replaces one
// of a lower layer for the same group and kind whatever the order they are
// added in; within a layer the later one wins, as applying them in order
// would.
type Layer int

const (
	// Cluster: CRDs read from a cluster (--crd-from-cluster, --live).
	Cluster Layer = iota
	// Extra: CRDs given with --crd.
	Extra
	// Input: CRDs among the inputs.
	Input
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

	// mu serialises compiles of the entry's versions, so that documents
	// met together do not compile the same version twice.
	mu    sync.Mutex
	errs  map[string]error
	cache *versionCache
	// pinned are the compiled versions of a CRD that cannot be shed.
	pinned map[string]*Version
}

// CRD is the decoded CRD, without the versions' schemas once in a
// catalogue (Definition.Shed): the compiled versions are the schemas.
func (e *Entry) CRD() *apiextensionsv1.CustomResourceDefinition { return e.Def.V1 }

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
	fill     func()

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

// Fill sets what adds CRDs when the catalogue is first read (Lookup,
// Entry, Entries or Len): a run that never looks a kind up never reads
// them. Call it before any read.
func (c *Catalog) Fill(fill func()) {
	c.fill = fill
}

// Ready runs the Fill function, when it has not run: what the catalogue
// holds is then known, whether or not it is read.
func (c *Catalog) Ready() { c.filled() }

func (c *Catalog) filled() {
	c.fillOnce.Do(func() {
		if c.fill != nil {
			c.fill()
		}
	})
}

// Add registers a decoded CRD of a layer. Definitions that did not decode
// are ignored: no kind can come from them. The catalogue takes d over and
// sheds it (Definition.Shed): d.V1 loses its schemas.
func (c *Catalog) Add(d *Definition, source string, layer Layer) {
	c.add(d, source, layer, nil)
}

// add is Add at a place in the layer's order (nil: after every other).
func (c *Catalog) add(d *Definition, source string, layer Layer, seq *[2]int) {
	if d.V1 == nil {
		return
	}
	d.Shed()
	gk := schema.GroupKind{Group: d.V1.Spec.Group, Kind: d.V1.Spec.Names.Kind}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &Entry{Def: d, Source: source, layer: layer, errs: map[string]error{}, cache: c.versions}
	if seq != nil {
		e.seq = *seq
	} else {
		e.seq = [2]int{c.next, 0}
		c.next++
	}
	c.all[gk] = append(c.all[gk], e)
	if old, ok := c.byGK[gk]; ok && later(old, e) {
		return
	}
	c.byGK[gk] = e
}

// later reports whether a wins over b: a higher layer, or the same layer
// and later in its order.
func later(a, b *Entry) bool {
	if a.layer != b.layer {
		return a.layer > b.layer
	}
	return a.seq[0] > b.seq[0] || a.seq[0] == b.seq[0] && a.seq[1] > b.seq[1]
}

// Duplicate is a kind two CRDs of different content define: the one the
// catalogue uses and one it does not.
type Duplicate struct{ Kept, Dropped *Entry }

// Why says why Kept won: a later CRD of the same layer replaces an
// earlier one as applying them in order would; the inputs' beat --crd's,
// which beat a cluster's.
func (d Duplicate) Why() string {
	if d.Kept.layer == d.Dropped.layer {
		return "the later one wins, as applying both in order would"
	}
	return fmt.Sprintf("%s beat %s", layerName[d.Kept.layer], layerName[d.Dropped.layer])
}

var layerName = map[Layer]string{Cluster: "the cluster's CRDs", Extra: "the CRDs of --crd and the configuration", Input: "the CRDs among the inputs"}

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
			sort.Slice(out, func(i, j int) bool { return later(out[j].Dropped, out[i].Dropped) })
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
	return &Definition{V1: crd}
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

// Entry returns the CRD for a group and kind, or nil.
func (c *Catalog) Entry(gk schema.GroupKind) *Entry {
	e, _ := c.entry(gk, false)
	return e
}

// entry is Entry; with spare, CRDs of the kind read now from deferred
// files keep their decoded schemas for the compile that follows, and
// read says whether any file was read.
func (c *Catalog) entry(gk schema.GroupKind, spare bool) (e *Entry, read bool) {
	c.filled()
	read = c.readFor(gk, false, spare)
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.byGK[gk], read
}

// dropSpares lets go of the decoded schemas kept for a compile of gk that
// did not take them (the lookup failed, or another CRD of the kind won).
func (c *Catalog) dropSpares(gk schema.GroupKind) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, e := range c.all[gk] {
		e.Def.DropSpare()
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
		return fmt.Sprintf("no CRD for %s, Kind=%s", gv, kind)
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

// Lookup returns the compiled version serving a group, version and kind,
// or a *LookupError saying why there is none.
func (c *Catalog) Lookup(gvk schema.GroupVersionKind) (*Version, error) {
	e, read := c.entry(gvk.GroupKind(), true)
	if read {
		defer c.dropSpares(gvk.GroupKind())
	}
	if e == nil {
		return nil, &LookupError{Reason: NoCRD, GVK: gvk}
	}
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
func (e *Entry) version(name string, full *apiextensionsv1.CustomResourceDefinition) (*Version, error) {
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
		full = e.Def.Full()
	}
	v, err := compile(full, name)
	if err != nil {
		e.errs[name] = err
		return nil, err
	}
	// The compiled form is the schema from here on: v shares the entry's
	// CRD, which has none.
	v.CRD = e.Def.V1
	v.Spec.Schema = nil
	e.cache.put(key, v)
	return v, nil
}

// pinnedVersion compiles a version of a CRD that has no JSON to decode
// again (FromV1): it is compiled once and kept, and its decoded schema
// dropped from the entry's CRD instead (release).
func (e *Entry) pinnedVersion(name string) (*Version, error) {
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
		e.pinned = map[string]*Version{}
	}
	e.pinned[name] = v
	e.release(v, name)
	return v, nil
}

// release drops the decoded v1 schema of a compiled version: the compiled
// form is all that is used from then on. The verdict has been computed by
// now (Lookup asks it first). Readers of e.CRD() that may run
// concurrently read versions by index, never a whole version, so clearing
// one field races with nothing; v keeps a CRD of its own, without
// schemas (it uses its compiled one).
func (e *Entry) release(v *Version, name string) {
	crd := e.CRD()
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == name {
			crd.Spec.Versions[i].Schema = nil
		}
	}
	own := *crd
	own.Spec.Versions = make([]apiextensionsv1.CustomResourceDefinitionVersion, len(crd.Spec.Versions))
	for i := range crd.Spec.Versions {
		own.Spec.Versions[i] = crd.Spec.Versions[i]
		own.Spec.Versions[i].Schema = nil
	}
	v.CRD = &own
	v.Spec.Schema = nil
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

// DeprecationWarning is the warning the server sends for a request to a
// deprecated version: the CRD's deprecationWarning, or the server's default
// text (as customresource_handler.go's defaultDeprecationWarning words it).
func DeprecationWarning(crd *apiextensionsv1.CustomResourceDefinition, ver string) string {
	s := &crd.Spec
	for i := range s.Versions {
		if v := &s.Versions[i]; v.Name == ver && v.DeprecationWarning != nil {
			return *v.DeprecationWarning
		}
	}
	msg := fmt.Sprintf("%s/%s %s is deprecated", s.Group, ver, s.Names.Kind)
	var newer []string
	for i := range s.Versions {
		if v := &s.Versions[i]; v.Served && !v.Deprecated && version.CompareKubeAwareVersionStrings(ver, v.Name) < 0 {
			newer = append(newer, v.Name)
		}
	}
	if len(newer) == 0 {
		return msg
	}
	sort.Slice(newer, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(newer[i], newer[j]) > 0
	})
	return msg + fmt.Sprintf("; use %s/%s %s", s.Group, newer[0], s.Names.Kind)
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
