package upgrade

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
)

// Review is the command's reading of one file's findings: the
// configuration's severities and rules off, and the inline suppressions
// of data, the file's text (nil for objects read from a cluster, which
// have none). Files may be reviewed concurrently.
type Review func(path string, data []byte, fs []report.Finding) []report.Finding

// ReadCRDs reads the CRDs of a revision argument: files or directories
// (stdin for "-"), or REV:PATH, a file or a directory at a git revision
// (a directory's files as a directory on disk gives them, each named
// REV:PATH/name.yaml). The findings of reading each file, reviewed, and
// the files counted go into res. A revision without a CRD is an input
// error, unless reading it reported why.
func ReadCRDs(arg string, stdin io.Reader, l *lint.Linter, review Review, res *report.Result) ([]CRD, error) {
	type read struct {
		f    *source.File
		data []byte
	}
	var files []read
	noCRD := fmt.Errorf("%s: no CustomResourceDefinition found", arg)
	if rev, path, ok := gitrev.Split(arg); ok {
		gfs, dir, err := gitrev.Read(rev, path, source.Extensions)
		if err != nil {
			return nil, &source.InputError{Err: err}
		}
		for _, g := range gfs {
			files = append(files, read{source.Parse(rev+":"+g.Path, g.Data), g.Data})
		}
		if dir {
			noCRD = fmt.Errorf("%s: no CustomResourceDefinition in the %s under %s at git revision %s",
				arg, plural(len(gfs), "file"), path, rev)
		}
	} else {
		in, err := input.Open([]string{arg}, stdin, nil)
		if err != nil {
			return nil, err
		}
		for _, p := range in.Files {
			f, data, err := in.Read(p)
			if err != nil {
				return nil, err
			}
			files = append(files, read{f, data})
		}
	}
	// What reading this argument reported, not what res held before
	// (NEW's findings, the configuration's).
	findings, errors := len(res.Findings), res.Summary.Errors
	var out []CRD
	for _, r := range files {
		crds, fs, sum := CRDs(r.f, l)
		out = append(out, crds...)
		res.Summary.Add(sum)
		res.Findings = append(res.Findings, review(r.f.Path, r.data, fs)...)
	}
	if len(out) == 0 && res.Summary.Errors == errors && len(res.Findings) == findings {
		return nil, &source.InputError{Err: noCRD}
	}
	return out, nil
}

// LiveCRDs reads from the cluster the CRD of each of NEW's, as OLD; a CRD
// the cluster lacks is left for Judge to report.
func LiveCRDs(ctx context.Context, c *cluster.Client, l *lint.Linter, newCRDs []CRD) ([]CRD, error) {
	var out []CRD
	for _, n := range newCRDs {
		f, err := c.CRD(ctx, n.Def.Name())
		if err != nil {
			return nil, err
		}
		if f != nil {
			crds, _, _ := CRDs(f, l)
			out = append(out, crds...)
		}
	}
	return out, nil
}

// ReplayFiles replays the custom resources of the object files of in, in
// parallel, into res in input order: each file's findings reviewed with
// its text, the file counted, its summary added (a file in.Skip names
// counted as skipped).
func (ps *Pairs) ReplayFiles(ctx context.Context, in *input.Set, review Review, res *report.Result) error {
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
		r.findings, r.sum = review(f.Path, data, fs), sum
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

// ReplayLive replays every stored object of each pair's CRD, read from
// the cluster a page at a time (in the namespaces c's flags say), the
// objects of a page in parallel, into res: each object's findings
// reviewed, the object counted, its summary added.
func (ps *Pairs) ReplayLive(ctx context.Context, c *cluster.Client, review Review, res *report.Result) error {
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
				findings[i], sums[i] = review(files[i].Path, nil, fs), sum
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
