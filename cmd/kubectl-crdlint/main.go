// Command kubectl-crdlint tells what the Kubernetes API server would do with
// CustomResourceDefinitions and custom resources, before they are applied.
package main

import (
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/cmd/kubectl-crdlint/cmd"
)

func main() {
	cmd.TuneGC()
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	stop := profile()
	code := cmd.Main(streams, os.Args[1:])
	stop()
	os.Exit(code)
}
