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
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/gcpace"
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
	// ClusterCRDs says the catalogue holds a cluster's CRDs (as it does
	// for live objects, Checker.Live), which have no JSON to name them by
	// and are the cluster's to change: no file's custom resources are
	// then replayed from the cache.
	ClusterCRDs bool

	// Kustomize are kustomization directories rendered in-process, as
	// kubectl apply -k renders them, and checked with the inputs.
	Kustomize []string
	// Notices receives what the run tells a person on the side (stderr):
	// a verdict cache that cannot be used. Nil: discarded.
	Notices io.Writer
	// Objects lists every object the run looks at in the result's
	// Summary.Checked, for the formats that report passing objects too
	// (JUnit). Off, only the counts are kept: the list grows with the
	// input, where a run's memory otherwise follows its largest
	// document. The verdict cache keeps the list either way.
	Objects bool
}

// Pager reads the objects references name as documents, a page at a time,
// the CRDs of their kinds fetched into cat first (cluster.Client).
type Pager interface {
	VisitFiles(ctx context.Context, refs []string, cat *crd.Catalog, fn func(files []*source.File, texts [][]byte) error) (int, error)
}

// catalogue is every rule a finding can name: the result lists it.
var catalogue = rulecatalogue.Rules

// Run is a check run as a library runs it, its stages in order (New,
// CRDs, Inputs, Finish): every input of run linted, with o.Kustomize's
// renders added to them, and reviewed.
func Run(ctx context.Context, run *input.Run, o Options) (report.Result, error) {
	c, err := New(run, o)
	if err != nil {
		return report.Result{}, err
	}
	defer c.Close()
	if err := c.CRDs(ctx); err != nil {
		return report.Result{}, err
	}
	if err := c.Inputs(ctx); err != nil {
		return report.Result{}, err
	}
	return c.Finish()
}

// Checker is one check run, in stages the caller takes in order, each
// handing its results down to the next (the command's Run reads as the
// pipeline it is):
//
//	New     the kustomizations rendered into the inputs, the caches opened
//	CRDs    the collect phase: the inputs' CRDs linted, then put in the
//	        catalogue
//	Inputs  the judge phase: every input linted and reviewed; the
//	        catalogue's duplicate kinds
//	Live    (optional) live objects, a page at a time
//	Finish  the CRD sources' errors, the result reviewed (baseline,
//	        fail-on)
//	Close   the verdict cache trimmed, error or not
//
// At the first custom resource judged the run's memory changes from CRDs'
// trees to compiled versions (internal/gcpace paces the collector for
// it). Progress says how far Inputs has come, at any time, from any
// goroutine.
type Checker struct {
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
	phase   *input.Judge
	res     report.Result
	// judged counts the inputs judged, docs their documents (Progress).
	judged, docs atomic.Int64
	judging      sync.Once
}

// judge is called before a document that is not a CRD is judged: what
// the run holds from then on is mostly compiled versions, and the
// collector is paced for that, once (gcpace.CustomResources: nothing
// unless the binary tuned it).
func (c *Checker) judge() { c.judging.Do(gcpace.CustomResources) }

// New prepares a check of run: o.Kustomize rendered and added to its
// inputs, the verdict caches opened. It sets run's MaxDocumentSize,
// Documents, and its catalogue's cache (the answers for the CRD sources): the
// caller must not have read the CRD sources into the catalogue yet, or
// they are judged without the cache. Errors here and in the stages are
// the inputs' (source.InputError), the cluster's (cluster.Error), a
// baseline's that cannot be read, or a review.WriteError.
func New(run *input.Run, o Options) (*Checker, error) {
	if o.Notices == nil {
		o.Notices = io.Discard
	}
	c := &Checker{o: o, run: run}
	var err error
	if c.rendered, err = render(run.Inputs, o.Kustomize); err != nil {
		return nil, err
	}
	c.l = lint.New(lint.Options{Validate: o.Validate, Catalog: run.Catalog, MissingCRDs: o.Missing})
	run.MaxDocumentSize = o.MaxDocumentSize
	run.Documents = true
	if !o.NoCache {
		c.cache = openCache(o.CacheDir, o.Notices)
	}
	if c.cache != nil {
		run.Catalog.SetCache(crdAnswers{c.cache})
	}
	c.lintKey = lintOptionsKey(o.Validate)
	// A cluster's CRDs have no JSON to name them by, and what they are
	// is the cluster's to change: such runs judge every file.
	if c.cache != nil && !o.ClusterCRDs {
		c.files = &crFiles{cache: c.cache, cat: run.Catalog, opts: crOptionsKey(c.lintKey, o.Missing, o.MaxDocumentSize, run.Catalog.ConfigKinds())}
	}
	c.res = report.Result{Rules: catalogue, Findings: o.Findings}
	c.results = make([]fileResult, len(run.Inputs.Files))
	return c, nil
}

// Files is how many inputs the run has, kustomizations' renders
// included.
func (c *Checker) Files() int { return len(c.results) }

// Progress is how many inputs Inputs has judged so far, and their
// documents.
func (c *Checker) Progress() (files, docs int64) { return c.judged.Load(), c.docs.Load() }

// Close lets the verdict cache go, trimmed to its bound.
func (c *Checker) Close() { c.cache.Trim() }

// Finish says what went wrong with the CRD sources (the duplicates and
// live objects may have read --crd files after the inputs' run.Done:
// what they learnt is remembered, and a file that could not be read is
// said, as for the others), and reviews the result (o.Review's
// Reviewer.Finish; the caller asks o.Review whether the run failed).
func (c *Checker) Finish() (report.Result, error) {
	if err := c.run.Done(); err != nil {
		return report.Result{}, err
	}
	if err := c.o.Review.Finish(&c.res, c.run.Inputs.Files); err != nil {
		return report.Result{}, err
	}
	return c.res, nil
}

// name is input i's name, as findings carry it.
func (c *Checker) name(i int) string {
	return c.run.Inputs.Name(c.run.Inputs.Files[i])
}

// CRDs is the collect phase, its loop the checker's own: the CRDs of
// each input linted while their trees are alive (their findings wait in
// the input's result), then put in the catalogue.
func (c *Checker) CRDs(ctx context.Context) error {
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
	c.phase = col.Done()
	return nil
}

// Inputs is the judge phase, its loop the checker's own: each input
// linted whole (a file that held CRDs, whose CRD findings wait in its
// result), or a document at a time, or replayed from the file cache;
// then the CRDs of a kind defined twice over.
func (c *Checker) Inputs(ctx context.Context) error {
	judge, run := c.phase, c.run
	err := judge.Parallel(ctx, func(i int) error {
		in, err := judge.Input(i)
		switch {
		case err != nil:
			return err
		case in.Skipped != "":
			c.results[i].sum.Skip(in.Skipped)
			c.judged.Add(1)
			return nil
		case in.File != nil:
			c.file(i, in.Data, in.File)
			return nil
		}
		return c.documents(i, in)
	})
	if err == nil {
		err = run.Done()
	}
	if err != nil {
		return err
	}
	c.unchecked()
	for i := range c.results {
		c.results[i].addTo(&c.res, &c.res.Summary.Files)
	}
	for _, f := range lint.Duplicates(run.Catalog) {
		c.res.Findings = append(c.res.Findings, c.o.Review.File(review.File{Name: f.File, Findings: []report.Finding{f}})...)
	}
	return nil
}

// unchecked says on the side (Notices) of each file named on the command
// line in which nothing was checked: every document of it skipped, or the
// file skipped whole (a kustomization, a Helm values file or template).
// Such a file does not fail the run, as a run in which nothing at all is
// checked does not (a pre-commit hook given only a changed kustomization
// must pass: what is not meant to be applied never fails), and the
// summary counts it; but naming a file and hearing nothing of it reads
// as a pass, so the file is named with why.
func (c *Checker) unchecked() {
	named := c.run.Inputs.Named
	for i := range c.results {
		r := &c.results[i]
		if i >= len(named) || !named[i] {
			continue
		}
		s := r.sum
		// A file exclude: or --exclude leaves out was left out on
		// purpose: nothing to tell.
		if s.Skipped == 0 || s.SkippedBy[input.SkipExcluded] == s.Skipped || r.crds > 0 || s.CRDs > 0 || s.CustomResources > 0 || s.Objects > 0 || len(s.NotValidated) > 0 || len(r.findings) > 0 {
			continue
		}
		fmt.Fprintf(c.o.Notices, "note: %s: nothing in it is checked: %s%s\n", c.name(i), s.SkippedText(), checkInstead[onlyReason(s.SkippedBy)])
	}
}

// checkInstead says how to check what a file skipped whole for a reason
// stands for, where there is a way.
var checkInstead = map[string]string{
	input.SkipKustomization: "; check what it renders with -k DIR",
	input.SkipHelmTemplate:  "; check the chart's render: helm template CHART | kubectl crdlint check -",
}

// onlyReason is the one reason of a summary's skips, or "".
func onlyReason(by map[string]int) string {
	if len(by) != 1 {
		return ""
	}
	for k := range by {
		return k
	}
	return ""
}

// crds lints the CRD documents of input i in the collect phase, while
// their trees are alive; data is nil for a file read a document at a
// time.
func (c *Checker) crds(i int, data []byte, found []crd.Found) {
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
func (c *Checker) file(i int, data []byte, f *source.File) {
	defer c.docs.Add(int64(f.Count))
	defer c.judged.Add(1)
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
func (c *Checker) documents(i int, in *input.Judging) error {
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
func (c *Checker) doc(f *source.File) docResult {
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
func (c *Checker) take(i, base int, d docResult) {
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
	c.docs.Add(int64(d.count))
}

// done ends input i read a document at a time: CRD findings left
// waiting are reviewed, and a file judged is kept in the file cache.
func (c *Checker) done(i int) {
	defer c.judged.Add(1)
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
func (c *Checker) whole(i int, data []byte, f *source.File) ([]report.Finding, report.Summary) {
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
		p := &crPending{key: key, name: name, data: data, kinds: map[schema.GroupVersionKind]bool{}}
		// Review changes findings in place.
		p.add(docResult{raw: slices.Clone(fs), sum: sum, count: f.Count, kinds: kindsOf(f)})
		c.files.put(p)
	}
	return fs, sum
}

// noCRDs tells whether an earlier run judged input i's content as a file
// without CRDs (only such files have an entry under the key replay
// looks up), so that the collect phase need not parse it to know.
func (c *Checker) noCRDs(i int, data []byte) bool {
	return c.files.has(c.files.key(c.name(i), data))
}

// replay gives input i's documents' results from the file cache; on a
// miss, the file is judged and its record built as it goes (take), for
// done to store.
func (c *Checker) replay(i int, data []byte) ([]docResult, bool) {
	name := c.name(i)
	key := c.files.key(name, data)
	rec, ok := c.files.get(key, name, data)
	if !ok {
		c.results[i].cr = &crPending{key: key, name: name, data: data, kinds: map[schema.GroupVersionKind]bool{}}
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

// Live judges the objects the references name, read by pages (a
// cluster.Client), a page at a time: only one page and the findings are
// held, however many objects there are. It returns how many there were
// (kubectl get says when none).
func (c *Checker) Live(ctx context.Context, pages Pager, refs []string) (int, error) {
	c.res.Summary.Live = true
	return pages.VisitFiles(ctx, refs, c.run.Catalog, func(files []*source.File, _ [][]byte) error {
		c.judge()
		results := make([]fileResult, len(files))
		input.Parallel(ctx, len(files), func(i int) error {
			fs, sum := c.l.File(files[i])
			results[i] = fileResult{findings: c.o.Review.File(review.File{Name: files[i].Path, Findings: fs}), sum: c.listed(sum)}
			return nil
		})
		for i := range results {
			results[i].addTo(&c.res, &c.res.Summary.Objects)
		}
		return ctx.Err()
	})
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
	kinds []schema.GroupVersionKind
}

// listed is s as the run keeps it: without its list of objects unless
// Options.Objects asks for it.
func (c *Checker) listed(s report.Summary) report.Summary {
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
