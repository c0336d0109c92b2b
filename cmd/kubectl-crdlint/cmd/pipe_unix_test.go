//go:build unix

package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// TestCheckPipeInput reads a named pipe (as <(cat x.yaml) gives): it can be
// read only once, yet CRDs are collected before linting.
func TestCheckPipeInput(t *testing.T) {
	dir := t.TempDir()
	crdPath := filepath.Join(dir, "crd.yaml")
	if err := os.WriteFile(crdPath, []byte(widgetCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {size: 30}\n")
		f.Close()
	}()
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	o := &CheckOptions{sourceOptions: sourceOptions{CRDs: []string{crdPath}}, paths: []string{fifo}, Output: report.Text, FailOn: severityFlag(report.Error), IOStreams: streams}
	if err := o.Run(context.Background()); !errors.Is(err, errFindings) {
		t.Fatalf("got %v, want findings\n%s", err, out)
	}
	if !strings.Contains(out.String(), "cr-schema") {
		t.Errorf("got %s, want the schema error of the piped object", out)
	}
}
