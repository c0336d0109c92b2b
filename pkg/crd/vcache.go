package crd

import (
	"container/list"
	"sync"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// DefaultVersionBudget is the estimated size of the compiled versions a
// catalogue keeps. A run's documents usually need far fewer versions
// than its CRDs define, and files are judged in an order that keeps a
// kind's documents together, so this holds a run's working set while
// bounding what a run over thousands of CRDs keeps.
const DefaultVersionBudget = 96 << 20

// Estimated heap per node of a compiled schema (the structural schema,
// the OpenAPI validator's copy, the CEL declarations), and per CEL rule:
// measured on the corpus's CRDs, to within a factor of two, which is all
// a budget needs.
const (
	bytesPerSchemaNode = 1500
	bytesPerCELRule    = 24 << 10
)

type versionKey struct {
	e    *Entry
	name string
}

// versionCache keeps compiled versions up to a budget, letting the least
// recently used go first. A version handed out stays valid after it is
// let go: only the cache forgets it.
type versionCache struct {
	mu           sync.Mutex
	budget, used int64
	lru          list.List // of *cachedVersion, most recent first
	m            map[versionKey]*list.Element
}

type cachedVersion struct {
	key  versionKey
	v    *Version
	cost int64
}

func newVersionCache(budget int64) *versionCache {

	return &versionCache{budget: budget, m: map[versionKey]*list.Element{}}
}

func (c *versionCache) get(k versionKey) *Version {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.m[k]
	if el == nil {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cachedVersion).v
}

func (c *versionCache) put(k versionKey, v *Version) {
	cv := &cachedVersion{key: k, v: v, cost: estimate(v.Structural)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.m[k]; el != nil {
		return
	}
	c.m[k] = c.lru.PushFront(cv)
	c.used += cv.cost
	// The newest stays even alone over the budget: its documents are
	// being judged.
	for c.used > c.budget && c.lru.Len() > 1 {
		old := c.lru.Remove(c.lru.Back()).(*cachedVersion)
		delete(c.m, old.key)
		c.used -= old.cost
	}
}

// estimate is the heap a compiled version holds, roughly.
func estimate(s *structuralschema.Structural) int64 {
	if s == nil {
		return bytesPerSchemaNode
	}
	n := int64(bytesPerSchemaNode) + int64(len(s.XValidations))*bytesPerCELRule
	if s.Items != nil {
		n += estimate(s.Items)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		n += estimate(s.AdditionalProperties.Structural)
	}
	for _, p := range s.Properties {
		n += estimate(&p)
	}
	return n
}
