package review

import (
	"bytes"
	"io"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/helm"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/kustomize"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/suppress"
)

// Options are what the user asked of a run's review.
type Options struct {
	// Settings are the resolved configuration (flags over the file over
	// the defaults): each rule's level per file and --fail-on. Never nil.
	Settings *config.Settings
	// Rules are every rule a finding can name (the rule set):
	// inline suppressions are checked against them.
	Rules []report.Rule
	// Baseline reports only the findings not recorded in this file;
	// WriteBaseline records the run's findings in it instead. Empty: no
	// baseline (the commands that take no --baseline leave both empty).
	Baseline, WriteBaseline string
	// Notices receives what the baseline tells a person on the side
	// (stderr): the file written or missing, and, with ListFixed, each
	// entry no finding matches any more. Nil: discarded.
	Notices   io.Writer
	ListFixed bool
}

// Reviewer reviews one run's findings: a file at a time (File, safe for
// concurrent use), then the whole result once (Finish).
type Reviewer struct {
	o     Options
	steps []step
	// off are the rules off for every file (levels).
	off map[string]bool
	// failed is the fail-on step's verdict.
	failed bool
}

// step is one step of the review, one file of this package each.
type step interface {
	// file reviews one file's findings in f.Findings. What it adds (the
	// suppressions' own findings) it returns instead, and the review
	// passes that through the steps before this one, as if the linter
	// had found it.
	file(r *Reviewer, f *File) (added []report.Finding)
	// run reviews the whole result once every file's findings are in it.
	run(r *Reviewer, res *report.Result, files []string) error
}

// steps are the review, in the order it runs; each step sees the
// findings as the steps before it left them.
//
//   - levels first: a rule off everywhere (--disable) is taken out
//     before anything matches, counts or records its findings; a rule
//     off for a file is suppressed there by the configuration (kind
//     "config"), which names the entry that turned it off, before any
//     comment could claim the finding; and a finding gets its file's
//     severity before anything counts it.
//   - suppressions after levels: a directive for a rule that is off is
//     not unused (the rule did not run), and the suppressions' own
//     findings (malformed, unused) get their levels like any other.
//   - mapping after the findings are judged in the file they were
//     reported in: a Helm template stream's findings name their
//     template, a rendered kustomization's point at the files its
//     objects came from.
//   - the baseline after everything per file: it accepts what would be
//     reported, matched where the user wrote it, and no finding a
//     comment or the configuration already silenced.
//   - fail-on last: only what is left, at its final severity, fails the
//     run.
var steps = []step{
	levels{},
	suppressions{},
	mapping{},
	baseline{},
	failOn{},
}

// New returns a Reviewer for one run.
func New(o Options) *Reviewer {
	if o.Notices == nil {
		o.Notices = io.Discard
	}
	return &Reviewer{o: o, steps: steps, off: o.Settings.Off()}
}

// File is one file's findings as the review takes them, with what it
// reads of the file.
type File struct {
	// Name is the file as its findings name it.
	Name string
	// Comments are what the review read of the file's text (Read); nil
	// for a file without text (an object read from a cluster).
	Comments *Comments
	// Kustomization is the kustomization whose rendering Name is (-k);
	// nil for any other file.
	Kustomization *kustomize.Rendered
	// Base is the index in the file of the first document Findings,
	// Checked and Comments count from: for a document of a file read a
	// document at a time; 0 for a whole file. The review counts the
	// documents of its findings and of Checked from the file's first.
	Base int
	// Findings are the file's findings as the linter (or the comparison,
	// or the replay) reported them.
	Findings []report.Finding
	// Checked are the objects judged in the file (report.Summary's),
	// changed in place: they are named where the findings are.
	Checked []report.Checked
}

// File reviews one file's findings and returns what the user sees of
// them: the findings at their severity, silenced ones marked
// (report.Finding.Suppressed, counted nowhere), the suppressions' own
// findings added, each where the user wrote it. f.Findings are changed
// in place.
func (r *Reviewer) File(f File) []report.Finding {
	for i := range f.Findings {
		f.Findings[i].Document += f.Base
	}
	for i := range f.Checked {
		f.Checked[i].Document += f.Base
	}
	r.file(&f, r.steps)
	return f.Findings
}

func (r *Reviewer) file(f *File, steps []step) {
	for i, s := range steps {
		added := s.file(r, f)
		if len(added) == 0 {
			continue
		}
		more := *f
		more.Findings, more.Checked = added, nil
		r.file(&more, steps[:i])
		f.Findings = append(f.Findings, more.Findings...)
	}
}

// Finish reviews the result once every file's findings are in it: the
// baseline (files are those the run checked: the entries of other files
// are neither matched nor stale), then whether the run fails (Failed).
// Its errors are a baseline that cannot be read, or a *WriteError.
func (r *Reviewer) Finish(res *report.Result, files []string) error {
	for _, s := range r.steps {
		if err := s.run(r, res, files); err != nil {
			return err
		}
	}
	return nil
}

// Failed says whether the findings Finish saw reach --fail-on.
func (r *Reviewer) Failed() bool { return r.failed }

// Comments are what the review reads in a file's text: its inline
// suppressions, and for a helm template stream the template each of its
// documents came from. They are read while the text is at hand (Read)
// and are small: the text can go.
type Comments struct {
	suppressions *suppress.Set
	helm         helm.Sources
}

// Read reads the comments of text, the content of the file name (as its
// findings name it) from its line line on: 1 for the whole file, or a
// document read alone, its documents counted from 0 (File.Base says
// where they are in the file). A nil text has none.
func (r *Reviewer) Read(name string, text []byte, line int) *Comments {
	if text == nil {
		return nil
	}
	c := &Comments{suppressions: suppress.ScanAt(name, text, line, 0, r.o.Rules)}
	if bytes.Contains(text, []byte("# Source: ")) {
		c.helm = helm.Parse(text)
	}
	return c
}

// perFile and perRun give a step that works on each file, or on the
// whole run, the other half of step, which does nothing.
type perFile struct{}
type perRun struct{}

func (perFile) run(*Reviewer, *report.Result, []string) error { return nil }
func (perRun) file(*Reviewer, *File) []report.Finding         { return nil }

// Text reviews the findings of a whole file whose text is text (nil: it
// has none): File with the comments Read reads in it.
func (r *Reviewer) Text(name string, text []byte, findings []report.Finding) []report.Finding {
	return r.File(File{Name: name, Comments: r.Read(name, text, 1), Findings: findings})
}
