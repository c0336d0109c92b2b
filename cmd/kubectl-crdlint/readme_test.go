package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/cmd/kubectl-crdlint/cmd"
)

// TestREADMEOutput keeps the output pasted into README.md and
// examples/README.md true: it is what the README's first command prints.
func TestREADMEOutput(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
	if err := os.Chdir("../.."); err != nil {
		t.Fatal(err)
	}
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	code := cmd.Main(streams, []string{"check", "examples/"})
	if code != 1 || errOut.Len() > 0 {
		t.Fatalf("check examples/: exit %d, stderr %q; want exit 1 (the invalid examples) and no stderr", code, errOut)
	}
	for _, readme := range []string{"README.md", "examples/README.md"} {
		b, err := os.ReadFile(readme)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, out.Bytes()) {
			t.Errorf("%s does not contain the current output of `check examples/`; paste this:\n%s", readme, out)
		}
	}
	if !strings.Contains(out.String(), "examples/crs/widgets.yaml") {
		t.Errorf("custom resource examples missing from the output")
	}

	streams, _, out, _ = genericiooptions.NewTestIOStreams()
	if code := cmd.Main(streams, []string{"prune", "--dry-run", "--crd", "examples/valid/widget-crd.yaml", "examples/crs/widgets.yaml"}); code != 1 {
		t.Fatalf("prune --dry-run: exit %d, want 1", code)
	}
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, out.Bytes()) {
		t.Errorf("README.md does not contain the current output of `prune --dry-run`; paste this:\n%s", out)
	}
}
