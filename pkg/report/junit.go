package report

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// The JUnit shapes follow Jenkins' junit-10.xsd, the schema the common CI
// readers (Jenkins, GitLab, CircleCI, Azure Pipelines) accept; the test
// validates the output against it. They are exported for the other
// reports in JUnit (kubectl crdlint test's, pkg/crdtest), which write
// them with WriteJUnit: one set of shapes, one encoding.

// JUnitSuites is a report's root element.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one <testsuite>.
type JUnitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	File     string      `xml:"file,attr"`
	Cases    []JUnitCase `xml:"testcase"`
}

// JUnitCase is one <testcase>; what is unset is left out.
type JUnitCase struct {
	Name      string         `xml:"name,attr"`
	ClassName string         `xml:"classname,attr"`
	File      string         `xml:"file,attr,omitempty"`
	Line      int            `xml:"line,attr,omitempty"`
	Skipped   *JUnitMessage  `xml:"skipped"`
	Failure   *JUnitFailure  `xml:"failure"`
	Error     *JUnitFailure  `xml:"error"`
	SystemOut *JUnitCharData `xml:"system-out"`
}

// JUnitMessage is an element with only a message (<skipped>).
type JUnitMessage struct {
	Message string `xml:"message,attr"`
}

// JUnitFailure is a <failure> or an <error>.
type JUnitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnitCharData is an element with only text (<system-out>).
type JUnitCharData struct {
	Text string `xml:",chardata"`
}

// WriteJUnit writes a JUnit report: the XML header, the elements indented
// by two spaces, and a final newline.
func WriteJUnit(w io.Writer, out JUnitSuites) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitKey identifies a test case: one object of one document of a file.
type junitKey struct {
	file     string
	document int
	object   ObjectRef
}

// wholeFile is the document index of the test case that holds a file's
// findings about the file as a whole (line 0); it sorts first.
const wholeFile = -1

type junitObject struct {
	key      junitKey
	skipped  string
	findings []Finding
}

// RenderJUnit writes a JUnit XML report: one test suite per file and one
// test case per object (file, document, kind namespace/name), so that CI
// test views list what was checked and what failed.
//
// The objects are Summary.Checked: every object the run judged is a case,
// a passing one when nothing fails it, so that a clean run is a report of
// passing tests rather than an empty one (which CI servers read as a
// failure). An object the run looked at but did not judge (a built-in
// kind, tool configuration, a custom resource without its CRD) is a
// skipped case that says why. Documents that are no object and files
// skipped whole (kustomizations, chart templates) are not cases: they
// hold nothing to test, and the summary counts them.
//
// A case fails when it has an error, or a warning under --fail-on warning
// (Options.FailOn): the test report is red when the job fails, and errors
// are failures even under --fail-on none, where the report still shows
// what the server would reject. Each failing case has a single <failure>
// whose message counts the findings and whose text lists them all, one
// line each in the text format: Jenkins, GitLab and CircleCI read only
// the first failure element of a test case, so one per finding would hide
// all but the first. Warnings of a case that does not fail go to its
// <system-out>, which Jenkins shows with the case (JUnit has no "passed
// with warnings"). Suppressed findings are left out.
//
// A finding goes to the case of its file, document and object. One
// positioned elsewhere (a kustomize patch that set the field, the old
// revision of an immutable update) goes to its object's case when the
// run checked exactly one object of that identity (a name is needed for
// one); otherwise, and for a
// document that is no object, it makes a case of its own ("document N",
// or "whole file" for a finding about the file as a whole).
func RenderJUnit(w io.Writer, r Result, o Options) error {
	r = prepare(r)
	objects := map[junitKey]*junitObject{}
	get := func(k junitKey) *junitObject {
		if obj, ok := objects[k]; ok {
			return obj
		}
		obj := &junitObject{key: k}
		objects[k] = obj
		return obj
	}
	findings := active(r.Findings)
	// homes are the cases of the objects findings name, for a finding
	// positioned elsewhere: only those, as a run may check far more.
	homes := map[ObjectRef][]junitKey{}
	for _, f := range findings {
		if f.Object.Name != "" {
			homes[f.Object] = nil
		}
	}
	for _, c := range r.Summary.Checked {
		k := junitKey{slashPath(c.File), c.Document, c.Object}
		obj, seen := objects[k]
		if !seen {
			obj = get(k)
			if h, ok := homes[c.Object]; ok {
				homes[c.Object] = append(h, k)
			}
		}
		if obj.skipped == "" {
			obj.skipped = c.Skipped
		}
	}
	for _, f := range findings {
		k := junitKey{slashPath(f.File), f.Document, f.Object}
		switch elsewhere := homes[f.Object]; {
		case f.Object.Name != "" && len(elsewhere) == 1:
			k = elsewhere[0]
		case f.Line == 0 && f.Object.Kind == "":
			k.document = wholeFile
		}
		obj := get(k)
		obj.findings = append(obj.findings, f)
	}
	sorted := make([]*junitObject, 0, len(objects))
	for _, obj := range objects {
		sorted = append(sorted, obj)
	}
	slices.SortFunc(sorted, func(a, b *junitObject) int {
		return cmp.Or(
			cmp.Compare(a.key.file, b.key.file),
			cmp.Compare(a.key.document, b.key.document),
			cmp.Compare(a.key.object.APIVersion, b.key.object.APIVersion),
			cmp.Compare(a.key.object.Kind, b.key.object.Kind),
			cmp.Compare(a.key.object.Namespace, b.key.object.Namespace),
			cmp.Compare(a.key.object.Name, b.key.object.Name),
		)
	})

	out := JUnitSuites{Name: toolName, Suites: []JUnitSuite{}}
	style := newTextStyle(false)
	for i := 0; i < len(sorted); {
		file := sorted[i].key.file
		j := i
		for j < len(sorted) && sorted[j].key.file == file {
			j++
		}
		suite := JUnitSuite{Name: file, File: file}
		names := caseNames(sorted[i:j])
		for k, obj := range sorted[i:j] {
			c := JUnitCase{Name: names[k], ClassName: file}
			var failing []Finding
			worst := None
			for _, f := range obj.findings {
				if f.Severity == Error || (o.FailOn == Warning && f.Severity == Warning) {
					failing = append(failing, f)
					worst = max(worst, f.Severity)
				}
			}
			var text strings.Builder
			for _, f := range obj.findings {
				style.line(&text, f, false)
			}
			switch {
			case len(failing) > 0:
				c.Failure = &JUnitFailure{Message: failureMessage(failing), Type: worst.String(), Text: text.String()}
				suite.Failures++
			case obj.skipped != "":
				c.Skipped = &JUnitMessage{Message: obj.skipped}
				suite.Skipped++
			}
			if c.Failure == nil && len(obj.findings) > 0 {
				c.SystemOut = &JUnitCharData{Text: text.String()}
			}
			suite.Cases = append(suite.Cases, c)
			suite.Tests++
		}
		out.Tests += suite.Tests
		out.Failures += suite.Failures
		out.Suites = append(out.Suites, suite)
		i = j
	}

	return WriteJUnit(w, out)
}

// caseNames names the test cases of one file: the object as kubectl names
// it, "document N" (1-based, for people) when the document is no object,
// or "whole file". Names that would repeat within the file get the
// document number too, since CI views key test cases by class and name;
// so does an object without a name (generateName), whose place is all
// that tells it apart, so that its case keeps its name when another
// such object joins the file.
func caseNames(objs []*junitObject) []string {
	names := make([]string, len(objs))
	count := map[string]int{}
	for i, obj := range objs {
		names[i] = obj.key.object.String()
		switch {
		case obj.key.document == wholeFile:
			names[i] = "whole file"
		case names[i] == "":
			names[i] = "document " + strconv.Itoa(obj.key.document+1)
		}
		count[names[i]]++
	}
	for i, obj := range objs {
		if obj.key.object.Kind != "" && (count[names[i]] > 1 || obj.key.object.Name == "") {
			names[i] += " (document " + strconv.Itoa(obj.key.document+1) + ")"
		}
	}
	return names
}

// failureMessage sums up a case's failing findings in one line: the
// finding itself when there is one, else the counts and the rules.
func failureMessage(fs []Finding) string {
	if len(fs) == 1 {
		first, _, _ := strings.Cut(fs[0].Message, "\n")
		return fs[0].Rule + ": " + withField(strings.TrimSuffix(first, "\r"), fs[0].Field)
	}
	var errs, warns int
	var rules []string
	for _, f := range fs {
		if f.Severity == Error {
			errs++
		} else {
			warns++
		}
		if !slices.Contains(rules, f.Rule) {
			rules = append(rules, f.Rule)
		}
	}
	var counts []string
	if errs > 0 {
		counts = append(counts, Plural(errs, "error"))
	}
	if warns > 0 {
		counts = append(counts, Plural(warns, "warning"))
	}
	return fmt.Sprintf("%s: %s", strings.Join(counts, ", "), strings.Join(rules, ", "))
}
