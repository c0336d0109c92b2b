// Command kubectl-crdlint tells what the Kubernetes API server would do with
// CustomResourceDefinitions and custom resources, before they are applied.
package main

import (
	"os"
	"runtime/debug"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/cmd/kubectl-crdlint/cmd"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// The live heap is small and bounded (compiled CRDs, one document
		// at a time): collecting half as often costs little memory and
		// saves about a fifth of the CPU the server's validators make
		// the collector spend.
		debug.SetGCPercent(200)
	}
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	stop := profile()
	code := cmd.Main(streams, os.Args[1:])
	stop()
	os.Exit(code)
}
