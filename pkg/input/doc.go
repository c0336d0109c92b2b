// Package input reads what a command is given — files, directories
// (recursively), stdin, pipes — once, and hands it to the command's work
// with the CRDs among it already collected.
//
// A Run has two phases, each a loop the command owns. The collect phase
// (Collect, collect.go) reads every input, parses the files that hold
// CustomResourceDefinitions and decodes each CRD once (crd.FindCRDs):
// the command gets them while their trees are alive (Collecting.CRDs;
// check lints them there), and Collect.Done adds them to the catalogue
// in input order, where the one nearest a custom resource judges it
// (within a file, the later one, as applying it would; crd/judge.go).
// The judge phase (Judge, judge.go) gives every input, parsed once, with
// the catalogue complete: a custom resource is judged against a CRD that
// comes after it in the inputs. CRDs of --crd are read only when a custom
// resource first needs the catalogue. Inputs are taken in parallel
// (Parallel, Judge.Parallel), each by one goroutine; the command keeps
// results by input index, so output keeps input order. A command that
// judges a document at a time (Run.Documents: check) reads the files
// without CRDs as pieces (Judging.Documents), judged on all cores and
// taken in order (InOrder).
//
// It judges nothing itself: pkg/check, pkg/prune and pkg/fields do.
//
//	in, _ := input.Open([]string{"config/"}, os.Stdin, nil)
//	run := input.NewRun(in, nil, crd.NewCatalog(false))
//	judge, err := run.CollectAll(ctx)
//	err = judge.Parallel(ctx, func(i int) error {
//		in, err := judge.Input(i)
//		... in.Skipped, in.File ...
//	})
//	err = run.Done()
package input
