package cluster

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
)

func TestParseRefs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    []ref
		wantErr string
	}{
		{"type", []string{"crds"}, []ref{{resource: "crds"}}, ""},
		{"type and names", []string{"widgets.example.com", "a", "b"}, []ref{{"widgets.example.com", []string{"a", "b"}}}, ""},
		{"several types", []string{"crds,widgets"}, []ref{{resource: "crds"}, {resource: "widgets"}}, ""},
		{"several types with a name", []string{"crds,widgets", "x"}, []ref{{"crds", []string{"x"}}, {"widgets", []string{"x"}}}, ""},
		{"type/name", []string{"crd/widgets.example.com"}, []ref{{"crd", []string{"widgets.example.com"}}}, ""},
		{"several type/name", []string{"wd/a", "crd/b"}, []ref{{"wd", []string{"a"}}, {"crd", []string{"b"}}}, ""},
		{"none", nil, nil, "no resource given"},
		{"mixed", []string{"crd", "crd/b"}, nil, "no need to specify a resource type as a separate argument"},
		{"no name", []string{"crd/"}, nil, "single resource and name"},
		{"no type", []string{"/x"}, nil, "single resource and name"},
		{"two slashes", []string{"a/b/c"}, nil, "single resource and name"},
		{"empty type in list", []string{"crds,"}, nil, "empty resource type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRefs(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func FuzzParseRefs(f *testing.F) {
	for _, s := range []string{"crds", "crd/x", "a,b x y", "wd/a crd/b", "/", ",", "a//b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Fields(s)
		refs, err := parseRefs(args)
		if err != nil {
			return
		}
		for _, r := range refs {
			if r.resource == "" || strings.Contains(r.resource, "/") {
				t.Fatalf("bad resource %q from %q", r.resource, args)
			}
			for _, n := range r.names {
				if n == "" {
					t.Fatalf("empty name from %q", args)
				}
			}
		}
	})
}

func TestDescribe(t *testing.T) {
	const host = "https://10.0.0.1:6443"
	gr := schema.GroupResource{Group: "example.com", Resource: "widgets"}
	refused := &url.Error{Op: "Get", URL: host + "/api", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"401", apierrors.NewUnauthorized("Unauthorized"), "the API server at " + host + " rejected the credentials (401 Unauthorized): check the token, client certificate or context in the kubeconfig"},
		{"403", apierrors.NewForbidden(gr, "", errors.New(`User "bob" cannot list resource "widgets" in API group "example.com" in the namespace "default"`)),
			`widgets.example.com is forbidden: User "bob" cannot list resource "widgets" in API group "example.com" in the namespace "default"`},
		{"404", apierrors.NewNotFound(gr, "w"), `widgets.example.com "w" not found`},
		{"refused", refused, "cannot reach the API server at " + host + ": connection refused (is the cluster running, and --server or the kubeconfig right?)"},
		{"deadline", fmt.Errorf("get: %w", context.DeadlineExceeded), "timed out waiting for the API server at " + host + " (raise --request-timeout, or check the address)"},
		{"client timeout", &url.Error{Op: "Get", URL: host, Err: errors.New("net/http: request canceled (Client.Timeout exceeded while awaiting headers)")}, "timed out waiting for the API server at " + host + " (raise --request-timeout, or check the address)"},
		{"unknown CA", &url.Error{Op: "Get", URL: host, Err: x509.UnknownAuthorityError{}}, "TLS with the API server at " + host + " failed: x509: certificate signed by unknown authority"},
		{"dns", &url.Error{Op: "Get", URL: host, Err: &net.DNSError{Err: "no such host", Name: "nope.invalid"}}, "cannot reach the API server at " + host + ": cannot resolve nope.invalid"},
		{"server timeout", apierrors.NewServerTimeout(gr, "list", 1), "the API server at " + host + " timed out: The list operation against widgets.example.com could not be completed at this time, please try again."},
		{"multi-line", errors.New("a\nb"), "reading from the API server at " + host + ": a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Describe(tt.err, host)
			if got := err.Error(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("the cause is lost")
			}
			if Describe(err, host) != err {
				t.Errorf("describing twice changes the message")
			}
		})
	}
}

func TestRedactHost(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:secret@h:6443": "https://h:6443",
		"https://h:6443":             "https://h:6443",
		"":                           "",
	} {
		if got := redactHost(in); got != want {
			t.Errorf("redactHost(%q) = %q, want %q", in, got, want)
		}
	}
}

// Render must print what `kubectl get -o yaml` prints, so that positions
// in findings can be followed in kubectl's output.
func TestRenderIsKubectlYAML(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1",
		"kind":       "Widget",
		"metadata": map[string]any{
			"name": "w", "namespace": "ns", "uid": "u-1", "resourceVersion": "7",
			"managedFields": []any{map[string]any{"manager": "kubectl", "operation": "Apply"}},
			"labels":        map[string]any{"b": "2", "a": "1"},
		},
		"spec": map[string]any{"z": int64(1), "text": "multi\nline", "list": []any{"x", map[string]any{"k": true}}, "empty": map[string]any{}},
	}}
	got, err := Render(u)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	p := &printers.OmitManagedFieldsPrinter{Delegate: &printers.YAMLPrinter{}}
	if err := p.PrintObj(u.DeepCopy(), &want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("Render:\n%s\nkubectl's YAML printer:\n%s", got, want.Bytes())
	}
	if _, ok := u.Object["metadata"].(map[string]any)["managedFields"]; !ok {
		t.Error("Render changed its argument")
	}
}

func TestName(t *testing.T) {
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "a", "namespace": "shop"}}}
	cl := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "widgets.example.com"}}}
	tests := []struct {
		u    *unstructured.Unstructured
		gr   schema.GroupResource
		want string
	}{
		{ns, schema.GroupResource{Group: "example.com", Resource: "widgets"}, "cluster/shop/widgets.example.com/a"},
		{ns, schema.GroupResource{}, "cluster/shop/widget.example.com/a"},
		{cl, schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}, "cluster/customresourcedefinitions.apiextensions.k8s.io/widgets.example.com"},
	}
	for _, tt := range tests {
		if got := Name(tt.u, tt.gr); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
