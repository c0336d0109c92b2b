package agreement_test

import (
	"context"
	"strings"
	"testing"

	"go.etcd.io/etcd/server/v3/embed"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/apiservertest"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

const blobCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: blobs.example.com
spec:
  group: example.com
  names: {kind: Blob, plural: blobs, listKind: BlobList, singular: blob}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          data: {type: string}
`

// TestSizeLimitsAreTheServers: the limits crdlint reports are the
// defaults of the libraries the API server and etcd are built from.
func TestSizeLimitsAreTheServers(t *testing.T) {
	if got := genericapiserver.NewConfig(serializer.NewCodecFactory(runtime.NewScheme())).MaxRequestBodyBytes; got != source.MaxRequestBodyBytes {
		t.Errorf("the API server reads request bodies up to %d bytes, crdlint says %d", got, source.MaxRequestBodyBytes)
	}
	if got := embed.NewConfig().MaxRequestBytes; got != source.EtcdMaxRequestBytes {
		t.Errorf("etcd stores writes up to %d bytes, crdlint says %d", got, source.EtcdMaxRequestBytes)
	}
}

// TestSizeLimits creates custom resources whose request body is just
// under and just over the server's size limits, on a real API server and
// its etcd (default --max-request-bytes), and checks that crdlint's size
// findings say what the server does: object-over-request-limit exactly
// when the body is refused unread (413), object-over-etcd-limit when it
// is read but not stored, nothing when it is stored.
func TestSizeLimits(t *testing.T) {
	srv := apiservertest.Start(t, apiservertest.Options{})
	srv.ApplyCRD(t, blobCRD)
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "blobs"}
	blobs := srv.Dynamic(t).Resource(gvr).Namespace("default")

	tests := []struct {
		name string
		body int // the request body's length, as kubectl sends it
		rule string
		// refused is what the server answers: "" when it stores the
		// object. etcd refuses a write over its --max-request-bytes; over
		// 2 MiB, the server's etcd client refuses to send it first.
		refused string
	}{
		{name: "stored", body: source.EtcdMaxRequestBytes - 4<<10},
		{name: "over etcd's limit", body: source.EtcdMaxRequestBytes + 1, rule: source.RuleEtcdSize, refused: "etcdserver: request is too large"},
		{name: "the largest body read", body: source.MaxRequestBodyBytes, rule: source.RuleEtcdSize, refused: "trying to send message larger than max"},
		{name: "one byte more", body: source.MaxRequestBodyBytes + 1, rule: source.RuleRequestSize, refused: "Request entity too large: limit is 3145728"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := blobOfBody(t, "blob-"+string(rune('a'+i)), tt.body)
			// crdlint's verdict on the object written as YAML.
			doc, err := yaml.Marshal(u.Object)
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, x := range source.Parse("blob.yaml", doc).Findings {
				rules = append(rules, x.Rule)
			}
			if want := []string{tt.rule}; tt.rule == "" && len(rules) != 0 || tt.rule != "" && strings.Join(rules, " ") != tt.rule {
				t.Errorf("crdlint: got %v, want %v", rules, want)
			}
			// The server's, on the body kubectl sends.
			_, err = blobs.Create(context.Background(), u, metav1.CreateOptions{})
			switch {
			case tt.refused == "" && err != nil:
				t.Errorf("server: got %v, want the object stored", err)
			case tt.refused != "" && (err == nil || !strings.Contains(err.Error(), tt.refused)):
				t.Errorf("server: got %v, want %q", err, tt.refused)
			default:
				t.Logf("server: %v", err)
			case tt.rule == source.RuleRequestSize && !apierrors.IsRequestEntityTooLargeError(err):
				t.Errorf("server: got %v, want 413", err)
			}
		})
	}
}

// blobOfBody makes a Blob whose body, as kubectl's unstructured JSON
// scheme encodes it (what kubectl create sends), is n bytes long.
func blobOfBody(t *testing.T, name string, n int) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Blob",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"data":     "",
	}}
	body, err := runtime.Encode(unstructured.UnstructuredJSONScheme, u)
	if err != nil {
		t.Fatal(err)
	}
	u.Object["data"] = strings.Repeat("x", n-len(body))
	if body, err = runtime.Encode(unstructured.UnstructuredJSONScheme, u); err != nil || len(body) != n {
		t.Fatalf("body of %d bytes, want %d (%v)", len(body), n, err)
	}
	return u
}
