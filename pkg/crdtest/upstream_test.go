package crdtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// The upstream suites of testdata/upstream (samples of gateway-api's CEL
// tests and Envoy Gateway's test/cel-validation ported to crdlint's
// format, and openshift/api's suites as they are, each with its licence)
// run through the runner and the Go package, and every case on the
// in-process API server as well, step by step as the suite's own
// harness sends it: the case must pass exactly when its expectation
// holds on that server, with the same answer (verdict, reason, message,
// causes, warnings, stored object). A case written for an older server
// whose expectation no longer holds fails on both, and is listed in
// docs/testing-crds.md.
//
// CRDTEST_UPSTREAM names more directories of suites (openshift/api's
// whole tree, say): the same check over all of their cases, with the
// tally logged.
func TestUpstreamAgainstReality(t *testing.T) {
	// examples/testing is a port of an upstream table too.
	dirs := []string{"testdata/upstream", "../../examples/testing"}
	if extra := os.Getenv("CRDTEST_UPSTREAM"); extra != "" {
		dirs = append(dirs, filepath.SplitList(extra)...)
	}
	files, err := Discover(dirs)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("only %d upstream suites", len(files))
	}
	// Jobs are grouped by the CRD they run on, so that the live server
	// switches CRDs once per variant.
	type job struct {
		s     *Suite
		c     *Case
		srv   *Server
		vname string
	}
	groups := map[string][]job{}
	var order []string
	crdOf := map[string][]*apiextensionsv1.CustomResourceDefinition{}
	servers := map[string]*Server{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Read(f, data)
		if err != nil {
			t.Fatal(err)
		}
		srcs := s.CRDs
		if len(srcs) == 0 {
			srcs = DefaultCRDs(s)
		}
		// Suites of the same CRDs share their server, as the command's
		// do: each variant is compiled once.
		skey := strings.Join(srcs, "\x00")
		srv := servers[skey]
		if srv == nil {
			if srv, err = loadLenient(srcs...); err != nil {
				t.Fatal(err)
			}
			servers[skey] = srv
		}
		vs, names, err := variants(s, srv)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for i, v := range vs {
			var crds []*apiextensionsv1.CustomResourceDefinition
			for _, c := range v.CRDs() {
				if s.CRDName == "" || c.Name == s.CRDName {
					crds = append(crds, c)
				}
			}
			if len(crds) == 0 {
				// A variant of a CRD the runner refuses: the live server
				// is given it, and must refuse it too.
				for _, c := range v.refusedCRDs() {
					if c.Name == s.CRDName {
						crds = append(crds, c)
					}
				}
			}
			js, _ := json.Marshal(crds)
			key := string(js)
			if _, ok := groups[key]; !ok {
				order = append(order, key)
				crdOf[key] = crds
			}
			name := ""
			if len(names) > 1 {
				name = names[i]
			}
			for _, c := range s.Cases {
				groups[key] = append(groups[key], job{s, c, v, name})
			}
		}
	}
	l := newLive(t)
	tally := map[string]int{}
	var fails []string
	for _, key := range order {
		if err := l.install(crdOf[key]); err != nil {
			t.Logf("the live server refuses the CRD: %v", err)
			for _, j := range groups[key] {
				r := &Result{Case: j.c.Name}
				runCase(r, j.s, j.c, j.srv)
				if r.Error == "" {
					t.Errorf("%s:%d: %s: the live server refuses the CRD; the runner ran the case", j.s.File, j.c.Pos.Line, j.c.Name)
				}
				tally["CRD refused"]++
			}
			continue
		}
		for _, j := range groups[key] {
			name := fmt.Sprintf("%s:%d %s", j.s.File, j.c.Pos.Line, j.c.Name)
			if j.vname != "" {
				name += " [" + j.vname + "]"
			}
			r := &Result{Case: j.c.Name}
			runCase(r, j.s, j.c, j.srv)
			real, realErr, expect, prep := l.steps(t, j.s, j.c, crdOf[key])
			goErr, goPrep := goSteps(j.s, j.c, j.srv)
			skipGo := goPrep == "strict"
			if skipGo {
				goPrep = prep
			}
			switch {
			case prep != "" || r.Error != "" || goPrep != "":
				if (prep == "") != (r.Error == "") || (prep == "") != (goPrep == "") {
					t.Errorf("%s: a step before the expectation's:\n runner     %q\n Go package %q\n live       %q", name, r.Error, goPrep, prep)
				}
				tally["a preparatory step refused"]++
				fails = append(fails, name+": "+prep)
				continue
			}
			holds := len(compare(expect, real)) == 0
			if holds != r.Passed {
				t.Errorf("%s: passes on the live server: %v, in the runner: %v %+v", name, holds, r.Passed, r.Diffs)
			}
			checkSameNamed(t, name, r.Actual, real)
			if !skipGo {
				checkGoErr(t, name, goErr, realErr)
			}
			if holds {
				tally["pass"]++
			} else {
				tally["fail"]++
				fails = append(fails, fmt.Sprintf("%s: %+v", name, compare(expect, real)))
			}
		}
	}
	t.Logf("upstream cases on the in-process server: %v", tally)
	sort.Strings(fails)
	if os.Getenv("CRDTEST_UPSTREAM_LIST") != "" {
		_ = os.WriteFile(os.Getenv("CRDTEST_UPSTREAM_LIST"), []byte(strings.Join(fails, "\n")+"\n"), 0o644)
	}
}

// loadLenient loads CRDs as the command does: a CRD the server would
// refuse answers its kind's requests with that refusal.
func loadLenient(paths ...string) (*Server, error) {
	files, err := source.Expand(paths)
	if err != nil {
		return nil, err
	}
	s := newServer()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := s.AddYAML(f, data); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// install makes crds the live server's CRDs of their names, replacing
// one of a name installed before.
func (l *live) install(crds []*apiextensionsv1.CustomResourceDefinition) error {
	for _, c := range crds {
		c = c.DeepCopy()
		js, _ := json.Marshal(c.Spec)
		if l.installed[c.Name] == string(js) {
			continue
		}
		var err error
		if _, ok := l.installed[c.Name]; ok {
			// A CRD of another version set (an API's v1 and v1alpha1
			// suites) cannot replace the stored one: delete it first.
			if _, err = l.srv.TryUpdateCRD(c); err != nil {
				if err = l.deleteCRD(c.Name); err == nil {
					_, err = l.srv.TryApplyCRD(c)
				}
			}
		} else {
			_, err = l.srv.TryApplyCRD(c)
		}
		if err != nil {
			if l.deleteCRD(c.Name) == nil {
				delete(l.installed, c.Name)
			}
			return err
		}
		l.installed[c.Name] = string(js)
	}
	return nil
}

// deleteCRD deletes a CRD and waits until it is gone.
func (l *live) deleteCRD(name string) error {
	cs, err := apiextensionsclient.NewForConfig(l.srv.AdminConfig())
	if err != nil {
		return err
	}
	ctx := context.Background()
	err = cs.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

// generated is a name the server generated from "test-".
var generated = regexp.MustCompile(`\btest-[bcdfghjklmnpqrstvwxz2456789]{5}\b`)

// steps runs a case's steps on the live server: each under its CRD
// (patched for the step when it says so), an update from the previous
// step's stored object (or from its own old object, written into etcd as
// it is), as a client sends them. It returns the answer to the step that
// carries the expectation, or why a step before it was refused.
func (l *live) steps(t *testing.T, s *Suite, c *Case, crds []*apiextensionsv1.CustomResourceDefinition) (out *Outcome, err error, expect *Expect, prep string) {
	t.Helper()
	ctx := context.Background()
	var stored *unstructured.Unstructured
	var ri dynamic.ResourceInterface
	defer func() {
		if stored != nil && ri != nil {
			_ = ri.Delete(ctx, stored.GetName(), metav1.DeleteOptions{})
		}
		if err := l.install(crds); err != nil {
			t.Fatalf("restore the CRDs: %v", err)
		}
	}()
	for i, st := range c.Steps {
		last := i == len(c.Steps)-1
		cur := crds
		if st.CRDPatches != nil {
			cur = patchCRDs(t, crds, s.CRDName, st.CRDPatches)
		}
		if err := l.install(cur); err != nil {
			return nil, nil, nil, fmt.Sprintf("%s: the patched CRD: %v", st.Why, err)
		}
		var storedMap map[string]any
		if stored != nil {
			storedMap = stored.Object
		}
		obj := &unstructured.Unstructured{Object: deepCopy(st.body(storedMap))}
		gvk := obj.GroupVersionKind()
		gvr, namespaced, rerr := l.srv.Resource(gvk)
		if rerr != nil {
			t.Fatal(rerr)
		}
		ns := ""
		if namespaced {
			ns = obj.GetNamespace()
			if ns == "" {
				ns = st.Namespace
			}
			if ns == "" {
				ns = "default"
			}
		}
		ri = l.dyn.Resource(gvr)
		if namespaced {
			ri = l.dyn.Resource(gvr).Namespace(ns)
		}
		if st.Op != Create && st.Old != nil {
			l.srv.Put(t, gvk.Group, gvr.Resource, ns, st.Old)
			if stored, rerr = ri.Get(ctx, (&unstructured.Unstructured{Object: st.Old}).GetName(), metav1.GetOptions{}); rerr != nil {
				t.Fatal(rerr)
			}
		}
		if st.Op != Create {
			obj.SetName(stored.GetName())
			obj.SetNamespace(stored.GetNamespace())
			obj.SetResourceVersion(stored.GetResourceVersion())
		}
		l.warn.take()
		var resp *unstructured.Unstructured
		switch st.Op {
		case Create:
			resp, err = ri.Create(ctx, obj, metav1.CreateOptions{FieldValidation: st.FieldValidation})
		case Update:
			resp, err = ri.Update(ctx, obj, metav1.UpdateOptions{FieldValidation: st.FieldValidation})
		case UpdateStatus:
			resp, err = ri.UpdateStatus(ctx, obj, metav1.UpdateOptions{FieldValidation: st.FieldValidation})
		}
		warnings := l.warn.take()
		if !last && st.Expect == nil {
			if err != nil {
				return nil, nil, nil, fmt.Sprintf("%s: refused: %v", st.Why, err)
			}
			stored = resp
			continue
		}
		out = &Outcome{Accepted: err == nil, Warnings: warnings}
		for _, w := range warnings {
			if p, ok := strings.CutPrefix(w, `unknown field "`); ok {
				out.Pruned = append(out.Pruned, strings.TrimSuffix(p, `"`))
			}
		}
		if err != nil {
			var se *apierrors.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("%s: not a StatusError: %v", st.Op, err)
			}
			// The server generates a name of its own; the runner's is
			// test-crdlt.
			se.ErrStatus.Message = generated.ReplaceAllString(se.ErrStatus.Message, "test-crdlt")
			out.Reason, out.Code, out.Message = string(se.ErrStatus.Reason), se.ErrStatus.Code, se.Error()
			if se.ErrStatus.Details != nil {
				se.ErrStatus.Details.Name = generated.ReplaceAllString(se.ErrStatus.Details.Name, "test-crdlt")
				for _, c := range se.ErrStatus.Details.Causes {
					out.Errors = append(out.Errors, Cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
				}
			}
			return out, se, st.Expect, ""
		}
		stored = resp
		out.Stored = withoutGenerated(resp.Object)
		if md, _ := out.Stored["metadata"].(map[string]any); md != nil {
			md["name"] = generated.ReplaceAllString(str(md["name"]), "test-crdlt")
		}
		if last {
			return out, nil, st.Expect, ""
		}
	}
	return out, nil, nil, ""
}

// patchCRDs is crds with the one named name patched.
func patchCRDs(t *testing.T, crds []*apiextensionsv1.CustomResourceDefinition, name string, patch []byte) []*apiextensionsv1.CustomResourceDefinition {
	out := make([]*apiextensionsv1.CustomResourceDefinition, len(crds))
	for i, c := range crds {
		out[i] = c
		if c.Name != name {
			continue
		}
		js, _ := json.Marshal(c)
		p, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			t.Fatal(err)
		}
		if js, err = p.Apply(js); err != nil {
			t.Fatal(err)
		}
		out[i] = &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(js, out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// goSteps runs a case's steps through the Go package's client methods,
// as a ported envtest table would: Create, then Update or UpdateStatus
// from the object as stored.
func goSteps(s *Suite, c *Case, srv *Server) (error, string) {
	var stored *unstructured.Unstructured
	for i, st := range c.Steps {
		last := i == len(c.Steps)-1
		ssrv := srv
		if st.CRDPatches != nil {
			var err error
			if ssrv, err = srv.Patched(s.CRDName, st.CRDPatches); err != nil {
				return nil, err.Error()
			}
		}
		if st.FieldValidation == "Strict" {
			// The Go package sends what client-go sends by default.
			return nil, "strict"
		}
		var storedMap map[string]any
		if stored != nil {
			storedMap = stored.Object
		}
		obj := &unstructured.Unstructured{Object: deepCopy(st.body(storedMap))}
		if st.Old != nil {
			stored = &unstructured.Unstructured{Object: deepCopy(st.Old)}
		}
		if obj.GetNamespace() == "" && st.Namespace != "" {
			obj.SetNamespace(st.Namespace)
		}
		var err error
		switch st.Op {
		case Create:
			err = ssrv.Create(obj)
		case Update:
			err = ssrv.Update(stored, obj)
		case UpdateStatus:
			err = ssrv.UpdateStatus(stored, obj)
		}
		if !last && st.Expect == nil {
			if err != nil {
				return nil, fmt.Sprintf("%s: refused: %v", st.Why, err)
			}
			stored = obj
			continue
		}
		if err != nil || last {
			return err, ""
		}
		stored = obj
	}
	return nil, ""
}

// checkSameNamed is checkSame naming the case.
func checkSameNamed(t *testing.T, name string, predicted, real *Outcome) {
	t.Helper()
	if predicted == nil || real == nil {
		t.Errorf("%s: an outcome is missing: runner %v, live %v", name, predicted, real)
		return
	}
	// The server's order of the errors of sibling fields is not fixed
	// (its list-type and schema checks range over maps): two answers that
	// differ in that order alone are the same answer.
	sameOrder := reflect.DeepEqual(predicted.Errors, real.Errors)
	sameSet := sameOrder || reflect.DeepEqual(sortedCauses(predicted.Errors), sortedCauses(real.Errors))
	if predicted.Accepted != real.Accepted || predicted.Reason != real.Reason || (predicted.Message != real.Message && !(sameSet && !sameOrder)) {
		t.Errorf("%s: verdict:\n got  %v %s %q\n want %v %s %q", name, predicted.Accepted, predicted.Reason, predicted.Message, real.Accepted, real.Reason, real.Message)
	}
	if !sameSet {
		t.Errorf("%s: causes:\n got  %v\n want %v", name, predicted.Errors, real.Errors)
	}
	if !reflect.DeepEqual(predicted.Warnings, real.Warnings) {
		t.Errorf("%s: warnings:\n got  %q\n want %q", name, predicted.Warnings, real.Warnings)
	}
	if real.Accepted && !reflect.DeepEqual(normalize(predicted.Stored), normalize(real.Stored)) {
		t.Errorf("%s: stored:\n got  %s\n want %s", name, yamlText(predicted.Stored), yamlText(real.Stored))
	}
}

// checkGoErr: the Go package's error is the live server's.
func checkGoErr(t *testing.T, name string, got, want error) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Errorf("%s: Go package: got %v, want %v", name, got, want)
		return
	}
	if got == nil {
		return
	}
	var gs, ws *apierrors.StatusError
	if !errors.As(got, &gs) || !errors.As(want, &ws) {
		t.Errorf("%s: not StatusErrors: %T %T", name, got, want)
		return
	}
	g, w := gs.ErrStatus, ws.ErrStatus
	var gc, wc []metav1.StatusCause
	if g.Details != nil && w.Details != nil {
		gc, wc = sortedStatusCauses(g.Details.Causes), sortedStatusCauses(w.Details.Causes)
		if reflect.DeepEqual(gc, wc) && g.Reason == w.Reason && g.Code == w.Code {
			// The same causes in another order (see checkSameNamed).
			return
		}
	}
	if g.Message != w.Message || g.Reason != w.Reason || g.Code != w.Code {
		t.Errorf("%s: Go package status:\n got  %d %s %q\n want %d %s %q", name, g.Code, g.Reason, g.Message, w.Code, w.Reason, w.Message)
	}
	if (g.Details == nil) != (w.Details == nil) || g.Details != nil && !reflect.DeepEqual(g.Details.Causes, w.Details.Causes) {
		t.Errorf("%s: Go package causes:\n got  %+v\n want %+v", name, g.Details, w.Details)
	}
}

func sortedCauses(cs []Cause) []Cause {
	out := append([]Cause(nil), cs...)
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

func sortedStatusCauses(cs []metav1.StatusCause) []metav1.StatusCause {
	out := append([]metav1.StatusCause(nil), cs...)
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}
