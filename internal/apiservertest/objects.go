package apiservertest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// Dynamic returns a dynamic client of the admin.
func (s *Server) Dynamic(t testing.TB) dynamic.Interface {
	t.Helper()
	c, err := dynamic.NewForConfig(s.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Discovery returns a discovery client of the admin.
func (s *Server) Discovery(t testing.TB) discovery.DiscoveryInterface {
	t.Helper()
	c, err := discovery.NewDiscoveryClientForConfig(s.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// toUnstructured accepts YAML or JSON ([]byte or string), a map, an
// *unstructured.Unstructured or any typed object.
func toUnstructured(obj any) (*unstructured.Unstructured, error) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return o.DeepCopy(), nil
	case map[string]any:
		return (&unstructured.Unstructured{Object: o}).DeepCopy(), nil
	case string:
		return toUnstructured([]byte(o))
	case []byte:
		var m map[string]any
		if err := yaml.Unmarshal(o, &m); err != nil {
			return nil, err
		}
		if m == nil {
			return nil, fmt.Errorf("empty document")
		}
		return &unstructured.Unstructured{Object: m}, nil
	default:
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		return &unstructured.Unstructured{Object: m}, nil
	}
}

// ApplyCRD creates a CRD (YAML or JSON, or an object; see Create) and
// waits until it is established and every served version's resource is
// in discovery, so that custom resources can be created at once. It fails
// t if the server rejects it.
//
// The server itself delays the first create of a kind by 2s when the CRD
// was established less than 2s before (customresource_handler.go guards
// HA clusters so): expect it in the first Create after ApplyCRD.
func (s *Server) ApplyCRD(t testing.TB, obj any) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd, err := s.TryApplyCRD(obj)
	if err != nil {
		t.Fatalf("apiservertest: apply CRD: %v", err)
	}
	return crd
}

// TryApplyCRD is ApplyCRD returning the error instead: the server's
// rejection (an *apierrors.StatusError), or a timeout waiting for the CRD
// to be established.
func (s *Server) TryApplyCRD(obj any) (*apiextensionsv1.CustomResourceDefinition, error) {
	u, err := toUnstructured(obj)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
		return nil, err
	}
	cs, err := apiextensionsclient.NewForConfig(s.AdminConfig())
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	created, err := cs.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	return s.waitServed(ctx, cs, created.Name)
}

func (s *Server) waitServed(ctx context.Context, cs apiextensionsclient.Interface, name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	dc := cs.Discovery()
	var crd *apiextensionsv1.CustomResourceDefinition
	var why string
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		crd, err = cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		established := false
		for _, c := range crd.Status.Conditions {
			switch {
			case c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue:
				established = true
			case c.Type == apiextensionsv1.NamesAccepted && c.Status == apiextensionsv1.ConditionFalse:
				return false, fmt.Errorf("CRD %s: names not accepted: %s", name, c.Message)
			}
		}
		if !established {
			why = "not established"
			return false, nil
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}.String()
			rl, err := dc.ServerResourcesForGroupVersion(gv)
			if err != nil {
				why = fmt.Sprintf("%s not in discovery: %v", gv, err)
				return false, nil
			}
			found := false
			for _, r := range rl.APIResources {
				found = found || r.Name == crd.Spec.Names.Plural
			}
			if !found {
				why = fmt.Sprintf("%s/%s not in discovery", gv, crd.Spec.Names.Plural)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for CRD %s to be served: %w (%s)", name, err, why)
	}
	return crd, nil
}

// Resource finds the resource of a kind in discovery.
func (s *Server) Resource(gvk schema.GroupVersionKind) (gvr schema.GroupVersionResource, namespaced bool, err error) {
	dc, err := discovery.NewDiscoveryClientForConfig(s.AdminConfig())
	if err != nil {
		return gvr, false, err
	}
	rl, err := dc.ServerResourcesForGroupVersion(gvk.GroupVersion().String())
	if err != nil {
		return gvr, false, err
	}
	for _, r := range rl.APIResources {
		if r.Kind == gvk.Kind && !strings.Contains(r.Name, "/") {
			return gvk.GroupVersion().WithResource(r.Name), r.Namespaced, nil
		}
	}
	return gvr, false, fmt.Errorf("no resource of kind %s in discovery", gvk)
}

// Create creates a custom resource as the admin and returns what the
// server stored. A namespaced object without a namespace goes to
// "default", as kubectl does; no Namespace object is needed (see the
// package documentation). It fails t on any error.
func (s *Server) Create(t testing.TB, obj any) *unstructured.Unstructured {
	t.Helper()
	u, err := toUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	gvr, namespaced, err := s.Resource(u.GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	var ri dynamic.ResourceInterface = s.Dynamic(t).Resource(gvr)
	if namespaced {
		if u.GetNamespace() == "" {
			u.SetNamespace("default")
		}
		ri = s.Dynamic(t).Resource(gvr).Namespace(u.GetNamespace())
	}
	out, err := ri.Create(context.Background(), u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("apiservertest: create %s %s: %v", u.GetKind(), u.GetName(), err)
	}
	return out
}

// Stored reads a custom resource as etcd holds it, bypassing the server:
// what a write really stored (fields the server prunes on read are still
// there until the next write). resource is the plural; namespace is ""
// for a cluster-scoped kind. A missing object is nil.
func (s *Server) Stored(t testing.TB, group, resource, namespace, name string) map[string]any {
	t.Helper()
	key := s.prefix + "/" + group + "/" + resource + "/"
	if namespace != "" {
		key += namespace + "/"
	}
	key += name
	resp, err := s.etcd.Client.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("apiservertest: etcd get %s: %v", key, err)
	}
	if len(resp.Kvs) == 0 {
		return nil
	}
	var obj map[string]any
	if err := json.Unmarshal(resp.Kvs[0].Value, &obj); err != nil {
		t.Fatalf("apiservertest: %s is not JSON: %v", key, err)
	}
	return obj
}

// TryUpdateCRD updates the CRD of obj's name to obj's spec (as kubectl
// replace would, on the stored object's resourceVersion) and waits until
// discovery lists exactly its served versions, and a moment more, so that
// the next request to a custom resource is served under the new spec (the
// server says no more: no controller of this version sets the conditions'
// observedGeneration). It returns the server's refusal (an
// *apierrors.StatusError) as is.
func (s *Server) TryUpdateCRD(obj any) (*apiextensionsv1.CustomResourceDefinition, error) {
	u, err := toUnstructured(obj)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
		return nil, err
	}
	cs, err := apiextensionsclient.NewForConfig(s.AdminConfig())
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	cur, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	crd.ResourceVersion = cur.ResourceVersion
	updated, err := cs.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	// The server's CRD handler and discovery learn of the new spec from
	// the same informer, in handlers of their own: once discovery lists
	// exactly the served versions of the new spec, the handler has had
	// the event too; a moment more lets its handler finish.
	if _, err := s.waitServed(ctx, cs, crd.Name); err != nil {
		return nil, err
	}
	if err := s.waitUnserved(ctx, cs, updated); err != nil {
		return nil, err
	}
	time.Sleep(500 * time.Millisecond)
	return s.waitServed(ctx, cs, crd.Name)
}

// waitUnserved waits until no version the CRD does not serve is in
// discovery.
func (s *Server) waitUnserved(ctx context.Context, cs apiextensionsclient.Interface, crd *apiextensionsv1.CustomResourceDefinition) error {
	served := map[string]bool{}
	for _, v := range crd.Spec.Versions {
		served[v.Name] = v.Served
	}
	return wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		g, err := cs.Discovery().ServerGroups()
		if err != nil {
			return false, nil
		}
		for _, group := range g.Groups {
			if group.Name != crd.Spec.Group {
				continue
			}
			for _, v := range group.Versions {
				if served[v.Version] {
					continue
				}
				rl, err := cs.Discovery().ServerResourcesForGroupVersion(v.GroupVersion)
				if err != nil {
					continue
				}
				for _, r := range rl.APIResources {
					if r.Name == crd.Spec.Names.Plural {
						return false, nil
					}
				}
			}
		}
		return true, nil
	})
}

// Put writes obj into etcd as the stored custom resource, bypassing the
// server's validation: an object stored long ago, under an older schema,
// which an update then changes (ratcheting, transition rules). The
// server reads it back as it reads any stored object (pruned and
// defaulted by its decoder). resource is the plural; namespace is "" for
// a cluster-scoped kind.
func (s *Server) Put(t testing.TB, group, resource, namespace string, obj map[string]any) {
	t.Helper()
	u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}
	if u.GetUID() == "" {
		u.SetUID(types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", time.Now().UnixNano()%1e12)))
	}
	if ts := u.GetCreationTimestamp(); ts.IsZero() {
		u.SetCreationTimestamp(metav1.Now())
	}
	if u.GetGeneration() == 0 {
		u.SetGeneration(1)
	}
	u.SetNamespace(namespace)
	key := s.prefix + "/" + group + "/" + resource + "/"
	if namespace != "" {
		key += namespace + "/"
	}
	key += u.GetName()
	js, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.etcd.Client.Put(context.Background(), key, string(js)); err != nil {
		t.Fatalf("apiservertest: etcd put %s: %v", key, err)
	}
}
