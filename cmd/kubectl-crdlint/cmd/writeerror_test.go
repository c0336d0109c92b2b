package cmd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// fullDisk fails every write, as stdout redirected to a full disk does.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

const markedCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string, x-kubernetes-mutability: Immutable}
`

// TestOutputThatCannotBeWritten: every command whose output does not
// reach its destination says so and exits 2, rather than exiting as if
// its output were whole (prune's YAML and immutable --to-cel did not).
func TestOutputThatCannotBeWritten(t *testing.T) {
	examples, err := filepath.Abs(filepath.Join("..", "..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	marked := filepath.Join(t.TempDir(), "gadget.yaml")
	if err := os.WriteFile(marked, []byte(markedCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	valid, crs, up := filepath.Join(examples, "valid"), filepath.Join(examples, "crs"), filepath.Join(examples, "upgrade")
	for _, args := range [][]string{
		{"check", "--no-config", examples},
		{"check", "--no-config", "-o", "json", examples},
		{"check", "--no-config", "--cel-costs", examples},
		{"check", "--no-config", "-o", "sarif", examples},
		{"prune", "--no-config", "--crd", valid, crs},
		{"prune", "--no-config", "-o", "json", "--crd", valid, crs},
		{"prune", "--no-config", "--dry-run", "--crd", valid, crs},
		{"fields", "--no-config", "--crd", valid, crs},
		{"fields", "--no-config", "-o", "json", "--crd", valid, crs},
		{"fields", "--no-config", "-o", "name", "--field-selector", "metadata.name!=x", "--crd", valid, crs},
		{"immutable", "--no-config", "--to-cel", marked},
		{"upgrade", "--no-config", filepath.Join(up, "widget-v1.yaml"), filepath.Join(up, "widget-v2.yaml"), filepath.Join(up, "objects.yaml")},
		{"explain", "crd-structural"},
		{"check", "--list-rules"},
		{"version"},
		{"--help"},
		{"check", "--help"},
		{"help", "upgrade"},
	} {
		var errOut bytes.Buffer
		code := Main(genericiooptions.IOStreams{In: strings.NewReader(""), Out: fullDisk{}, ErrOut: &errOut}, args)
		if code != ExitUsage || !strings.Contains(errOut.String(), "no space left on device") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and the write's error", args, code, errOut.String())
		}
	}
}
