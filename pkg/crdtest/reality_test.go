package crdtest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/apiservertest"
)

// warnings collects a client's warning headers.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) HandleWarningHeader(code int, agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.msgs
	w.msgs = nil
	return out
}

// live runs requests on a real API server, as a client-go client sends
// them: the old object of an update is written into etcd as it is (an
// object stored under an older schema can be invalid now), then the
// update goes to the stored object's resourceVersion.
type live struct {
	srv  *apiservertest.Server
	dyn  dynamic.Interface
	warn *warnings
	// installed are the specs of the CRDs installed, by name (install).
	installed map[string]string
}

func newLive(t *testing.T) *live {
	srv := apiservertest.Start(t, apiservertest.Options{})
	cfg := srv.AdminConfig()
	w := &warnings{}
	cfg.WarningHandler = w
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &live{srv: srv, dyn: dyn, warn: w, installed: map[string]string{}}
}

// do runs one request and deletes the object after it.
func (l *live) do(t *testing.T, req Request) (*Outcome, error) {
	t.Helper()
	ctx := context.Background()
	obj := &unstructured.Unstructured{Object: deepCopy(req.Object)}
	gvk := obj.GroupVersionKind()
	gvr, namespaced, err := l.srv.Resource(gvk)
	if err != nil {
		t.Fatal(err)
	}
	ns := ""
	if namespaced {
		ns = obj.GetNamespace()
		if ns == "" {
			ns = "default"
		}
	}
	var ri dynamic.ResourceInterface = l.dyn.Resource(gvr)
	if namespaced {
		ri = l.dyn.Resource(gvr).Namespace(ns)
	}
	var out *unstructured.Unstructured
	if req.Op == Create {
		l.warn.take()
		out, err = ri.Create(ctx, obj, metav1.CreateOptions{FieldValidation: req.FieldValidation})
	} else {
		old := &unstructured.Unstructured{Object: deepCopy(req.Old)}
		if obj.GetName() == "" {
			obj.SetName(old.GetName())
		}
		l.srv.Put(t, gvk.Group, gvr.Resource, ns, old.Object)
		cur, gerr := ri.Get(ctx, old.GetName(), metav1.GetOptions{})
		if gerr != nil {
			t.Fatal(gerr)
		}
		obj.SetResourceVersion(cur.GetResourceVersion())
		l.warn.take()
		if req.Op == UpdateStatus {
			out, err = ri.UpdateStatus(ctx, obj, metav1.UpdateOptions{FieldValidation: req.FieldValidation})
		} else {
			out, err = ri.Update(ctx, obj, metav1.UpdateOptions{FieldValidation: req.FieldValidation})
		}
	}
	o := &Outcome{Accepted: err == nil, Warnings: l.warn.take()}
	// The server tells what it pruned only in its warnings.
	for _, w := range o.Warnings {
		if p, ok := strings.CutPrefix(w, `unknown field "`); ok {
			o.Pruned = append(o.Pruned, strings.TrimSuffix(p, `"`))
		}
	}
	if err != nil {
		var se *apierrors.StatusError
		if !errors.As(err, &se) {
			t.Fatalf("%s: not a StatusError: %v", req.Op, err)
		}
		o.Reason, o.Code, o.Message = string(se.ErrStatus.Reason), se.ErrStatus.Code, se.Error()
		if se.ErrStatus.Details != nil {
			for _, c := range se.ErrStatus.Details.Causes {
				o.Errors = append(o.Errors, Cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
			}
		}
	} else {
		o.Stored = withoutGenerated(out.Object)
	}
	name := obj.GetName()
	if out != nil {
		name = out.GetName()
	}
	if name != "" {
		_ = ri.Delete(ctx, name, metav1.DeleteOptions{})
	}
	return o, err
}

// TestPredictionAgainstReality runs every case of the in-repo suites on
// the in-process API server of the cluster tests: its answer must meet
// the case's expectation, and be the runner's (verdict, reason, message,
// causes in order, warnings, stored object). Cases whose answer the
// runner predicts but a real server would give differently fail here
// however the suite was recorded.
func TestPredictionAgainstReality(t *testing.T) {
	files, _ := filepath.Glob("testdata/suites/*.crdtest.yaml")
	if len(files) == 0 {
		t.Fatal("no suites")
	}
	l := newLive(t)
	applied := map[string]bool{}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Read(f, data)
		if err != nil {
			t.Fatal(err)
		}
		off, err := Load(s.CRDs...)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range off.CRDs() {
			if !applied[c.Name] {
				l.srv.ApplyCRD(t, c)
				applied[c.Name] = true
			}
		}
		for _, c := range s.Cases {
			t.Run(filepath.Base(f)+"/"+c.Name, func(t *testing.T) {
				st := c.Steps[0]
				req := Request{Op: st.Op, Old: st.Old, Object: st.Object, Namespace: st.Namespace, FieldValidation: st.FieldValidation}
				resp, err := off.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				predicted := outcome(resp)
				real, realErr := l.do(t, req)
				n++
				checkGoPackage(t, off, req, realErr)
				if d := compare(st.Expect, real); len(d) > 0 {
					t.Errorf("the expectation does not hold on the real server: %+v", d)
				}
				checkSame(t, predicted, real)
			})
		}
	}
	if n < 15 {
		t.Errorf("only %d cases ran", n)
	}
}

// checkSame compares what the runner predicted with the real answer.
func checkSame(t *testing.T, predicted, real *Outcome) {
	t.Helper()
	if predicted.Accepted != real.Accepted || predicted.Reason != real.Reason || predicted.Message != real.Message {
		t.Errorf("verdict:\n got  %v %s %q\n want %v %s %q", predicted.Accepted, predicted.Reason, predicted.Message, real.Accepted, real.Reason, real.Message)
	}
	if !slices.Equal(predicted.Errors, real.Errors) {
		t.Errorf("causes:\n got  %v\n want %v", predicted.Errors, real.Errors)
	}
	if !slices.Equal(predicted.Warnings, real.Warnings) {
		t.Errorf("warnings:\n got  %q\n want %q", predicted.Warnings, real.Warnings)
	}
	if real.Accepted && !reflect.DeepEqual(normalize(predicted.Stored), normalize(real.Stored)) {
		t.Errorf("stored:\n got  %s\n want %s", yamlText(predicted.Stored), yamlText(real.Stored))
	}
}

// checkGoPackage: the Go package's Create, Update or UpdateStatus gives
// the real server's error: same message, reason, code and causes.
func checkGoPackage(t *testing.T, off *Server, req Request, want error) {
	t.Helper()
	obj := &unstructured.Unstructured{Object: deepCopy(req.Object)}
	var got error
	switch req.Op {
	case Create:
		got = off.Create(obj)
	case Update:
		got = off.Update(&unstructured.Unstructured{Object: req.Old}, obj)
	case UpdateStatus:
		got = off.UpdateStatus(&unstructured.Unstructured{Object: req.Old}, obj)
	}
	if req.FieldValidation == "Strict" {
		// The Go package sends what client-go sends by default (Warn);
		// the runner's fieldValidation is the request's.
		return
	}
	var gs, ws *apierrors.StatusError
	if (got == nil) != (want == nil) {
		t.Fatalf("Go package: got %v, want %v", got, want)
	}
	if got == nil {
		return
	}
	if !errors.As(got, &gs) || !errors.As(want, &ws) {
		t.Fatalf("not StatusErrors: %T %T", got, want)
	}
	g, w := gs.ErrStatus, ws.ErrStatus
	if g.Message != w.Message || g.Reason != w.Reason || g.Code != w.Code {
		t.Errorf("Go package status:\n got  %d %s %q\n want %d %s %q", g.Code, g.Reason, g.Message, w.Code, w.Reason, w.Message)
	}
	if (g.Details == nil) != (w.Details == nil) || g.Details != nil && !reflect.DeepEqual(g.Details.Causes, w.Details.Causes) {
		t.Errorf("Go package causes:\n got  %+v\n want %+v", g.Details, w.Details)
	}
}
