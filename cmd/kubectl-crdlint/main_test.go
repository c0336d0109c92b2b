package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/cmd/kubectl-crdlint/cmd"
)

// TestMain lets testscript run this test binary as kubectl-crdlint: the
// scripts exercise the real main, exit codes and streams included.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kubectl-crdlint": func() {
			os.Exit(cmd.Main(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}, os.Args[1:]))
		},
	})
}

// TestScripts runs testdata/script/*.txtar end to end. $EXAMPLES is the
// repository's examples directory, $REPO its root; scriptCmds are the
// scripts' own commands.
func TestScripts(t *testing.T) {
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Dir(examples)
	testscript.Run(t, testscript.Params{
		Dir:  "testdata/script",
		Cmds: scriptCmds,
		Setup: func(e *testscript.Env) error {
			e.Setenv("EXAMPLES", examples)
			e.Setenv("REPO", repo)
			e.Setenv("NO_COLOR", "")
			return nil
		},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != "",
	})
}
