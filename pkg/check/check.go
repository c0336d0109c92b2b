// Package check is the check command's work: every input of an input.Run
// linted (CRDs in the collect phase, custom resources a document at a
// time), with the verdict caches that let an unchanged file skip both,
// reviewed (pkg/review: the configuration, inline suppressions, Helm and
// kustomize mapping, the baseline) into one report.Result.
//
// It is a library so that a run can be driven, and its caches tested,
// without a command line: cmd builds the Options from flags and the
// configuration, calls Run, and prints the result.
package check

import (
	"context"
	"io"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/verdictcache"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/kustomize"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/review"
	rulecatalogue "github.com/kubectl-crdlint/kubectl-crdlint/pkg/ruleset"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Options are what a check run needs besides its inputs.
type Options struct {
	// Validate and Missing are the linter's (lint.Options); the caches
	// are keyed by them. Rules turned off are the review's (Review): the
	// caches hold every rule's findings, whatever a run turns off. The run's catalogue must judge CRDs
	// under the same field validation (crd.NewCatalog(Validate.Refuses())).
	Validate fieldvalidation.Directive
	Missing  lint.Missing
	// MaxDocumentSize bounds one document of a file (0: 64 MiB).
	MaxDocumentSize int
	// Review decides what the user sees of every file's findings, and
	// applies the baseline to the result; it must not be nil.
	Review *review.Reviewer
	// Findings start the result: what is wrong in the configuration file.
	Findings []report.Finding

	// CacheDir holds the verdict cache ("": the default directory);
	// NoCache neither reads nor writes it.
	CacheDir string
	NoCache  bool
	// ClusterCRDs says the catalogue holds a cluster's CRDs, which have
	// no JSON to name them by and are the cluster's to change: no file's
	// custom resources are then replayed from the cache.
	ClusterCRDs bool

	// Kustomize are kustomization directories rendered in-process, as
	// kubectl apply -k renders them, and checked with the inputs.
	Kustomize []string
	// Notices receives what the run tells a person on the side (stderr):
	// a verdict cache that cannot be used. Nil: discarded.
	Notices io.Writer
	// Progress, when set, is told how far the run has come.
	Progress Progress
	// Live, when set, are cluster objects judged after the inputs.
	Live *Live
	// Judging, when set, is called once, before the first document that
	// is not a CRD is judged: what the run holds from then on is mostly
	// compiled versions (the binary paces its collector by it).
	Judging func()
	// Objects lists every object the run looks at in the result's
	// Summary.Checked, for the formats that report passing objects too
	// (JUnit). Off, only the counts are kept: the list grows with the
	// input, where a run's memory otherwise follows its largest
	// document. The verdict cache keeps the list either way.
	Objects bool
}

// Progress follows a run: Start with the number of inputs, File for each
// one done (with its documents, or 0 when Docs counted them), Docs for
// documents of a file read a document at a time, then Stop. File and
// Docs are called concurrently.
type Progress interface {
	Start(files int)
	File(docs int)
	Docs(n int)
	Stop()
}

// Live are the objects a cluster is asked for, judged a page at a time:
// only one page and the findings are held, however many there are.
type Live struct {
	Pages Pager
	Refs  []string
	// Empty, when set, is called when the references named no object
	// (kubectl get says so).
	Empty func()
}

// Pager reads the objects references name as documents, a page at a time,
// the CRDs of their kinds fetched into cat first (cluster.Client).
type Pager interface {
	VisitFiles(ctx context.Context, refs []string, cat *crd.Catalog, fn func(files []*source.File, texts [][]byte) error) (int, error)
}

// catalogue is every rule a finding can name: the result lists it.
var catalogue = rulecatalogue.Rules

// Run lints every input of run (its Inputs, then o.Kustomize's renders,
// which it adds to them) and o.Live's objects, and reviews the findings
// (o.Review: each file's, then the result's, Reviewer.Finish; the caller
// asks o.Review whether the run failed). It sets run's MaxDocumentSize
// and Cache (the cache's answers for the CRD sources): the
// caller must not have read the CRD sources into the catalogue yet, or
// they are judged without the cache. Errors are the inputs'
// (source.InputError), the cluster's (cluster.Error), a baseline's that
// cannot be read, or a review.WriteError.
func Run(ctx context.Context, run *input.Run, o Options) (report.Result, error) {
	c := &checker{o: o, run: run}
	if c.o.Progress == nil {
		c.o.Progress = noProgress{}
	}
	if c.o.Notices == nil {
		c.o.Notices = io.Discard
	}
	res, err := c.check(ctx)
	if err != nil {
		return report.Result{}, err
	}
	return res, nil
}

// checker is one run's state.
type checker struct {
	o        Options
	run      *input.Run
	l        *lint.Linter
	rendered map[string]*kustomize.Rendered
	cache    *verdictcache.Cache
	// lintKey is the linter's options as the caches key them.
	lintKey []byte
	// files is the per-file cache of custom resources, or nil.
	files   *crFiles
	results []fileResult
	judging sync.Once
}

// judge calls o.Judging once.
func (c *checker) judge() {
	if c.o.Judging != nil {
		c.judging.Do(c.o.Judging)
	}
}

func (c *checker) check(ctx context.Context) (report.Result, error) {
	run, o := c.run, c.o
	var err error
	if c.rendered, err = render(run.Inputs, o.Kustomize); err != nil {
		return report.Result{}, err
	}
	c.l = lint.New(lint.Options{Validate: o.Validate, Catalog: run.Catalog, MissingCRDs: o.Missing})
	run.MaxDocumentSize = o.MaxDocumentSize
	if !o.NoCache {
		c.cache = openCache(o.CacheDir, o.Notices)
	}
	defer c.cache.Trim()
	if c.cache != nil {
		run.Cache = crdAnswers{c.cache}
	}
	c.lintKey = lintOptionsKey(o.Validate)
	// A cluster's CRDs have no JSON to name them by, and what they are
	// is the cluster's to change: such runs judge every file.
	if c.cache != nil && o.Live == nil && !o.ClusterCRDs {
		c.files = &crFiles{cache: c.cache, cat: run.Catalog, opts: crOptionsKey(c.lintKey, o.Missing, o.MaxDocumentSize, run.Catalog.ConfigKinds())}
	}
	res := report.Result{Rules: catalogue, Findings: o.Findings}
	c.results = make([]fileResult, len(run.Inputs.Files))
	run.Documents = true
	o.Progress.Start(len(run.Inputs.Files))
	err = c.inputs(ctx)
	o.Progress.Stop()
	if err != nil {
		return res, err
	}
	for i := range c.results {
		c.results[i].addTo(&res, &res.Summary.Files)
	}
	for _, f := range lint.Duplicates(run.Catalog) {
		res.Findings = append(res.Findings, o.Review.File(review.File{Name: f.File, Findings: []report.Finding{f}})...)
	}
	if o.Live != nil {
		if err := c.live(ctx, &res); err != nil {
			return res, err
		}
	}
	// The duplicates and live objects may have read --crd files after
	// the inputs' run.Done: what they learnt is remembered, and a file that
	// could not be read is said, as for the others.
	if err := run.Done(); err != nil {
		return res, err
	}
	if err := o.Review.Finish(&res, run.Inputs.Files); err != nil {
		return res, err
	}
	return res, nil
}

// name is input i's name, as findings carry it.
func (c *checker) name(i int) string {
	return c.run.Inputs.Name(c.run.Inputs.Files[i])
}

// inputs is the run over its inputs, the loops of both phases its own:
// the collect phase lints the CRDs of each input while their trees are
// alive; the judge phase lints each input whole (a file that held CRDs,
// whose CRD findings wait in its result), or a document at a time, or
// replays it from the file cache.
func (c *checker) inputs(ctx context.Context) error {
	run := c.run
	col := run.Collect()
	err := input.Parallel(ctx, len(run.Inputs.Files), func(i int) error {
		in, err := col.Input(i)
		if in == nil {
			return err
		}
		if c.files != nil && in.Marked() && in.Replayable() && c.noCRDs(i, in.Data()) {
			in.NoCRDs()
		}
		for found, err := range in.CRDs() {
			if err != nil {
				return err
			}
			c.crds(i, in.Data(), found)
		}
		return nil
	})
	if err != nil {
		return err
	}
	judge := col.Done()
	err = judge.Parallel(ctx, func(i int) error {
		in, err := judge.Input(i)
		switch {
		case err != nil:
			return err
		case in.Skipped != "":
			c.results[i].sum.Skip(in.Skipped)
			c.o.Progress.File(0)
			return nil
		case in.File != nil:
			c.file(i, in.Data, in.File)
			return nil
		}
		return c.documents(i, in)
	})
	if err != nil {
		return err
	}
	return run.Done()
}

// crds lints the CRD documents of input i in the collect phase, while
// their trees are alive; data is nil for a file read a document at a
// time.
func (c *checker) crds(i int, data []byte, found []crd.Found) {
	r := &c.results[i]
	if data != nil {
		r.comments = c.o.Review.Read(c.name(i), data, 1)
	}
	r.crds += len(found)
	for _, fd := range found {
		r.sum.Check(lint.Checked(fd.Doc, ""))
	}
	r.sum = c.listed(r.sum)
	r.findings = append(r.findings, crdFindings(c.l, c.cache, c.lintKey, c.name(i), data, found)...)
}

// file lints input i whole: a file that held CRDs (whose findings its
// result holds already) and other documents.
func (c *checker) file(i int, data []byte, f *source.File) {
	defer c.o.Progress.File(f.Count)
	fs, sum := c.whole(i, data, f)
	r := &c.results[i]
	if data != nil {
		r.comments = c.o.Review.Read(f.Path, data, 1)
	}
	// r.sum holds the objects of the CRDs judged in the collect phase
	// already, and r.findings their findings.
	r.sum.Add(c.listed(sum))
	r.findings = c.o.Review.File(review.File{
		Name: f.Path, Comments: r.comments, Kustomization: c.rendered[f.Path],
		Findings: append(r.findings, fs...), Checked: r.sum.Checked,
	})
}

// documents lints input i a document at a time, on all cores, reviewing
// each document's findings in order; or replays what an earlier run
// found for the same content, reviewed as judged ones are.
func (c *checker) documents(i int, in *input.Judging) error {
	r := &c.results[i]
	// Its CRDs' findings (from the collect phase) wait for their
	// document, to be reviewed with it.
	r.pending = map[int][]report.Finding{}
	for _, fd := range r.findings {
		r.pending[fd.Document] = append(r.pending[fd.Document], fd)
	}
	r.findings = nil
	if c.files != nil && in.Replayable() {
		data, err := in.Content()
		if err != nil {
			return err
		}
		if docs, ok := c.replay(i, data); ok {
			base := 0
			for _, d := range docs {
				c.take(i, base, d)
				base += d.count
			}
			c.done(i)
			return nil
		}
	}
	base := 0
	for d, err := range input.InOrder(in.Documents(), func(p *source.Piece) docResult { return c.doc(in.Parse(p)) }) {
		if err != nil {
			return err
		}
		c.take(i, base, d)
		base += d.count
	}
	c.done(i)
	return nil
}

// doc lints one document of a file read a document at a time, counted
// from 0 (its base in the file is known in order, in take); the comments
// of its text are read while it is at hand.
func (c *checker) doc(f *source.File) docResult {
	c.judge()
	fs, sum := c.l.File(f)
	d := docResult{findings: fs, sum: sum, count: f.Count, comments: c.o.Review.Read(f.Path, f.Text(0), f.Line)}
	if c.files != nil {
		// The review changes findings in place.
		d.raw, d.text, d.line, d.kinds = slices.Clone(fs), f.Text(0), f.Line, kindsOf(f)
	}
	return d
}

// take reviews one document's result of input i, in order, where its
// base is known, with the CRD findings that wait for it.
func (c *checker) take(i, base int, d docResult) {
	r := &c.results[i]
	if r.cr != nil {
		r.cr.add(d)
	}
	// The objects, in r.sum's own copy: d.sum may be the cache's record.
	n := len(r.sum.Checked)
	r.sum.Add(c.listed(d.sum))
	fs := d.findings
	for n := base; n < base+d.count; n++ {
		if p := r.pending[n]; p != nil {
			fs = append(fs, rebase(p, -base)...)
			delete(r.pending, n)
		}
	}
	name := c.name(i)
	r.findings = append(r.findings, c.o.Review.File(review.File{
		Name: name, Comments: d.comments, Kustomization: c.rendered[name], Base: base,
		Findings: fs, Checked: r.sum.Checked[n:],
	})...)
	c.o.Progress.Docs(d.count)
}

// done ends input i read a document at a time: CRD findings left
// waiting are reviewed, and a file judged is kept in the file cache.
func (c *checker) done(i int) {
	defer c.o.Progress.File(0)
	r := &c.results[i]
	for _, fs := range r.pending {
		r.findings = append(r.findings, c.o.Review.File(review.File{Name: c.name(i), Findings: fs})...)
	}
	r.pending = nil
	if r.cr != nil {
		c.files.put(r.cr)
		r.cr = nil
	}
}

// whole is the linter's findings and summary of input i judged whole
// (File: a file that holds CRDs and other documents, whose CRDs the
// collect phase read), or what an earlier run found for the same file,
// when the catalogue answers its kinds as it did then.
func (c *checker) whole(i int, data []byte, f *source.File) ([]report.Finding, report.Summary) {
	var key string
	name := c.name(i)
	if c.files != nil && data != nil && !c.run.Inputs.Given(c.run.Inputs.Files[i]) {
		key = c.files.wholeKey(name, data)
		if rec, ok := c.files.get(key, name, data); ok && len(rec.Docs) == 1 {
			d := &rec.Docs[0]
			return d.Findings, d.sum()
		}
	}
	if len(f.Documents) > 0 {
		c.judge()
	}
	fs, sum := c.l.File(f)
	if key != "" {
		p := &crPending{key: key, name: name, data: data, kinds: map[schema.GroupKind]bool{}}
		// Review changes findings in place.
		p.add(docResult{raw: slices.Clone(fs), sum: sum, count: f.Count, kinds: kindsOf(f)})
		c.files.put(p)
	}
	return fs, sum
}

// noCRDs tells whether an earlier run judged input i's content as a file
// without CRDs (only such files have an entry under the key replay
// looks up), so that the collect phase need not parse it to know.
func (c *checker) noCRDs(i int, data []byte) bool {
	return c.files.has(c.files.key(c.name(i), data))
}

// replay gives input i's documents' results from the file cache; on a
// miss, the file is judged and its record built as it goes (take), for
// done to store.
func (c *checker) replay(i int, data []byte) ([]docResult, bool) {
	name := c.name(i)
	key := c.files.key(name, data)
	rec, ok := c.files.get(key, name, data)
	if !ok {
		c.results[i].cr = &crPending{key: key, name: name, data: data, kinds: map[schema.GroupKind]bool{}}
		return nil, false
	}
	out := make([]docResult, len(rec.Docs))
	for k := range rec.Docs {
		d := &rec.Docs[k]
		comments := c.o.Review.Read(name, d.text(data), d.Line)
		out[k] = docResult{findings: d.Findings, sum: d.sum(), comments: comments, count: d.Count}
	}
	return out, true
}

// live judges the objects the references name, a page at a time: only
// one page and the findings are held, however many objects there are.
func (c *checker) live(ctx context.Context, res *report.Result) error {
	lv := c.o.Live
	res.Summary.Live = true
	n, err := lv.Pages.VisitFiles(ctx, lv.Refs, c.run.Catalog, func(files []*source.File, _ [][]byte) error {
		c.judge()
		results := make([]fileResult, len(files))
		input.Parallel(ctx, len(files), func(i int) error {
			fs, sum := c.l.File(files[i])
			results[i] = fileResult{findings: c.o.Review.File(review.File{Name: files[i].Path, Findings: fs}), sum: c.listed(sum)}
			return nil
		})
		for i := range results {
			results[i].addTo(res, &res.Summary.Objects)
		}
		return ctx.Err()
	})
	if err == nil && n == 0 && lv.Empty != nil {
		lv.Empty()
	}
	return err
}

// fileResult is what one input gave: its findings, what was judged, and
// the comments of its text (read while it was at hand).
type fileResult struct {
	findings []report.Finding
	sum      report.Summary
	comments *review.Comments
	crds     int
	// pending are a streamed file's CRD findings waiting for their
	// document, by document index.
	pending map[int][]report.Finding
	// cr is the cache record of a file being judged, stored when it is
	// done.
	cr *crPending
}

// docResult is what one document of a streamed file gave, counted from
// document 0, to be reviewed in take; with the file cache on, also what
// the cache keeps of it (crDoc): the findings, the document's text and
// line, and the kinds it names.
type docResult struct {
	findings []report.Finding
	sum      report.Summary
	comments *review.Comments
	count    int

	raw   []report.Finding
	text  []byte
	line  int
	kinds []schema.GroupKind
}

// listed is s as the run keeps it: without its list of objects unless
// Options.Objects asks for it.
func (c *checker) listed(s report.Summary) report.Summary {
	if !c.o.Objects {
		s.Checked = nil
	}
	return s
}

// rebase moves findings' document indexes by delta.
func rebase(fs []report.Finding, delta int) []report.Finding {
	for i := range fs {
		fs[i].Document += delta
	}
	return fs
}

// addTo counts a file (or a live object, in count) into res.
func (r *fileResult) addTo(res *report.Result, count *int) {
	res.Findings = append(res.Findings, r.findings...)
	*count++
	r.sum.CRDs += r.crds
	res.Summary.Add(r.sum)
}

type noProgress struct{}

func (noProgress) Start(int) {}
func (noProgress) File(int)  {}
func (noProgress) Docs(int)  {}
func (noProgress) Stop()     {}

// render renders each kustomization directory in-process and adds its
// output to the inputs, named as `kustomize build DIR`.
func render(in *input.Set, dirs []string) (map[string]*kustomize.Rendered, error) {
	out := map[string]*kustomize.Rendered{}
	for _, dir := range dirs {
		r, err := kustomize.Render(dir)
		if err != nil {
			return nil, err
		}
		in.Add(r.Name, -1, r.YAML)
		out[r.Name] = r
	}
	return out, nil
}
