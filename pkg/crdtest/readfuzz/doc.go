// Package readfuzz holds the fuzz target of crdtest's suite reader, apart
// from pkg/crdtest's own tests: those link an in-process API server and
// etcd (internal/apiservertest, 1,535 packages in all), whose coverage
// counters slow a fuzz worker to a few inputs a second (63 in 15 s); this
// test binary links pkg/crdtest alone.
package readfuzz
