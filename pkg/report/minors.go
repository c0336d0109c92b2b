package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Minors are Kubernetes minors, oldest first, kept as one string
// ("1.34,1.35") so that a Finding stays comparable; JSON writes them as a
// list.
type Minors string

// MinorsOf joins minors.
func MinorsOf(minors ...string) Minors { return Minors(strings.Join(minors, ",")) }

// List is the minors one by one.
func (m Minors) List() []string {
	if m == "" {
		return nil
	}
	return strings.Split(string(m), ",")
}

func (m Minors) MarshalJSON() ([]byte, error) { return json.Marshal(m.List()) }

func (m *Minors) UnmarshalJSON(b []byte) error {
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	*m = MinorsOf(l...)
	return nil
}

// MinorSummary counts what one Kubernetes minor found in a run that
// judged as several.
type MinorSummary struct {
	Version  string `json:"version"`
	Errors   int    `json:"errors"`
	Warnings int    `json:"warnings"`
}

// Skew is an object some minors refuse and others accept: "rejected by
// 1.33–1.34 (undeclared reference to 'distinct'), accepted by 1.35–1.37".
type Skew struct {
	File       string    `json:"file"`
	Line       int       `json:"line"`
	Object     ObjectRef `json:"object"`
	RejectedBy []string  `json:"rejectedBy"`
	AcceptedBy []string  `json:"acceptedBy"`
	// Reason is the first error of the oldest refusing minor that the
	// accepting ones do not give, shortened to its cause.
	Reason string `json:"reason"`
}

// Text is the skew as the text output prints it.
func (k Skew) Text() string {
	obj := k.Object.String()
	return fmt.Sprintf("%s:%d: %s: rejected by %s (%s), accepted by %s", k.File, k.Line, obj, Span(k.RejectedBy), k.Reason, Span(k.AcceptedBy))
}

// Span writes minors the short way: consecutive ones as a range
// ("1.33–1.35", an en dash), others listed ("1.33, 1.35"). Minors are
// consecutive when their minor numbers are.
func Span(minors []string) string {
	var parts []string
	for i := 0; i < len(minors); {
		j := i
		for j+1 < len(minors) && minorNumber(minors[j+1]) == minorNumber(minors[j])+1 {
			j++
		}
		if j == i {
			parts = append(parts, minors[i])
		} else {
			parts = append(parts, minors[i]+"–"+minors[j])
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func minorNumber(v string) int {
	_, m, _ := strings.Cut(v, ".")
	n := 0
	fmt.Sscanf(m, "%d", &n)
	return n
}

// minorsSuffix is a finding's "(1.34–1.35)" in a run of several minors,
// when it holds for some of them only.
func minorsSuffix(f Finding, run []MinorSummary) string {
	if l := f.KubernetesVersions.List(); len(l) > 0 && len(l) < len(run) {
		return "(" + Span(l) + ")"
	}
	return ""
}

func (s textStyle) minor(m MinorSummary) string {
	var found []string
	if m.Errors > 0 {
		found = append(found, s.err.Sprint(Plural(m.Errors, "error")))
	}
	if m.Warnings > 0 {
		found = append(found, s.warn.Sprint(Plural(m.Warnings, "warning")))
	}
	if len(found) == 0 {
		found = []string{"no problems"}
	}
	return "Kubernetes " + m.Version + ": " + strings.Join(found, ", ")
}

// judgedBy names the minors that judged, when the run asked for some.
func (s textStyle) judgedBy(sum Summary) string {
	switch {
	case len(sum.Minors) > 0:
		var vs []string
		for _, m := range sum.Minors {
			vs = append(vs, m.Version)
		}
		return ", judged by Kubernetes " + Span(vs)
	case sum.KubernetesVersion != "":
		return ", judged by Kubernetes " + sum.KubernetesVersion
	}
	return ""
}

// EngineProtocol is the version of the result an engine writes for the
// run that started it (WriteEngine, ReadEngine): a change that an older
// reader would misread raises it.
const EngineProtocol = 1

// engineResult is what an engine writes: the whole Result, with what the
// JSON contract leaves out (Follows, the checked objects).
type engineResult struct {
	Protocol          int             `json:"protocol"`
	KubernetesVersion string          `json:"kubernetesVersion"`
	Findings          []engineFinding `json:"findings"`
	Summary           engineSummary   `json:"summary"`
	Upgrades          []UpgradeSummary
}

type engineFinding struct {
	Finding
	Follows bool `json:"follows,omitempty"`
}

type engineSummary struct {
	Summary
	Checked []Checked `json:"checked,omitempty"`
	Live    bool      `json:"live,omitempty"`
}

// WriteEngine writes r, judged by minor, for the process that started
// this one to merge (ReadEngine).
func WriteEngine(w io.Writer, minor string, r Result) error {
	out := engineResult{Protocol: EngineProtocol, KubernetesVersion: minor, Summary: engineSummary{Summary: r.Summary, Checked: r.Summary.Checked, Live: r.Summary.Live}, Upgrades: r.Upgrades}
	for _, f := range r.Findings {
		out.Findings = append(out.Findings, engineFinding{Finding: f, Follows: f.Follows})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// ReadEngine reads what WriteEngine wrote and the minor that judged.
func ReadEngine(data []byte) (string, Result, error) {
	var in engineResult
	if err := json.Unmarshal(data, &in); err != nil {
		return "", Result{}, fmt.Errorf("reading an engine's result: %w", err)
	}
	if in.Protocol != EngineProtocol {
		return "", Result{}, fmt.Errorf("the engine speaks protocol %d, not %d: it is of another release of kubectl-crdlint", in.Protocol, EngineProtocol)
	}
	r := Result{Summary: in.Summary.Summary, Upgrades: in.Upgrades}
	r.Summary.Checked, r.Summary.Live = in.Summary.Checked, in.Summary.Live
	for _, f := range in.Findings {
		f.Finding.Follows = f.Follows
		r.Findings = append(r.Findings, f.Finding)
	}
	return in.KubernetesVersion, r, nil
}

// Merge joins the results of the same run judged by several minors
// (oldest first): a finding identical in several is reported once, naming
// the minors it holds for; the summary is the newest's, with each minor's
// counts; objects some minors refuse and others accept are Skews. A
// finding at --fail-on in any minor fails the merged result.
func Merge(minors []string, results []Result) Result {
	type key struct {
		f       string
		follows bool
	}
	index := map[key]int{}
	var out Result
	sums := make([]MinorSummary, len(minors))
	for i, r := range results {
		r.Count()
		sums[i] = MinorSummary{Version: minors[i], Errors: r.Summary.Errors, Warnings: r.Summary.Warnings}
		for _, f := range r.Findings {
			f.KubernetesVersions = ""
			b, _ := json.Marshal(f)
			k := key{string(b), f.Follows}
			if j, ok := index[k]; ok {
				g := &out.Findings[j]
				g.KubernetesVersions = MinorsOf(append(g.KubernetesVersions.List(), minors[i])...)
				continue
			}
			index[k] = len(out.Findings)
			f.KubernetesVersions = MinorsOf(minors[i])
			out.Findings = append(out.Findings, f)
		}
	}
	last := results[len(results)-1]
	out.Summary, out.Rules = last.Summary, last.Rules
	out.Upgrades = mergeUpgrades(minors, results)
	out.Summary.Minors = sums
	out.Skews = skews(minors, out.Findings)
	return out
}

// mergeUpgrades joins each minor's per-CRD upgrade counts: a CRD every
// minor counted alike is listed once, as one run lists it; one the minors
// counted differently once per distinct count, naming the minors of each,
// in the order the CRDs first appear.
func mergeUpgrades(minors []string, results []Result) []UpgradeSummary {
	type group struct {
		u      UpgradeSummary
		minors []string
	}
	var crds []string
	byCRD := map[string][]*group{}
	for i, r := range results {
		for _, u := range r.Upgrades {
			u.KubernetesVersions = ""
			gs, seen := byCRD[u.CRD]
			if !seen {
				crds = append(crds, u.CRD)
			}
			found := false
			for _, g := range gs {
				if g.u == u {
					g.minors = append(g.minors, minors[i])
					found = true
					break
				}
			}
			if !found {
				byCRD[u.CRD] = append(gs, &group{u, []string{minors[i]}})
			}
		}
	}
	var out []UpgradeSummary
	for _, c := range crds {
		gs := byCRD[c]
		for _, g := range gs {
			u := g.u
			if len(gs) > 1 || len(g.minors) < len(minors) {
				u.KubernetesVersions = MinorsOf(g.minors...)
			}
			out = append(out, u)
		}
	}
	return out
}

// skews finds the objects that some minors refuse (an error that is not
// suppressed) and others accept.
func skews(minors []string, fs []Finding) []Skew {
	type obj struct {
		file string
		doc  int
		ref  ObjectRef
	}
	refused := map[obj]map[string]bool{}
	first := map[obj]*Finding{}
	var order []obj
	for i := range fs {
		f := &fs[i]
		if f.Severity != Error || f.Suppressed != nil || f.Object.Kind == "" {
			continue
		}
		o := obj{f.File, f.Document, f.Object}
		if refused[o] == nil {
			refused[o] = map[string]bool{}
			order = append(order, o)
		}
		ms := f.KubernetesVersions.List()
		for _, m := range ms {
			refused[o][m] = true
		}
		// The cause: an error not every minor gives, of the oldest minor.
		if len(ms) < len(minors) && (first[o] == nil || slices.Index(minors, ms[0]) < slices.Index(minors, first[o].KubernetesVersions.List()[0])) {
			first[o] = f
		}
	}
	var out []Skew
	for _, o := range order {
		if len(refused[o]) == len(minors) || first[o] == nil {
			continue
		}
		k := Skew{File: o.file, Line: first[o].Line, Object: o.ref, Reason: cause(first[o].Message)}
		for _, m := range minors {
			if refused[o][m] {
				k.RejectedBy = append(k.RejectedBy, m)
			} else {
				k.AcceptedBy = append(k.AcceptedBy, m)
			}
		}
		out = append(out, k)
	}
	return out
}

// cause shortens a server message to what went wrong: its first line,
// and of a CEL compilation error the compiler's words alone.
func cause(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	if _, after, ok := strings.Cut(msg, "ERROR: <input>:"); ok {
		// "1:16: undeclared reference to 'distinct' (in container '')"
		if parts := strings.SplitN(after, ": ", 2); len(parts) == 2 {
			msg = strings.TrimSuffix(parts[1], " (in container '')")
		}
	}
	return msg
}
