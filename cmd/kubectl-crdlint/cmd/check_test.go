package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

func TestCheckValidate(t *testing.T) {
	tests := []struct {
		name    string
		o       CheckOptions
		wantErr string
	}{
		{"no input", CheckOptions{Output: report.Text}, "no input"},
		{"list rules needs no input", CheckOptions{ListRules: true}, ""},
		{"stdin twice", CheckOptions{Output: report.Text, paths: []string{"-", "-"}}, "only once"},
		{"unknown rule", CheckOptions{Output: report.Text, paths: []string{"x"}, Disable: []string{"crd-nope"}}, `unknown rule "crd-nope"`},
		{"comma-separated rules", CheckOptions{Output: report.Text, paths: []string{"x"}, Disable: []string{"crd-no-pruning,crd-empty-object"}}, ""},
		{"cel costs as sarif", CheckOptions{Output: report.SARIF, paths: []string{"x"}, CELCosts: true}, "--cel-costs prints text or json"},
		{"fine", CheckOptions{Output: report.JSON, paths: []string{"a", "-"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				return
			}
			var ue *UsageError
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ue) {
				t.Fatalf("got %v, want a usage error containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestDisableUnknownRule: --disable with an ID the rule set does not
// hold is a usage error (exit 2, one line) for every command that takes
// it, with explain's "did you mean" (ruleset.Unknown); the case counts
// (IDs are lowercase), so an ID in another case is suggested, not taken.
func TestDisableUnknownRule(t *testing.T) {
	tests := []struct {
		name, arg, want string
	}{
		{"a near miss", "crd-strucural", `error: --disable: unknown rule "crd-strucural": did you mean crd-structural?`},
		{"only the case differs", "CRD-Structural", `error: --disable: unknown rule "CRD-Structural": did you mean crd-structural?`},
		{"a part of an ID", "structural", `error: --disable: unknown rule "structural": did you mean crd-structural?`},
		{"several", "cr-cell", `error: --disable: unknown rule "cr-cell": did you mean cr-cel or crd-cel?`},
		{"in a comma-separated list", "crd-cel, crd-grup", `error: --disable: unknown rule "crd-grup": did you mean crd-group?`},
		{"nothing close", "no-such-rule", `error: --disable: unknown rule "no-such-rule" (see 'kubectl crdlint check --list-rules')`},
	}
	for _, tt := range tests {
		for _, args := range [][]string{{"check", "x.yaml"}, {"upgrade", "a.yaml", "b.yaml"}, {"config", "view"}} {
			t.Run(tt.name+"/"+args[0], func(t *testing.T) {
				t.Chdir(t.TempDir())
				code, out, errOut := runMain(t, append(append([]string{}, args...), "--no-config", "--disable", tt.arg)...)
				if code != ExitUsage || out != "" || errOut != tt.want+"\n" {
					t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, stderr %q", code, out, errOut, tt.want+"\n")
				}
			})
		}
	}
}

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
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
              size: {type: integer, maximum: 10}
`

func TestCheckRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	crdPath := write("crds/widget.yaml", widgetCRD)
	good := write("crs/good.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {size: 3}\n")
	big := write("crs/big.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {size: 30}\n")
	orphan := write("orphan.yaml", "apiVersion: other.example.com/v1\nkind: Gadget\nmetadata: {name: a}\n")
	tests := []struct {
		name     string
		o        CheckOptions
		stdin    string
		wantErr  error
		wantRule string
		wantN    int
	}{
		{"valid CR with --crd", CheckOptions{sourceOptions: sourceOptions{CRDs: []string{crdPath}}, paths: []string{good}}, "", nil, "", 0},
		{"invalid CR with --crd", CheckOptions{sourceOptions: sourceOptions{CRDs: []string{crdPath}}, paths: []string{big}}, "", errFindings, "cr-schema", 1},
		{"CRD among the inputs", CheckOptions{paths: []string{filepath.Join(dir, "crs"), crdPath}}, "", errFindings, "cr-schema", 1},
		{"CR without CRD is an error", CheckOptions{paths: []string{orphan}}, "", errFindings, "cr-no-crd", 1},
		{"--missing-crds warn", CheckOptions{paths: []string{orphan}, sourceOptions: sourceOptions{Missing: missingOptions{Missing: "warn"}}}, "", nil, "cr-no-crd", 1},
		{"--missing-crds ignore", CheckOptions{paths: []string{orphan}, sourceOptions: sourceOptions{Missing: missingOptions{Missing: "ignore"}}}, "", nil, "", 0},
		{"--require-crds", CheckOptions{paths: []string{orphan}, sourceOptions: sourceOptions{Missing: missingOptions{RequireCRDs: true}}}, "", errFindings, "cr-no-crd", 1},
		{"--fail-on warning", CheckOptions{paths: []string{orphan}, sourceOptions: sourceOptions{Missing: missingOptions{Missing: "warn"}}, FailOn: severityFlag(report.Warning)}, "", errFindings, "cr-no-crd", 1},
		{"stdin against --crd", CheckOptions{sourceOptions: sourceOptions{CRDs: []string{crdPath}}, paths: []string{"-"}}, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {size: 30}\n", errFindings, "cr-schema", 1},
		{"--crd from stdin refused", CheckOptions{sourceOptions: sourceOptions{CRDs: []string{"-"}}, paths: []string{good}}, "", &UsageError{}, "", 0},
		{"missing --crd path", CheckOptions{sourceOptions: sourceOptions{CRDs: []string{filepath.Join(dir, "nope")}}, paths: []string{good}}, "", &UsageError{}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streams, in, out, _ := genericiooptions.NewTestIOStreams()
			in.WriteString(tt.stdin)
			o := tt.o
			o.IOStreams = streams
			o.Output = report.JSON
			if o.FailOn == 0 {
				o.FailOn = severityFlag(report.Error)
			}
			err := o.Run(context.Background())
			switch want := tt.wantErr.(type) {
			case nil:
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
			case *UsageError:
				var ue *UsageError
				if !errors.As(err, &ue) {
					t.Fatalf("got %v, want a usage error", err)
				}
				return
			default:
				if !errors.Is(err, want) {
					t.Fatalf("got error %v, want %v", err, want)
				}
			}
			var res struct {
				Findings []report.Finding `json:"findings"`
			}
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
			n := 0
			for _, f := range res.Findings {
				if f.Rule == tt.wantRule {
					n++
				}
			}
			if len(res.Findings) != tt.wantN || n != tt.wantN {
				t.Errorf("got findings %+v, want %d of rule %s", res.Findings, tt.wantN, tt.wantRule)
			}
		})
	}
}
