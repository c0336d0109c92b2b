package crd

import (
	"container/list"
	"sync"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
)

// DefaultVersionBudget is the estimated size of the compiled versions a
// catalogue keeps. A run's documents usually need far fewer versions
// than its CRDs define, and files are judged in an order that keeps a
// kind's documents together, so this holds a run's working set while
// bounding what a run over thousands of CRDs keeps.
const DefaultVersionBudget = 96 << 20

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
	v    *engine.Version
	cost int64
}

func newVersionCache(budget int64) *versionCache {
	return &versionCache{budget: budget, m: map[versionKey]*list.Element{}}
}

func (c *versionCache) get(k versionKey) *engine.Version {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.m[k]
	if el == nil {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cachedVersion).v
}

func (c *versionCache) put(k versionKey, v *engine.Version) {
	cv := &cachedVersion{key: k, v: v, cost: v.Size()}
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
