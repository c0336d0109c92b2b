package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
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

// TestREADMEUpgrade keeps the upgrade section of README.md and
// examples/upgrade/README.md true: the output they show is what the
// command prints, and every command they show runs, as written, in a
// script (testdata/script or test/e2e/testdata/cluster, where $EXAMPLES
// is examples).
func TestREADMEUpgrade(t *testing.T) {
	t.Chdir("../..")
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	args := []string{"upgrade", "examples/upgrade/widget-v1.yaml", "examples/upgrade/widget-v2.yaml", "examples/upgrade/objects.yaml"}
	if code := cmd.Main(streams, args); code != 1 || errOut.Len() > 0 {
		t.Fatalf("upgrade: exit %d, stderr %q", code, errOut)
	}
	var scripts strings.Builder
	for _, pattern := range []string{"cmd/kubectl-crdlint/testdata/script/*.txtar", "test/e2e/testdata/cluster/*.txtar"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			scripts.Write(bytes.ReplaceAll(b, []byte("$EXAMPLES/"), []byte("examples/")))
		}
	}
	command := regexp.MustCompile(`(?m)^(?:\$ )?kubectl crdlint (upgrade .*)$`)
	ran := regexp.MustCompile(`(?m)^!? ?(?:exec kubectl-crdlint|crdlint \d) (upgrade .*)$`)
	runs := map[string]bool{}
	for _, m := range ran.FindAllStringSubmatch(scripts.String(), -1) {
		runs[strings.TrimSpace(m[1])] = true
	}
	n := 0
	for _, readme := range []string{"README.md", "examples/upgrade/README.md"} {
		b, err := os.ReadFile(readme)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, out.Bytes()) {
			t.Errorf("%s does not contain the current output of `%s`; paste this:\n%s", readme, strings.Join(args, " "), out)
		}
		for _, m := range command.FindAllStringSubmatch(string(b), -1) {
			c := strings.TrimSpace(m[1])
			if strings.Contains(c, "NEW [OBJECTS...]") {
				continue // the synopsis
			}
			n++
			if !runs[c] {
				t.Errorf("%s shows `kubectl crdlint %s`, which no script runs as written", readme, c)
			}
		}
	}
	if n < 5 {
		t.Errorf("only %d upgrade commands found in the READMEs", n)
	}
}
