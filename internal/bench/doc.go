// Package bench is the side-by-side benchmark harness behind `make bench`:
// it builds kubectl-crdlint, installs its peers (kubeconform and
// kubectl-validate) at pinned versions, generates a deterministic workload
// from the shared corpus, runs the three tools on the same inputs offline
// and reports wall time, CPU time, peak RSS, throughput and the number of
// invalid documents each found.
//
// The harness measures child processes through their rusage (what the
// kernel accounted to them, not what a tool says about itself), so the
// numbers of the three tools are comparable. Everything it writes goes to
// its tool directory and its work directory.
package bench
