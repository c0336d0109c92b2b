package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// inputs are the expanded positional paths. Stdin, pipes and other
// inputs that cannot be read twice are read once, up front, because CRDs
// are collected from the inputs before anything is linted.
type inputs struct {
	files  []string
	cached map[string][]byte
}

func newInputs(paths []string, stdin io.Reader) (*inputs, error) {
	files, err := source.Expand(paths)
	if err != nil {
		return nil, inputError(err)
	}
	in := &inputs{files: files, cached: map[string][]byte{}}
	for _, p := range files {
		if _, done := in.cached[p]; done {
			if p == "-" {
				return nil, usageErrorf("- (stdin) may be given only once")
			}
			continue
		}
		if p == "-" {
			data, err := io.ReadAll(io.LimitReader(stdin, source.MaxFileSize+1))
			if err != nil {
				return nil, usageErrorf("read %s: %v", source.StdinPath, err)
			}
			if len(data) > source.MaxFileSize {
				return nil, usageErrorf("read %s: larger than %d MiB", source.StdinPath, source.MaxFileSize>>20)
			}
			in.cached[p] = data
			continue
		}
		if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
			data, err := source.ReadBytes(p)
			if err != nil {
				return nil, inputError(err)
			}
			in.cached[p] = data
		}
	}
	return in, nil
}

// name is how a path is named in reports.
func (in *inputs) name(p string) string {
	if p == "-" {
		return source.StdinPath
	}
	return p
}

// bytes returns an input's content.
func (in *inputs) bytes(p string) ([]byte, error) {
	if data, ok := in.cached[p]; ok {
		return data, nil
	}
	data, err := source.ReadBytes(p)
	return data, inputError(err)
}

func (in *inputs) read(p string) (*source.File, error) {
	data, err := in.bytes(p)
	if err != nil {
		return nil, err
	}
	return source.Parse(in.name(p), data), nil
}

// collectCRDs fills the linter's catalogue from --crd paths and from the
// inputs. Input files that do not mention CustomResourceDefinition are
// not parsed for this pass.
func collectCRDs(ctx context.Context, cat *crd.Catalog, in *inputs, crdPaths []string, l *lint.Linter) error {
	load, err := crdCollector(ctx, cat, in, crdPaths, l, true)
	if err != nil {
		return err
	}
	return load()
}

// crdCollector checks the --crd paths now (usage and read errors come
// before any output) and returns what fills the catalogue from them and
// from the inputs: check runs it only when a custom resource needs the
// catalogue, so linting CRDs alone parses each file once. keepJSON keeps
// each CRD's JSON as written in the catalogue (Entry.Raw), for the
// Immutable Fields design's markers, which the decoded CRD has lost.
func crdCollector(ctx context.Context, cat *crd.Catalog, in *inputs, crdPaths []string, l *lint.Linter, keepJSON bool) (func() error, error) {
	extra, err := source.Expand(crdPaths)
	if err != nil {
		return nil, inputError(err)
	}
	for _, p := range extra {
		if p == "-" {
			return nil, usageErrorf("--crd cannot read stdin; give a file or directory")
		}
	}
	err = parallel(ctx, len(extra), func(i int) error {
		_, err := in.bytes(extra[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	all := append(extra, in.files...)
	return func() error {
		found := make([][]lint.Collected, len(all))
		err := parallel(ctx, len(all), func(i int) error {
			p := all[i]
			data, err := in.bytes(p)
			if err != nil {
				return err
			}
			if !bytes.Contains(data, []byte("CustomResourceDefinition")) {
				return nil
			}
			found[i] = l.Find(source.Parse(in.name(p), data))
			return nil
		})
		if err != nil {
			return err
		}
		// In input order: a later CRD of the same kind wins, as when applied.
		for _, fs := range found {
			for _, c := range fs {
				raw := c.JSON
				if !keepJSON {
					raw = nil
				}
				cat.AddRaw(c.CRD, raw, c.Source, c.Rejected)
			}
		}
		return nil
	}, nil
}

// parallel runs fn for 0..n-1 over all cores and returns the first error.
//
// It hands out the indexes interleaved from one stretch of 0..n-1 per
// worker: neighbouring files tend to need the same CRD, and a worker
// waiting for another one to validate and compile that CRD leaves a core
// idle, where workers in different stretches mostly need different CRDs.
func parallel(ctx context.Context, n int, fn func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), max(n, 1))
	work := make(chan int)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				errs[i] = fn(i)
			}
		}()
	}
	stretch := (n + workers - 1) / workers
dispatch:
	for r := 0; r < stretch; r++ {
		for s := 0; s < workers; s++ {
			i := s*stretch + r
			if i >= n {
				continue
			}
			if ctx.Err() != nil {
				break dispatch
			}
			work <- i
		}
	}
	close(work)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}
