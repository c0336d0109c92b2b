// Package helm reads what helm template writes besides manifests: the
// "# Source: chart/templates/x.yaml" comment before each document, so
// that a finding on a stream piped from helm template can name the
// template that rendered the object as well as its position in the
// stream.
//
// Parse cuts the stream as pkg/source (and kubectl) cut it, so the n-th
// Source is the document a report.Finding with Document n is about;
// FuzzParse holds the two cuts together. A document's Source is the
// first "# Source: " comment among its leading comments, as helm writes
// it; documents without one (a post-renderer's output, text appended by
// hand) have an empty Path.
//
// Left to others: reading the stream (pkg/input), judging its documents,
// and how a report shows the template (pkg/report, the commands). It
// does not run helm: templates under a chart's templates/ are not
// manifests and are skipped where files are read.
package helm
