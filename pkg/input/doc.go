// Package input reads what a command is given — files, directories
// (recursively), stdin, pipes — once, and hands it to the command's work
// with the CRDs among it already collected.
//
// A Run has two phases. The collect phase reads every input, parses the
// files that hold CustomResourceDefinitions, decodes each CRD once
// (crd.Decode) and adds them to the catalogue in input order, where the
// one nearest a custom resource judges it (within a file, the later one,
// as applying it would; crd/judge.go); a command
// that judges CRDs (check) does so there, while their trees are alive.
// The judge phase hands every file, parsed once, to the command, with
// the catalogue complete: a custom resource is judged against a CRD that
// comes after it in the inputs. CRDs of --crd are read only when a custom
// resource first needs the catalogue. Files are judged in parallel
// (Parallel), each by one goroutine; results go by input index, so
// output keeps input order.
//
// It judges nothing itself: pkg/lint, pkg/prune and pkg/fields do.
//
//	in, _ := input.Open([]string{"config/"}, os.Stdin)
//	run := input.NewRun(in, nil, crd.NewCatalog(false))
//	run.Visit(ctx, input.Visitor{File: func(i int, data []byte, f *source.File) error { ... }})
package input
