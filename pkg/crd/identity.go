package crd

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Identity names the CRD that answers lookups of a group and kind in this
// catalogue: its layer, where it came from (which lookup errors quote)
// and a digest of its JSON, or "" when no CRD defines the kind (an answer
// too: a missing CRD is a finding). ok is false when the answer cannot
// be named: a CRD with no JSON of its own (FromV1, such as a cluster's).
//
// It compiles nothing and validates at most the CRDs of a kind the inputs
// define more than once (IdentityAt), so that a cache of custom
// resources' findings can tell whether the CRDs they were judged against
// are still the ones a run would use, for less than judging them again.
// Two equal identities give equal Lookup answers under the same strict
// setting: everything Lookup reads of the entry derives from its JSON and
// source.
func (c *Catalog) Identity(gk schema.GroupKind) (id string, ok bool) {
	return c.IdentityAt(gk.WithVersion(""), "")
}

// IdentityAt is Identity for a custom resource of a version written in
// file (as reports name it): the CRD LookupAt would use there. Every
// document of a version in a file gets the same answer, so a verdict
// cached per file and checked against IdentityAt of each kind and version
// it names stays right when which CRD judges depends on where the custom
// resource is and which versions the CRDs serve. Telling the latter may
// validate a CRD of a kind the inputs define more than once (once: the
// run lints it anyway).
func (c *Catalog) IdentityAt(gvk schema.GroupVersionKind, file string) (id string, ok bool) {
	c.filled()
	gk := gvk.GroupKind()
	// An indexed file names its CRDs without being read.
	c.read(gk, true)
	e := c.judgeAt(gvk, file)
	c.mu.RLock()
	s, ok := c.stubWins(gk, e)
	c.mu.RUnlock()
	if ok {
		if s.x.Digest == "" {
			return "", false
		}
		return fmt.Sprintf("%d|%s|%s", s.d.layer, s.x.Source, s.x.Digest), true
	}
	if e == nil {
		return "", true
	}
	d := e.Def
	if d.raw == nil {
		return "", false
	}
	return fmt.Sprintf("%d|%s|%s", e.layer, e.Source, d.hexDigest()), true
}

// hexDigest is the SHA-256 of the CRD's JSON in hex, computed once; ""
// when it has none.
func (d *Definition) hexDigest() string {
	if d.raw == nil {
		return ""
	}
	d.digestOnce.Do(func() { d.digest = sha256.Sum256(d.raw) })
	return hex.EncodeToString(d.digest[:])
}
