package apiservertest_test

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/apiservertest"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/kubeminor"
)

const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string}
`

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// The server must give the real answers a CLI meets: 200, 401, 403, TLS
// failure, and connection refused once stopped.
func TestServer(t *testing.T) {
	began := time.Now()
	srv := apiservertest.Start(t, apiservertest.Options{
		Users: []apiservertest.User{{Name: "viewer", Token: "viewer-token"}},
		Deny:  []apiservertest.Rule{{User: "viewer", Verb: "list", Group: "example.com", Resource: "widgets"}},
	})
	t.Logf("start: %v", time.Since(began))
	srv.ApplyCRD(t, widgetCRD)
	// Namespaced objects need no Namespace object: there is no core API
	// and admission (NamespaceLifecycle) is off.
	for _, ns := range []string{"", "default", "elsewhere"} {
		obj := map[string]any{
			"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w-" + ns, "namespace": ns},
			"spec":     map[string]any{"color": "red"},
		}
		if ns == "" {
			obj["metadata"] = map[string]any{"name": "w"}
		}
		got := srv.Create(t, obj)
		if want := map[string]string{"": "default"}[ns]; want == "" && got.GetNamespace() != ns || want != "" && got.GetNamespace() != want {
			t.Errorf("created in namespace %q, input %q", got.GetNamespace(), ns)
		}
	}

	badToken := srv.KubeconfigFor(apiservertest.AdminUser)
	badToken.Token = "not-a-token"
	noToken := srv.KubeconfigFor(apiservertest.AdminUser)
	noToken.Token = ""
	wrongCA := srv.KubeconfigFor(apiservertest.AdminUser)
	wrongCA.CAData = apiservertest.OtherCA()

	tests := []struct {
		name       string
		kubeconfig string
		check      func(error) bool
		contains   []string
	}{
		{"admin lists", srv.Kubeconfig(t, apiservertest.AdminUser), func(err error) bool { return err == nil }, nil},
		{"unknown token is unauthorized", badToken.Write(t), apierrors.IsUnauthorized, nil},
		{"no token is unauthorized (no anonymous access)", noToken.Write(t), apierrors.IsUnauthorized, nil},
		{"denied verb is forbidden", srv.Kubeconfig(t, "viewer"), apierrors.IsForbidden, []string{`"viewer"`, "list", `"widgets"`, `"example.com"`}},
		{"wrong CA fails TLS", wrongCA.Write(t), func(err error) bool { return err != nil && strings.Contains(err.Error(), "certificate") }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := list(t, tt.kubeconfig, "default")
			if !tt.check(err) {
				t.Fatalf("unexpected result: %v", err)
			}
			for _, s := range tt.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %s", err, s)
				}
			}
		})
	}

	// The denied user still discovers and gets: only list is denied.
	vc := config(t, srv.Kubeconfig(t, "viewer"))
	dc, err := discovery.NewDiscoveryClientForConfig(vc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dc.ServerResourcesForGroupVersion("example.com/v1"); err != nil {
		t.Errorf("viewer discovery: %v", err)
	}
	if _, err := dynamic.NewForConfigOrDie(vc).Resource(widgets).Namespace("default").Get(context.Background(), "w", metav1.GetOptions{}); err != nil {
		t.Errorf("viewer get: %v", err)
	}

	admin := srv.Kubeconfig(t, apiservertest.AdminUser)
	srv.Stop()
	if err := list(t, admin, "default"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("after Stop: got %v, want connection refused", err)
	}
}

// Servers start one after the other in one binary: global state (feature
// gates, metrics, klog) must not trip the second. The second reports
// another release's version (Options.Version), the first its libraries'.
func TestSequentialServers(t *testing.T) {
	for i, version := range []string{"", "1.36.2"} {
		srv := apiservertest.Start(t, apiservertest.Options{Version: version})
		srv.ApplyCRD(t, widgetCRD)
		dc, err := discovery.NewDiscoveryClientForConfig(srv.AdminConfig())
		if err != nil {
			t.Fatal(err)
		}
		v, err := dc.ServerVersion()
		if err != nil {
			t.Fatal(err)
		}
		// An unstamped build reports its libraries' minor, not a gitVersion.
		want := kubeminor.Own()
		if version != "" {
			want = "1.36"
			if v.GitVersion != "v"+version {
				t.Errorf("server %d reports gitVersion %q, want v%s", i, v.GitVersion, version)
			}
		}
		if got := v.Major + "." + v.Minor; got != want {
			t.Errorf("server %d reports %s, want %s", i, got, want)
		}
		srv.Stop()
	}
}

func config(t *testing.T, kubeconfig string) *rest.Config {
	t.Helper()
	c, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c.Timeout = 10 * time.Second
	return c
}

func list(t *testing.T, kubeconfig, ns string) error {
	c, err := dynamic.NewForConfig(config(t, kubeconfig))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resource(widgets).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	return err
}
