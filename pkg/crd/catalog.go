package crd

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// Status says how a lookup went.
type Status int

const (
	// Found: the version exists and is served.
	Found Status = iota
	// NoCRD: no CRD defines the group and kind.
	NoCRD
	// NoVersion: the CRD has no such version.
	NoVersion
	// NotServed: the version exists but is not served.
	NotServed
	// Invalid: the CRD defining the kind would itself be rejected.
	Invalid
)

// Entry is one CRD known to the catalogue.
type Entry struct {
	CRD *apiextensionsv1.CustomResourceDefinition
	// Source says where the CRD came from (a file position, a cluster).
	Source string
	// Raw is the CRD's JSON as written, when known: it keeps what the
	// server's decoder drops (the Immutable Fields design's markers).
	Raw []byte
	// rejected tells, computed once on first need, whether the server
	// would refuse the CRD, so that no custom resource of it can exist.
	rejected     func() bool
	rejectedOnce sync.Once
	isRejected   bool

	mu       sync.Mutex
	versions map[string]*Version
	errs     map[string]error
}

// Catalog indexes CRDs by group and kind. It is safe for concurrent use;
// each version is compiled on first use, once.
type Catalog struct {
	mu   sync.RWMutex
	byGK map[schema.GroupKind]*Entry

	fillOnce sync.Once
	fill     func()
}

// Fill sets what adds the CRDs, with Add or AddRaw, when the catalogue is
// first read (Lookup, Entry, Entries or Len): a run that never needs a
// CRD never collects them. Call it before any read.
func (c *Catalog) Fill(fill func()) {
	c.fill = fill
}

func (c *Catalog) filled() {
	c.fillOnce.Do(func() {
		if c.fill != nil {
			c.fill()
		}
	})
}

// NewCatalog returns an empty catalogue.
func NewCatalog() *Catalog {
	return &Catalog{byGK: map[schema.GroupKind]*Entry{}}
}

// Add registers a CRD (already defaulted, as the server stores it). A later
// CRD for the same group and kind replaces an earlier one, as applying it
// would.
//
// rejected is asked at most once, when a custom resource of the CRD is
// first looked up: validating a large CRD is costly, and most runs never
// need the answer for most CRDs. Nil means accepted.
//
// The catalogue takes crd over: once a version is compiled, its decoded
// schema is dropped from crd (see release). Callers that need the CRD
// whole afterwards keep a copy.
func (c *Catalog) Add(crd *apiextensionsv1.CustomResourceDefinition, source string, rejected func() bool) {
	c.AddRaw(crd, nil, source, rejected)
}

// AddRaw is Add keeping the CRD's JSON as written.
func (c *Catalog) AddRaw(crd *apiextensionsv1.CustomResourceDefinition, raw []byte, source string, rejected func() bool) {
	gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byGK[gk] = &Entry{CRD: crd, Raw: raw, Source: source, rejected: rejected, versions: map[string]*Version{}, errs: map[string]error{}}
}

// Rejected reports whether the server would refuse the CRD itself.
func (e *Entry) Rejected() bool {
	e.rejectedOnce.Do(func() {
		if e.rejected != nil {
			e.isRejected = e.rejected()
			e.rejected = nil // what it holds is not needed again
		}
	})
	return e.isRejected
}

// Len is the number of CRDs.
func (c *Catalog) Len() int {
	c.filled()
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.byGK)
}

// Entries lists the CRDs sorted by name.
func (c *Catalog) Entries() []*Entry {
	c.filled()
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*Entry, 0, len(c.byGK))
	for _, e := range c.byGK {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CRD.Name < out[j].CRD.Name })
	return out
}

// Entry returns the CRD for a group and kind, or nil.
func (c *Catalog) Entry(gk schema.GroupKind) *Entry {
	c.filled()
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.byGK[gk]
}

// Lookup finds the compiled version for a group, version and kind.
func (c *Catalog) Lookup(gvk schema.GroupVersionKind) (*Version, *Entry, Status, error) {
	e := c.Entry(gvk.GroupKind())
	if e == nil {
		return nil, nil, NoCRD, nil
	}
	if e.Rejected() {
		return nil, e, Invalid, nil
	}
	var spec *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range e.CRD.Spec.Versions {
		if e.CRD.Spec.Versions[i].Name == gvk.Version {
			spec = &e.CRD.Spec.Versions[i]
		}
	}
	if spec == nil {
		return nil, e, NoVersion, nil
	}
	if !spec.Served {
		return nil, e, NotServed, nil
	}
	v, err := e.version(gvk.Version)
	return v, e, Found, err
}

func (e *Entry) version(name string) (*Version, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if v, ok := e.versions[name]; ok {
		return v, nil
	}
	if err, ok := e.errs[name]; ok {
		return nil, err
	}
	v, err := compile(e.CRD, name)
	if err != nil {
		e.errs[name] = err
		return nil, err
	}
	e.versions[name] = v
	e.release(v, name)
	return v, nil
}

// release drops the decoded v1 schema of a compiled version: the compiled
// form is all that is used from then on, and on a large run the decoded
// schemas are a fifth of the live heap, which the garbage collector scans
// over and over. Rejected has run by now (Lookup asks it first). Readers
// of e.CRD that may run concurrently read versions by index, never a
// whole version, so clearing one field races with nothing; v keeps a CRD
// of its own, without schemas (it uses its compiled one).
func (e *Entry) release(v *Version, name string) {
	for i := range e.CRD.Spec.Versions {
		if e.CRD.Spec.Versions[i].Name == name {
			e.CRD.Spec.Versions[i].Schema = nil
		}
	}
	own := *e.CRD
	own.Spec.Versions = make([]apiextensionsv1.CustomResourceDefinitionVersion, len(e.CRD.Spec.Versions))
	for i := range e.CRD.Spec.Versions {
		own.Spec.Versions[i] = e.CRD.Spec.Versions[i]
		own.Spec.Versions[i].Schema = nil
	}
	v.CRD = &own
	v.Spec.Schema = nil
}

// Versions lists the CRD's version names, served ones first in the
// server's preference order.
func (e *Entry) Versions() []string {
	var names []string
	for i := range e.CRD.Spec.Versions {
		names = append(names, e.CRD.Spec.Versions[i].Name)
	}
	sort.SliceStable(names, func(i, j int) bool {
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
	for i := range e.CRD.Spec.Versions {
		if v := &e.CRD.Spec.Versions[i]; v.Served {
			s = append(s, v.Name)
		}
	}
	return strings.Join(s, ", ")
}
