// Package crdsource is where every command gets its CRDs from outside its
// inputs: one interface, Source, with an implementation per kind of
// place, and the composition of a command's sources (Settings, Catalog)
// in this package only.
//
//   - Path: a file or directory named by --crd or the configuration's
//     crds: (its files read when a custom resource first needs them);
//   - URL: an https:// address named the same way, fetched through the
//     cache (all of a run's URLs at once, by Load or Set);
//   - Input: a command's argument read as its inputs are (files,
//     directories, stdin): upgrade's OLD and NEW;
//   - Git: REV:PATH, a file or directory at a git revision (pkg/gitrev);
//   - Cluster: the CRDs installed in a cluster (pkg/cluster), all of them
//     or those named.
//
// Source.Load is an iterator of a source's files, a batch at a time (a
// directory's files, a cluster's page): the caller owns the loop.
//
// Which CRD judges a custom resource, highest first (Catalog composes
// them; pkg/crd's judge.go applies the order):
//
//  1. the CRD sources, in the order the settings give them: the
//     configuration's crds:, then --crd; the first that defines a kind
//     judges it;
//  2. the CRDs among the command's inputs, the one nearest the custom
//     resource, never a copy (release bundles, vendored trees:
//     pkg/layout) when a source defines the kind;
//  3. the cluster's (--crd-from-cluster), below every local one, as
//     applying the local ones would replace them;
//  4. with --live, the cluster's CRD of a kind no other defines, fetched
//     when a live object first needs it (cluster.CRDFetcher).
//
// Example (a test suite's CRDs, read whole):
//
//	srcs, err := crdsource.Settings(settings.CRDs, fetch)
//	files, err := crdsource.Load(ctx, srcs...)
//	for _, f := range files {
//		data, err := f.Read()
//		...
//	}
package crdsource
