package cmd

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// TestEveryOutputFormat: every format of report.Formats is accepted by the
// commands that report findings, and its output parses as what it claims
// to be.
func TestEveryOutputFormat(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  scope: Global
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range report.Formats() {
		t.Run(string(f), func(t *testing.T) {
			streams, _, out, errOut := genericiooptions.NewTestIOStreams()
			if code := Main(streams, []string{"check", "-o", string(f), bad}); code != ExitFindings {
				t.Fatalf("got exit %d, want %d (stderr %q)", code, ExitFindings, errOut)
			}
			var err error
			switch f {
			case report.JUnit:
				err = xml.Unmarshal(out.Bytes(), new(struct{}))
			case report.JSON, report.SARIF, report.GitLab:
				err = json.Unmarshal(out.Bytes(), new(any))
			}
			if err != nil || out.Len() == 0 {
				t.Errorf("output does not parse (%v):\n%s", err, out)
			}
		})
	}
}
