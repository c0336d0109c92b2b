package crdtest

import (
	"fmt"
	"path/filepath"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Outcome is what the server answered to a case's last request, in the
// terms of an expectation.
type Outcome struct {
	Accepted bool   `json:"accepted"`
	Reason   string `json:"reason,omitempty"`
	Code     int32  `json:"code,omitempty"`
	// Message is the whole error text as a client shows it.
	Message  string   `json:"message,omitempty"`
	Errors   []Cause  `json:"errors,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	Pruned   []string `json:"pruned,omitempty"`
	// Stored is the object as stored, without the metadata the server
	// generates.
	Stored map[string]any `json:"stored,omitempty"`
}

// Cause is one of a refusal's causes: the field in the server's
// notation, the reason (FieldValueInvalid, ...), the message without the
// field.
type Cause struct {
	Field   string `json:"field"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Diff is one way a case's outcome differs from its expectation.
type Diff struct {
	What     string `json:"what"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

// Result is one case's verdict on one engine.
type Result struct {
	File string     `json:"file"`
	Pos  source.Pos `json:"-"`
	Line int        `json:"line"`
	// Suite is the suite's name (its file's base name when unnamed).
	Suite string `json:"suite"`
	Case  string `json:"case"`
	// Variant names the CRD, when a suite runs on several of one name
	// (openshift's feature sets).
	Variant string `json:"variant,omitempty"`
	// Minors are the Kubernetes minors the result holds for (of those
	// the case must hold on), each judged by its own engine; Engine names
	// them as a range ("1.33-1.36").
	Minors []string `json:"kubernetesVersions"`
	Engine string   `json:"engine"`
	Passed bool     `json:"passed"`
	// Error says why the case could not run (no CRD for its kind, a
	// preparatory step refused).
	Error  string   `json:"error,omitempty"`
	Diffs  []Diff   `json:"diffs,omitempty"`
	Actual *Outcome `json:"actual,omitempty"`

	// expect is the expectation compared (step's), for --update; index
	// is the case's in its suite.
	expect *Expect
	c      *Case
	index  int
	step   int
}

// Name is the case's name in reports, with its variant.
func (r *Result) Name() string {
	if r.Variant == "" {
		return r.Case
	}
	return r.Case + " [" + r.Variant + "]"
}

// suiteName is a suite's name in reports: its own, or its file's base
// name.
func suiteName(s *Suite) string {
	if s.Name != "" {
		return s.Name
	}
	return strings.TrimSuffix(filepath.Base(s.File), filepath.Ext(s.File))
}

// Run runs a suite's cases on srv, the server of the suite's CRDs, in
// process: the minors of each case (its kubernetesVersions, else the
// suite's, else Own) other than Own are each judged by their own engine,
// which only RunMinors starts; here their results say so and fail.
func Run(s *Suite, srv *Server) []*Result {
	rs, _ := RunMinors([]*Suite{s}, []*Server{srv}, nil, nil)
	return rs
}

// runOwn runs case ci of s on this binary's engine, once per variant of
// the suite's CRD.
func runOwn(s *Suite, ci int, vs []*Server, vnames []string, verr error) []*Result {
	c := s.Cases[ci]
	name := suiteName(s)
	if len(vs) == 0 {
		last := len(c.Steps) - 1
		return []*Result{{File: s.File, Pos: c.Pos, Line: c.Pos.Line, Suite: name, Case: c.Name, Minors: []string{Own}, Engine: Own, Error: verr.Error(), c: c, index: c.index, step: last, expect: c.Steps[last].Expect}}
	}
	var out []*Result
	for vi, vsrv := range vs {
		r := &Result{File: s.File, Pos: c.Pos, Line: c.Pos.Line, Suite: name, Case: c.Name, Minors: []string{Own}, Engine: Own, c: c, index: c.index, step: -1}
		if len(vs) > 1 {
			r.Variant = vnames[vi]
		}
		runCase(r, s, c, vsrv)
		out = append(out, r)
	}
	return out
}

// variants are the servers a suite's cases run on: one, or, for a suite
// that names its CRD (crdName) among several of that name (openshift's
// feature sets), one per CRD whose feature gates the suite's allow.
func variants(s *Suite, srv *Server) ([]*Server, []string, error) {
	if s.CRDName == "" {
		return []*Server{srv}, nil, nil
	}
	var out []*Server
	var names []string
	crds := srv.CRDs()
	found := false
	// Of the CRDs the gates allow, those that enable the fewest gates:
	// the schema of exactly the suite's gates when the per-gate CRDs are
	// given, every feature set's when those are.
	least := -1
	var keep []int
	payload := ""
	if s.Format == OpenShift && len(s.FeatureGates) > 0 {
		payload = FeatureGateDir(s.File)
	}
	// A CRD the server would refuse is a variant too, whose requests are
	// answered with that refusal: a feature set its suites cannot run on
	// says why, rather than disappear.
	crds = append(crds, srv.refusedCRDs()...)
	for i, c := range crds {
		if c.Name != s.CRDName {
			continue
		}
		found = true
		ok, n := gatesAllow(c, s.FeatureGates)
		if payload != "" && !perGate(c) {
			var err error
			if ok, err = payloadGatesAllow(c, s.FeatureGates, payload); err != nil {
				return nil, nil, err
			}
		}
		switch {
		case !ok:
		case least < 0 || n < least:
			least, keep = n, []int{i}
		case n == least:
			keep = append(keep, i)
		}
	}
	for _, i := range keep {
		v := srv.variant(i, s.CRDName)
		if s.Version != "" {
			// The suite's version is the only one served and stored.
			var err error
			if v, err = v.Versioned(s.CRDName, s.Version); err != nil {
				return nil, nil, err
			}
		}
		out = append(out, v)
		names = append(names, variantName(srv, i, crds[i]))
	}
	switch {
	case !found:
		return nil, nil, fmt.Errorf("no CRD named %s among the CRD sources", s.CRDName)
	case len(out) == 0:
		return nil, nil, fmt.Errorf("no CRD named %s has the feature gates %s", s.CRDName, strings.Join(s.FeatureGates, ", "))
	}
	return out, names, nil
}

// variantName tells CRDs of one name apart: openshift's feature set, or
// where the CRD came from.
func variantName(srv *Server, i int, c *apiextensionsv1.CustomResourceDefinition) string {
	if fs := c.Annotations["release.openshift.io/feature-set"]; fs != "" {
		if i >= len(srv.defs) {
			return fs + " (refused)"
		}
		return fs
	}
	if i >= len(srv.defs) {
		return filepath.Base(srv.refusedFrom[i-len(srv.defs)]) + " (refused)"
	}
	if o := srv.defs[i].Origin; o != nil {
		return filepath.Base(o.File)
	}
	return fmt.Sprint(i)
}

// perGate says whether a CRD is one of openshift's per-gate manifests,
// which name the gates they enable.
func perGate(c *apiextensionsv1.CustomResourceDefinition) bool {
	for k := range c.Annotations {
		if strings.HasPrefix(k, gatePrefix) && k != gatePrefix {
			return true
		}
	}
	return false
}

const gatePrefix = "feature-gate.release.openshift.io/"

// gatesAllow says whether a CRD is one an openshift suite's feature gates
// run on: each "G" enabled in it and each "-G" not, as its
// feature-gate.release.openshift.io/G annotations (the per-gate CRDs of
// zz_generated.featuregated-crd-manifests) say; n is how many gates it
// enables. A CRD without such annotations (a feature set's) enables none.
func gatesAllow(c *apiextensionsv1.CustomResourceDefinition, gates []string) (ok bool, n int) {
	const prefix = gatePrefix
	for k, v := range c.Annotations {
		if strings.HasPrefix(k, prefix) && k != prefix && v == "true" {
			n++
		}
	}
	for _, g := range gates {
		want := !strings.HasPrefix(g, "-")
		on := c.Annotations[prefix+strings.TrimPrefix(g, "-")] == "true"
		if on != want {
			return false, n
		}
	}
	return true, n
}

// runCase runs a case's steps, each update from the previous step's
// stored object unless the step gives its own.
func runCase(r *Result, s *Suite, c *Case, srv *Server) {
	// stored is what the previous step returned, which a body with Set
	// starts from; etcd is what it wrote, which the next update reads.
	var stored, etcd map[string]any
	for i, st := range c.Steps {
		last := i == len(c.Steps)-1
		ssrv := srv
		if st.CRDPatches != nil {
			p, err := srv.Patched(s.CRDName, st.CRDPatches)
			if err != nil {
				r.Error = fmt.Sprintf("%s: %v", st.Why, err)
				return
			}
			ssrv = p
		}
		old := st.Old
		if old == nil {
			old = etcd
		}
		resp, err := ssrv.Do(Request{Op: st.Op, Old: old, Object: st.body(stored), Namespace: st.Namespace, FieldValidation: st.FieldValidation})
		if err != nil {
			r.Error = err.Error()
			if st.Why != "" {
				r.Error = st.Why + ": " + r.Error
			}
			r.expect, r.step = st.Expect, i
			return
		}
		if !last && st.Expect == nil {
			if resp.Err != nil {
				r.Error = fmt.Sprintf("%s: refused: %s", st.Why, resp.Err.Error())
				return
			}
			stored, etcd = resp.Object, storedOf(resp)
			continue
		}
		out := outcome(resp)
		r.Actual, r.expect, r.step = out, st.Expect, i
		r.Diffs = compare(st.Expect, out)
		r.Passed = len(r.Diffs) == 0
		if resp.Err != nil || last {
			return
		}
		stored, etcd = resp.Object, storedOf(resp)
	}
}

// storedOf is what the next update of resp's object starts from: what
// etcd holds, or, where a conversion webhook would write it, the object
// as returned.
func storedOf(resp Response) map[string]any {
	if resp.Stored != nil {
		return resp.Stored
	}
	return resp.Object
}

// body is the step's request body: its object, or the stored one with
// Set's fields.
func (st *Step) body(stored map[string]any) map[string]any {
	if stored == nil {
		return st.Object
	}
	if st.Object == nil {
		obj := deepCopy(stored)
		for k, v := range st.Set {
			obj[k] = v
		}
		return obj
	}
	if !st.StoredName {
		return st.Object
	}
	obj := deepCopy(st.Object)
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	smd, _ := stored["metadata"].(map[string]any)
	for _, k := range []string{"name", "namespace"} {
		if v, ok := smd[k]; ok {
			md[k] = v
		}
	}
	return obj
}

func outcome(resp Response) *Outcome {
	o := &Outcome{Accepted: resp.Err == nil, Warnings: resp.Warnings, Pruned: resp.Pruned}
	if resp.Err != nil {
		st := resp.Err.ErrStatus
		o.Reason, o.Code, o.Message = string(st.Reason), st.Code, resp.Err.Error()
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				o.Errors = append(o.Errors, Cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
			}
		}
	}
	if resp.Object != nil {
		o.Stored = withoutGenerated(resp.Object)
	}
	return o
}

// Passed counts the passing results.
func Passed(rs []*Result) int {
	n := 0
	for _, r := range rs {
		if r.Passed {
			n++
		}
	}
	return n
}

var _ = apierrors.IsInvalid
