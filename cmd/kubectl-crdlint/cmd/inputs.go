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

// inputs are the expanded positional paths. Stdin is read once, up front,
// because CRDs are collected from the inputs before anything is linted.
type inputs struct {
	files []string
	stdin []byte
}

func newInputs(paths []string, stdin io.Reader) (*inputs, error) {
	files, err := source.Expand(paths)
	if err != nil {
		return nil, inputError(err)
	}
	in := &inputs{files: files}
	for _, p := range files {
		if p == "-" {
			data, err := io.ReadAll(io.LimitReader(stdin, source.MaxFileSize+1))
			if err != nil {
				return nil, usageErrorf("read %s: %v", source.StdinPath, err)
			}
			in.stdin = data
		}
	}
	return in, nil
}

func (in *inputs) read(p string) (*source.File, error) {
	if p == "-" {
		return source.Read(p, bytes.NewReader(in.stdin))
	}
	f, err := source.Read(p, nil)
	return f, inputError(err)
}

// collectCRDs fills the linter's catalogue from --crd paths and from the
// inputs. Input files that do not mention CustomResourceDefinition are
// not parsed for this pass.
func collectCRDs(ctx context.Context, cat *crd.Catalog, in *inputs, crdPaths []string) error {
	extra, err := source.Expand(crdPaths)
	if err != nil {
		return inputError(err)
	}
	for _, p := range extra {
		if p == "-" {
			return usageErrorf("--crd cannot read stdin; give a file or directory")
		}
	}
	all := append(extra, in.files...)
	found := make([][]lint.Collected, len(all))
	err = parallel(ctx, len(all), func(i int) error {
		p := all[i]
		if p != "-" {
			data, err := os.ReadFile(p)
			if err != nil {
				return inputError(&source.InputError{Err: err})
			}
			if !bytes.Contains(data, []byte("CustomResourceDefinition")) {
				return nil
			}
			found[i] = lint.Find(source.Parse(p, data))
			return nil
		}
		f, err := in.read(p)
		if err != nil {
			return err
		}
		found[i] = lint.Find(f)
		return nil
	})
	if err != nil {
		return err
	}
	// In input order: a later CRD of the same kind wins, as when applied.
	for _, fs := range found {
		for _, c := range fs {
			cat.Add(c.CRD, c.Source, c.Rejected)
		}
	}
	return nil
}

// parallel runs fn for 0..n-1 over all cores and returns the first error.
func parallel(ctx context.Context, n int, fn func(i int) error) error {
	work := make(chan int)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				errs[i] = fn(i)
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		work <- i
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
