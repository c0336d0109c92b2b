// Package remote reads CRDs from URLs that the user listed (crds: in
// .crdlint.yaml, or --crd), through a cache so that later runs need no
// network.
//
// ParseSource reads "https://host/path[#sha256=HEX]". Plain http:// is
// refused unless pinned, since nothing else would stop a machine on the
// way from changing the CRDs the custom resources are judged against; a
// redirect from https to http is refused on the same grounds.
//
// Fetcher.Fetch returns a URL's content. A URL is fetched once and its
// copy kept in the cache directory (cachedir.Sub(root, cachedir.CRDs),
// named by the URL's SHA-256, with a .url file beside it naming the
// URL); later runs use the copy as it is without asking the server.
// Refresh fetches again; deleting the directory does too. A pinned URL's
// content is checked whether fetched or cached: a cached copy that does
// not match is fetched again online and is an error offline; content
// that does not match is an error naming the URL and both digests, and
// is not cached. Offline never touches the network. Responses are
// bounded (MaxSize) and timed out; copies are written to a temporary
// file and renamed, so runs sharing the cache never see half a file.
// Every failure is a *Error: one line naming the URL, for exit 2.
//
// Nothing here runs unless a URL was listed: the package makes no
// request on its own. Refuse is a transport that counts and fails
// requests, for command tests that prove a run made none.
//
// Left to others: parsing the fetched files (source, by the URL as file
// name) and deciding where the cache is (internal/cachedir).
//
// Example:
//
//	root, _ := cachedir.Resolve(o.CacheDir)
//	dir, _ := cachedir.Sub(root, cachedir.CRDs)
//	f := &remote.Fetcher{Dir: dir, Offline: o.Offline, UserAgent: "kubectl-crdlint/" + version.Get().Version}
//	results, err := f.FetchAll(ctx, sources) // err: *remote.Error, exit 2
//	for _, r := range results {
//		file := source.Parse(r.Source.URL, r.Data)
//		...
//	}
package remote
