package read

import (
	"context"
	"fmt"
	"io"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/cluster"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/gitrev"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
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

// CRDs reads the CRDs of a revision argument: files or directories
// (stdin for "-"), or REV:PATH, a file or a directory at a git revision
// (a directory's files as a directory on disk gives them, each named
// REV:PATH/name.yaml). The findings of reading each file, reviewed (rv)
// with its text, and the files counted go into res; it returns the CRDs
// and the files read. A revision without a CRD is an input error, unless
// reading it reported why (a finding the review kept: one of a rule
// turned off explains nothing).
func CRDs(arg string, stdin io.Reader, l *lint.Linter, rv Reviewer, res *report.Result) ([]upgrade.CRD, []File, error) {
	type parsed struct {
		f    *source.File
		data []byte
	}
	var files []parsed
	noCRD := fmt.Errorf("%s: no CustomResourceDefinition found", arg)
	if rev, path, ok := gitrev.Split(arg); ok {
		gfs, dir, err := gitrev.Read(rev, path, source.Extensions)
		if err != nil {
			return nil, nil, &source.InputError{Err: err}
		}
		for _, g := range gfs {
			files = append(files, parsed{source.Parse(rev+":"+g.Path, g.Data), g.Data})
		}
		if dir {
			n := "1 file"
			if len(gfs) != 1 {
				n = fmt.Sprintf("%d files", len(gfs))
			}
			noCRD = fmt.Errorf("%s: no CustomResourceDefinition in the %s under %s at git revision %s",
				arg, n, path, rev)
		}
	} else {
		in, err := input.Open([]string{arg}, stdin, nil)
		if err != nil {
			return nil, nil, err
		}
		for _, p := range in.Files {
			f, data, err := in.Read(p)
			if err != nil {
				return nil, nil, err
			}
			files = append(files, parsed{f, data})
		}
	}
	// What reading this argument reported, not what res held before
	// (NEW's findings, the configuration's).
	findings := len(res.Findings)
	var out []upgrade.CRD
	var crdFiles []File
	for _, r := range files {
		crds, fs, sum := upgrade.FileCRDs(r.f, l)
		out = append(out, crds...)
		res.Summary.Add(sum)
		res.Findings = append(res.Findings, rv.Text(r.f.Path, r.data, fs)...)
		crdFiles = append(crdFiles, File{Path: r.f.Path, Data: r.data})
	}
	if len(out) == 0 && len(res.Findings) == findings {
		return nil, nil, &source.InputError{Err: noCRD}
	}
	return out, crdFiles, nil
}

// LiveCRDs reads from the cluster the CRD of each of NEW's, as OLD; a CRD
// the cluster lacks is left for upgrade.Judge to report.
func LiveCRDs(ctx context.Context, c *cluster.Client, l *lint.Linter, newCRDs []upgrade.CRD) ([]upgrade.CRD, error) {
	var out []upgrade.CRD
	for _, n := range newCRDs {
		f, err := c.CRD(ctx, n.Def.Name())
		if err != nil {
			return nil, err
		}
		if f != nil {
			crds, _, _ := upgrade.FileCRDs(f, l)
			out = append(out, crds...)
		}
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
		err := c.Visit(ctx, []string{cluster.StorageRef(p.Old.Def.Object())}, func(page []*unstructured.Unstructured) error {
			files, _, err := c.Files(page)
			if err != nil {
				return err
			}
			findings := make([][]report.Finding, len(files))
			sums := make([]report.Summary, len(files))
			// A cancelled run judges no more objects: none is counted
			// that was not judged.
			if err := input.Parallel(ctx, len(files), func(i int) error {
				fs, sum := ps.Stored(files[i], cluster.WrittenIn(page[i]))
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
