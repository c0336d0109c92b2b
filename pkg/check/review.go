package check

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/helm"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/kustomize"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/suppress"
)

// Scan reads a file's inline suppressions (nil data: none).
func Scan(file string, data []byte) *suppress.Set {
	if data == nil {
		return nil
	}
	return suppress.Scan(file, data, catalogue)
}

// Review applies what the user configured to one file's findings: each
// rule's severity or off for the file (the configuration, --disable),
// then the file's inline suppressions (set, from Scan). Silenced findings
// stay, marked, so that JSON and SARIF can show them; the problems with
// the suppressions themselves (malformed, unused) join the findings.
// Every command that reports findings reviews them so.
func Review(s *config.Settings, file string, set *suppress.Set, findings []report.Finding) []report.Finding {
	kept, off := s.Apply(findings)
	out := make([]report.Finding, 0, len(findings))
	for _, f := range off {
		out = append(out, f.Marked())
	}
	if set == nil {
		return append(out, kept...)
	}
	ran := func(rule string) bool {
		_, isOff := s.RuleSeverity(rule, file)
		return !isOff
	}
	kept, silenced, unused := set.Apply(kept, ran)
	for _, f := range silenced {
		out = append(out, f.Marked())
	}
	more, off := s.Apply(append(slices.Clip(set.Invalid), unused...))
	for _, f := range off {
		out = append(out, f.Marked())
	}
	return append(append(out, kept...), more...)
}

// reviewDoc is the run's reading of a document's findings (fs, counted
// from the document), judged or replayed from the cache: the inline
// suppressions of its text (which starts at the file's line line; nil:
// none to read), the configuration's severities, and the Helm template
// each object came from.
func (c *checker) reviewDoc(path string, text []byte, line int, fs []report.Finding) ([]report.Finding, *suppress.Set) {
	var set *suppress.Set
	if text != nil {
		set = suppress.ScanAt(path, text, line, 0, catalogue)
	}
	fs = c.review(path, set, fs)
	if text != nil && bytes.Contains(text, []byte("# Source: ")) {
		fs = mapHelm(helm.Parse(text), fs)
	}
	return fs, set
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

// mapKustomize points findings on a rendered kustomization at the files
// the objects came from, keeping the rendered position in Via.
func mapKustomize(r *kustomize.Rendered, fs []report.Finding) []report.Finding {
	for i, f := range fs {
		m := r.Map(f)
		if m.File != f.File {
			m.Via = fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
		}
		fs[i] = m
	}
	return fs
}

// mapKustomizeChecked names each object of a rendered kustomization by
// the file and document its resource was written in, as mapKustomize
// does its findings: a test case per object in the kustomization's own
// files, which findings set by a patch join by the object's identity.
func mapKustomizeChecked(r *kustomize.Rendered, cs []report.Checked) {
	for i, c := range cs {
		m := r.Map(report.Finding{File: c.File, Document: c.Document, Object: c.Object})
		cs[i].File, cs[i].Document = m.File, m.Document
	}
}

// mapHelm names, for findings on a `helm template` stream, the template
// each object came from (its "# Source:" comment).
func mapHelm(srcs helm.Sources, fs []report.Finding) []report.Finding {
	if !srcs.Found() {
		return fs
	}
	for i := range fs {
		if p := srcs.Path(fs[i].Document); p != "" {
			fs[i].Via = p
		}
	}
	return fs
}
