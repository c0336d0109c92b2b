// Command profile is kubectl-crdlint with a CPU profile of the whole
// command, for finding where a `check` run's time goes (the Go benchmarks
// profile the library with its inputs already loaded; this includes
// reading, decoding and compiling every CRD):
//
//	go build -o /tmp/crdlint-prof ./hack/profile
//	CPUPROFILE=cpu.prof /tmp/crdlint-prof check --crd .bench/crds .bench/crs-x1 >/dev/null
//	go tool pprof -top -cum /tmp/crdlint-prof cpu.prof
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/cmd/kubectl-crdlint/cmd"
)

func main() {
	path := os.Getenv("CPUPROFILE")
	if path == "" {
		fmt.Fprintln(os.Stderr, "profile: set CPUPROFILE to the file to write")
		os.Exit(2)
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		os.Exit(2)
	}
	code := cmd.Main(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}, os.Args[1:])
	pprof.StopCPUProfile()
	f.Close()
	os.Exit(code)
}
