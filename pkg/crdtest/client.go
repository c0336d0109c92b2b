package crdtest

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Create sends obj (an *unstructured.Unstructured or a typed object with
// apiVersion and kind set) as a client's Create would. On success obj
// becomes what the server stores (pruned, defaulted, its status dropped
// when the status subresource exists), as a client fills it in; a
// refusal is the server's *apierrors.StatusError (message, reason,
// causes); a kind no loaded CRD serves is the lookup's error.
func (s *Server) Create(obj runtime.Object) error {
	return s.write(Create, nil, obj)
}

// Update sends obj as an update of old, the object as stored (as a
// client's Update on old's resourceVersion would): transition rules see
// old as oldSelf, unchanged invalid values ratchet, and a status
// subresource keeps old's status.
func (s *Server) Update(old, obj runtime.Object) error {
	return s.write(Update, old, obj)
}

// UpdateStatus sends obj to old's status subresource (a client's
// Status().Update): the status strategy keeps all of old but obj's
// status, and validates the status alone.
func (s *Server) UpdateStatus(old, obj runtime.Object) error {
	return s.write(UpdateStatus, old, obj)
}

// Stored is what a create of obj stores, obj untouched; the refusal when
// there is one.
func (s *Server) Stored(obj runtime.Object) (*unstructured.Unstructured, error) {
	m, err := toMap(obj)
	if err != nil {
		return nil, err
	}
	resp, err := s.Do(Request{Op: Create, Object: m})
	if err != nil {
		return nil, err
	}
	if resp.Err != nil {
		return nil, resp.Err
	}
	return &unstructured.Unstructured{Object: resp.Object}, nil
}

func (s *Server) write(op Op, old, obj runtime.Object) error {
	m, err := toMap(obj)
	if err != nil {
		return err
	}
	req := Request{Op: op, Object: m}
	if old != nil {
		if req.Old, err = toMap(old); err != nil {
			return err
		}
	}
	resp, err := s.Do(req)
	if err != nil {
		return err
	}
	if resp.Err != nil {
		return resp.Err
	}
	return fromMap(resp.Object, obj)
}

func toMap(obj runtime.Object) (map[string]any, error) {
	if obj == nil {
		return nil, fmt.Errorf("no object")
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return runtime.DeepCopyJSON(u.Object), nil
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
}

func fromMap(m map[string]any, into runtime.Object) error {
	if u, ok := into.(*unstructured.Unstructured); ok {
		u.Object = runtime.DeepCopyJSON(m)
		return nil
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(runtime.DeepCopyJSON(m), into)
}
