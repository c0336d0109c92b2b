package upgrade

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"

	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	serializerjson "k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// The tests decode CRDs as the server stores them: the apiextensions
// scheme's v1 decoding and defaulting (the input Compare documents).
var (
	testScheme = func() *runtime.Scheme {
		s := runtime.NewScheme()
		apiextensionsinstall.Install(s)
		return s
	}()
	testDecoder = serializerjson.NewSerializerWithOptions(serializerjson.DefaultMetaFactory, testScheme, testScheme, serializerjson.SerializerOptions{})
)

// decodeJSON decodes and defaults a v1 CRD from JSON.
func decodeJSON(js []byte) (*apiextensionsv1.CustomResourceDefinition, error) {
	obj, _, err := testDecoder.Decode(js, nil, &apiextensionsv1.CustomResourceDefinition{})
	if err != nil {
		return nil, err
	}
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	testScheme.Default(crd)
	return crd, nil
}

// crdFile is one CRD read from a file: the decoded object, its JSON as
// written, and the parsed document for positions.
type crdFile struct {
	path string
	crd  *apiextensionsv1.CustomResourceDefinition
	doc  *source.Document
	// stored is the decoded and defaulted CRD as JSON, where every Path
	// of a change must exist.
	stored any
}

// readCRD reads a file holding exactly one CRD, failing the test if it
// cannot (a missing fixture is a failure, never a skip).
func readCRD(tb testing.TB, path string) *crdFile {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	f := source.Parse(path, data)
	if len(f.Documents) != 1 {
		tb.Fatalf("%s: %d documents, want exactly one CRD", path, len(f.Documents))
	}
	d := f.Documents[0]
	crd, err := decodeJSON(d.JSON)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return &crdFile{path: path, crd: crd, doc: d, stored: storedJSON(tb, crd)}
}

func storedJSON(tb testing.TB, crd *apiextensionsv1.CustomResourceDefinition) any {
	tb.Helper()
	b, err := json.Marshal(crd)
	if err != nil {
		tb.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		tb.Fatal(err)
	}
	return v
}

// resolves says a path in the server's notation names a value of v (the
// JSON of a CRD).
func resolves(v any, path string) bool {
	for _, s := range source.ParsePath(path) {
		switch x := v.(type) {
		case map[string]any:
			c, ok := x[s.Name]
			if !ok {
				return false
			}
			v = c
		case []any:
			i, err := strconv.Atoi(s.Name)
			if !s.Bracket || err != nil || i < 0 || i >= len(x) {
				return false
			}
			v = x[i]
		default:
			return false
		}
	}
	return true
}

// checkPaths fails the test for a change whose path does not exist in
// the CRD it names.
func checkPaths(t *testing.T, old, new *crdFile, cs []Change) {
	t.Helper()
	for _, c := range cs {
		in := new
		if c.InOld {
			in = old
		}
		if !resolves(in.stored, c.Path) {
			t.Errorf("%s: %s: path %s (inOld=%t) does not exist in %s", c.Rule, c.Message, c.Path, c.InOld, in.path)
		}
		if c.CEL != nil && !resolves(in.stored, c.CEL.Node) {
			t.Errorf("%s: CEL node %s does not exist in %s", c.Rule, c.CEL.Node, in.path)
		}
	}
}
