package read

import (
	"context"
	"io"
	"sync"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/cluster"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crdsource"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade"
)

// Reviewer decides what the user sees of one file's findings, given its
// text (nil for an object read from a cluster, which has none):
// *review.Reviewer, the configuration's levels and the file's inline
// suppressions. Files may be reviewed concurrently.
type Reviewer interface {
	Text(name string, text []byte, findings []report.Finding) []report.Finding
}

// File is a file of CRDs that CRDs read, with its text: findings
// positioned in it later (the update's and the comparison's) are
// reviewed with its comments too.
type File struct {
	Path string
	Data []byte
}

// CRDs reads the CRDs of a revision argument (crdsource.Arg), OLD's (old)
// or NEW's: files or directories (stdin for "-"), or REV:PATH, a file or
// a directory at a git revision (a directory's files as a directory on disk gives them,
// each named REV:PATH/name.yaml). The findings of reading each file,
// reviewed (rv) with its text, and the files counted go into res; it
// returns the CRDs and the files read. A revision without a CRD is an
// input error, unless reading it reported why (a finding the review kept:
// one of a rule turned off explains nothing).
func CRDs(ctx context.Context, arg string, old bool, stdin io.Reader, l *lint.Linter, rv Reviewer, res *report.Result) ([]upgrade.CRD, []File, error) {
	src := crdsource.Arg(arg, stdin)
	files, err := crdsource.Load(ctx, src)
	if err != nil {
		return nil, nil, err
	}
	// What reading this argument reported, not what res held before
	// (NEW's findings, the configuration's).
	findings := len(res.Findings)
	var out []upgrade.CRD
	var crdFiles []File
	for _, cf := range files {
		f, data, err := cf.Parse()
		if err != nil {
			return nil, nil, err
		}
		crds, fs, sum := upgrade.FileCRDs(f, l, old)
		out = append(out, crds...)
		res.Summary.Add(sum)
		res.Findings = append(res.Findings, rv.Text(f.Path, data, fs)...)
		crdFiles = append(crdFiles, File{Path: f.Path, Data: data})
	}
	if len(out) == 0 && len(res.Findings) == findings {
		return nil, nil, crdsource.NoCRD(src, len(files))
	}
	return out, crdFiles, nil
}

// LiveCRDs reads from the cluster the CRD of each of NEW's, as OLD; a CRD
// the cluster lacks is left for upgrade.Judge to report.
func LiveCRDs(ctx context.Context, c *cluster.Client, l *lint.Linter, newCRDs []upgrade.CRD) ([]upgrade.CRD, error) {
	names := make([]string, len(newCRDs))
	for i, n := range newCRDs {
		names[i] = n.Def.Name()
	}
	files, err := crdsource.Load(ctx, &crdsource.Cluster{Client: c, Names: names})
	if err != nil {
		return nil, err
	}
	var out []upgrade.CRD
	for _, cf := range files {
		f, _, err := cf.Parse()
		if err != nil {
			return nil, err
		}
		crds, _, _ := upgrade.FileCRDs(f, l, true)
		out = append(out, crds...)
	}
	return out, nil
}

// Objects reads the object files of in, in parallel, and replays their
// custom resources through ps (Pairs.File) into res in input order: each
// file's findings reviewed (rv) with its text, the file counted, its summary
// added (a file in.Skip names counted as skipped).
func Objects(ctx context.Context, in *input.Set, ps *upgrade.Pairs, rv Reviewer, res *report.Result) error {
	type result struct {
		findings []report.Finding
		sum      report.Summary
	}
	results := make([]result, len(in.Files))
	err := input.Parallel(ctx, len(in.Files), func(i int) error {
		r := &results[i]
		if in.Skip[i] != "" {
			r.sum.Skip(in.Skip[i])
			return nil
		}
		f, data, err := in.Read(in.Files[i])
		if err != nil {
			return err
		}
		fs, sum := ps.File(f)
		r.findings, r.sum = rv.Text(f.Path, data, fs), sum
		return nil
	})
	if err != nil {
		return err
	}
	for _, r := range results {
		res.Findings = append(res.Findings, r.findings...)
		res.Summary.Files++
		res.Summary.Add(r.sum)
	}
	return nil
}

// LiveObjects reads every stored object of each pair's CRD from the
// cluster a page at a time (in the namespaces c's flags say) and replays
// it through ps (Pairs.Stored), the objects of a page in parallel, into
// res: each object's findings reviewed (rv), the object counted, its summary
// added.
func LiveObjects(ctx context.Context, c *cluster.Client, ps *upgrade.Pairs, rv Reviewer, res *report.Result) error {
	for _, p := range ps.List {
		var mu sync.Mutex
		err := c.Pages(ctx, []string{cluster.StorageRef(p.Old.Def.Object())}, func(page cluster.Page) error {
			files := page.Files
			findings := make([][]report.Finding, len(files))
			sums := make([]report.Summary, len(files))
			// A cancelled run judges no more objects: none is counted
			// that was not judged.
			if err := input.Parallel(ctx, len(files), func(i int) error {
				fs, sum := ps.Stored(files[i], cluster.WrittenIn(page.Objects[i]))
				findings[i], sums[i] = rv.Text(files[i].Path, nil, fs), sum
				return nil
			}); err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			for i := range files {
				res.Findings = append(res.Findings, findings[i]...)
				res.Summary.Objects++
				res.Summary.Add(sums[i])
			}
			return ctx.Err()
		})
		if err != nil {
			return err
		}
	}
	res.Summary.Live = true
	return nil
}
