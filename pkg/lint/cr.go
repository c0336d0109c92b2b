package lint

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// CR lints one custom resource: the server's verdict on create against
// the CRD the catalogue holds for it.
func (l *Linter) CR(d *source.Document) []report.Finding {
	fs, _ := l.cr(d)
	return fs
}

// cr is CR saying why the object could not be validated ("" when it was).
func (l *Linter) cr(d *source.Document) ([]report.Finding, string) {
	count.CRValidations.Add(1)
	gvk := crd.GVK(d)
	v, err := l.opts.Catalog.LookupAt(gvk, d.File)
	if err != nil {
		why := crd.Unservable.String()
		var le *crd.LookupError
		if errors.As(err, &le) {
			why = le.Reason.String()
		}
		return l.lookupFindings(d, err), why
	}
	return l.validate(d, gvk, v), ""
}

// validate is the server's create verdict on d against v, as findings.
func (l *Linter) validate(d *source.Document, gvk schema.GroupVersionKind, v *engine.Version) []report.Finding {
	var out []report.Finding
	if v.Spec.Deprecated {
		out = append(out, finding(d, RuleCRDeprecated, report.Warning, "apiVersion", v.DeprecationWarning()))
	}
	obj, ok := d.TakeValue()
	if !ok {
		count.CRDecodes.Add(1)
		if err := utiljson.Unmarshal(d.JSON, &obj); err != nil {
			return append(out, finding(d, RuleCRDecode, report.Error, "", cannotHandle(gvk, err)))
		}
	}
	ns := d.Object.Namespace
	if ns == "" {
		ns = crd.DefaultNamespace
	}
	vd := v.Create(obj, ns)
	if vd.Panic != "" {
		return append(out, finding(d, RuleCRServerPanic, report.Error, "",
			"Internal error occurred: the API server's code panics on this object ("+vd.Panic+"), so the create fails with 500 Internal Server Error"))
	}
	if vd.DecodeError != nil {
		path := ""
		var fe *field.Error
		if errors.As(vd.DecodeError, &fe) {
			path = fe.Field
		} else if strings.HasPrefix(vd.DecodeError.Error(), "json: cannot unmarshal") {
			// The root metadata is decoded into ObjectMeta: "Go struct
			// field ObjectMeta.labels" is metadata.labels.
			segs, _ := decodeValue(d.JSON, vd.DecodeError, "metadata")
			path = source.JoinPath(segs)
		}
		return append(out, valueFinding(d, RuleCRDecode, path, cannotHandle(gvk, vd.DecodeError)))
	}
	paths := make([]string, len(vd.Unknown))
	for i, p := range vd.Unknown {
		// The pruner joins map keys with dots: the document says
		// which dots are in a key.
		paths[i] = d.Resolve(p).Field()
	}
	unknown, refused := l.unknown(d, paths, unknownMessages(paths))
	out = append(out, unknown...)
	if refused {
		// Under fieldValidation=Strict the request ends at decoding with a
		// 400 naming the unknown fields: validation never runs.
		return out
	}
	if len(vd.Errors) > 0 {
		x := v.Explain(vd)
		out = append(out, errorFindings(d, vd.Errors, func(e *field.Error) string { return classifyCR(e, x) }, RuleCRCELSkipped)...)
	}
	for _, w := range vd.Warnings {
		path := ""
		if i := strings.Index(w, ": "); i > 0 {
			path = w[:i]
		}
		out = append(out, finding(d, RuleCRServerWarning, report.Warning, path, w))
	}
	return out
}

// unknownMessages are the server's words for unknown fields of a custom
// resource, given their paths.
func unknownMessages(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = fmt.Sprintf("unknown field %q", p)
	}
	return out
}

// junctorRE finds the field a root-level (<nil>) error names in its text:
// junctors (`"spec.a" must validate ...`) and formats (`... in spec.a`).
var junctorRE = regexp.MustCompile(`^Invalid value: "": (?:"([^"]+)" must|.* in ([^ ]+)$)`)

func cannotHandle(gvk schema.GroupVersionKind, err error) string {
	return fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, gvk.Kind, err)
}

// origins tells which parts of the server's validation report an error
// (engine.Explanation; the differential test's full re-run).
type origins interface {
	ListType(*field.Error) bool
	Embedded(*field.Error) bool
	Schema(*field.Error) bool
}

// classifyCR names the part of the server's validation an error came from.
func classifyCR(e *field.Error, x origins) string {
	switch {
	case e.Field == "kind" || e.Field == "apiVersion":
		return RuleCRTypeMeta
	case x.ListType(e):
		return RuleCRListType
	case x.Embedded(e):
		return RuleCREmbedded
	case x.Schema(e):
		return RuleCRSchema
	case hasPrefix(e.Field, "metadata"):
		return RuleCRMetadata
	case strings.HasPrefix(e.Field, "."):
		return RuleCRScale
	}
	// What remains of the strategy's verdict is its CEL validation.
	return RuleCRCEL
}

// LookupMessage is what every command says of a kind that cannot be
// served: the lookup's words, and for a missing CRD, after the server's,
// how to give it.
func LookupMessage(le *crd.LookupError) string {
	switch {
	case le.Reason != crd.NoCRD:
		return le.Error()
	case crd.BuiltinGroup(le.GVK.Group):
		return le.Error() + ": " + builtinGroupHelp(le.GVK)
	}
	return le.Error() + ": " + noCRDHelp
}

// builtinGroupHelp says why a kind of a built-in group is not served:
// not a missing CRD, which could not add it (PodSecurityPolicy as
// policy/v1beta1, removed in 1.25; Pod as apps/v1), and where a kind of
// that name is.
func builtinGroupHelp(gvk schema.GroupVersionKind) string {
	s := groupName(gvk.Group) + " is built into Kubernetes, and no CRD can add a kind to it: this kind was removed from it, or is misspelt"
	var in []string
	for _, g := range crd.BuiltinKindGroups(gvk.Kind) {
		if g != gvk.Group {
			in = append(in, groupName(g))
		}
	}
	if len(in) > 0 {
		s += fmt.Sprintf(" (%s is a kind of %s)", gvk.Kind, strings.Join(in, ", "))
	}
	return s
}

// groupName names an API group in prose.
func groupName(g string) string {
	if g == "" {
		return "the core API group"
	}
	return fmt.Sprintf("the API group %q", g)
}

// noCRDHelp says how to give a missing CRD, briefly (cr-no-crd's page
// says more).
const noCRDHelp = "no CRD given defines it (give it with --crd FILE|DIR, or crds: in .crdlint.yaml, which kubectl crdlint config init writes)"

// lookupFindings are the findings for a custom resource whose kind
// cannot be served, in the lookup's own words: none for a missing CRD
// under MissingIgnore.
func (l *Linter) lookupFindings(d *source.Document, err error) []report.Finding {
	var le *crd.LookupError
	if !errors.As(err, &le) {
		return []report.Finding{finding(d, RuleCRCRDRejected, report.Error, "kind", err.Error())}
	}
	switch le.Reason {
	case crd.NoCRD:
		switch l.opts.MissingCRDs {
		case MissingIgnore:
			return nil
		case MissingWarn:
			return []report.Finding{finding(d, RuleCRNoCRD, report.Warning, "kind", LookupMessage(le))}
		}
		return []report.Finding{finding(d, RuleCRNoCRD, report.Error, "kind", LookupMessage(le))}
	case crd.NoVersion, crd.NotServed:
		return []report.Finding{finding(d, RuleCRVersion, report.Error, "apiVersion", le.Error())}
	case crd.Rejected:
		return []report.Finding{finding(d, RuleCRCRDRejected, report.Error, "kind", le.Error()+l.rejectedBecause(le.Entry))}
	}
	return []report.Finding{finding(d, RuleCRCRDRejected, report.Error, "kind", le.Error())}
}

// rejectedBecause says why the server refuses a CRD, for the custom
// resources of its kind: its first error as check words it on the CRD,
// and how many more there are. A CRD read with --crd is not linted, so
// without it the finding would not say what to fix. Computed once per
// CRD of the run.
func (l *Linter) rejectedBecause(e *crd.Entry) string {
	def := e.Def
	if s, ok := l.rejected.Load(def); ok {
		return s.(string)
	}
	v := def.Verdict(nil)
	var causes []string
	switch {
	case v.DecodeError != nil:
		causes = append(causes, "it cannot be decoded: "+v.DecodeError.Error())
	case v.Panic != "":
		causes = append(causes, "the server's validation panics on it")
	}
	if l.opts.Validate.Refuses() {
		causes = append(causes, v.Unknown...)
	}
	versions := len(e.CRD().Spec.Versions)
	for _, e := range v.Errors {
		p, _, _ := translatePath(e.Field, versions)
		msg := translateText(body(e), versions)
		if p = source.JoinPath(source.ParsePath(p)); p != "" {
			msg = p + ": " + msg
		}
		causes = append(causes, msg)
	}
	s := ""
	if len(causes) > 0 {
		s = ": " + causes[0]
		if len(causes) > 1 {
			s += fmt.Sprintf(" (and %d more)", len(causes)-1)
		}
	}
	l.rejected.Store(def, s)
	return s
}

// errorFindings positions a verdict's errors on d, each under the rule
// classify names, in one path notation: a root error names no field (or
// the field a junctor error names in its text), a scale path loses its
// leading dot. The server's note that CEL rules were skipped because of
// the other errors gets its own rule (skipped), positioned after the
// errors it depends on so that it reads after them.
func errorFindings(d *source.Document, errs field.ErrorList, classify func(*field.Error) string, skipped string) []report.Finding {
	var out []report.Finding
	skip := -1
	for _, e := range errs {
		path := e.Field
		if path == "<nil>" {
			path = ""
		}
		rule := ""
		if celSkipped(e) {
			rule = skipped
			path = ""
		} else {
			rule = classify(e)
		}
		f := finding(d, rule, report.Error, strings.TrimPrefix(path, "."), body(e))
		if e.Field == "<nil>" && rule != skipped {
			// Junctor errors name their field inside the message.
			if m := junctorRE.FindStringSubmatch(e.ErrorBody()); m != nil {
				raw := m[1] + m[2]
				if r := d.Resolve(raw); r.Exact {
					f.Line, f.Column = r.At.Line, r.At.Column
					f.Message = quotePath(f.Message, raw, r.Field())
				}
			}
		}
		if rule == skipped {
			skip = len(out)
		}
		out = append(out, f)
	}
	if skip >= 0 {
		// The note sums the other errors up: it goes where the last of
		// them is, and sorts after those at that place (Follows), so
		// that every output lists it after what it depends on.
		for i, f := range out {
			if i != skip && (f.Line > out[skip].Line || f.Line == out[skip].Line && f.Column > out[skip].Column) {
				out[skip].Line, out[skip].Column = f.Line, f.Column
			}
		}
		out[skip].Follows = true
	}
	return out
}

// celSkipped is the server's note that it did not run the CEL rules
// because the object failed its other checks (a nil path, "some
// validation rules were not checked").
func celSkipped(e *field.Error) bool {
	return strings.Contains(e.Detail, celSkippedNote)
}

// celSkippedNote is the text of the server's note (field.Invalid(nil,
// nil, ...) from the custom resource strategy).
const celSkippedNote = "some validation rules were not checked because the object was invalid"
