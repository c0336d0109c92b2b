package crdtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestServe: an engine runs exactly the cases a request names, in its
// order, as Run does in process, and says which step's expectation it
// compared; a request of another protocol or minor, or naming a case the
// suite lacks, is an error.
func TestServe(t *testing.T) {
	s, own := runFile(t, "testdata/suites/widgets.crdtest.yaml")
	srv, err := Load(s.CRDs...)
	if err != nil {
		t.Fatal(err)
	}
	req := EngineRequest{Protocol: EngineProtocol, Minor: Own, Suites: []EngineSuite{{File: s.File, Cases: []int{3, 0, 7}}}}
	// Through JSON, as the engine reads it.
	b, _ := json.Marshal(req)
	var got EngineRequest
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	resp, err := Serve(got, []*Suite{s}, []*Server{srv})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Protocol != EngineProtocol || resp.Minor != Own || len(resp.Results) != 3 {
		t.Fatalf("answer: protocol %d, minor %s, %d results", resp.Protocol, resp.Minor, len(resp.Results))
	}
	for i, ci := range []int{3, 0, 7} {
		er, r := resp.Results[i], own[ci]
		if er.File != s.File || er.Case != ci || er.Passed != r.Passed || !reflect.DeepEqual(er.Actual, r.Actual) {
			t.Errorf("result %d: %+v, want case %d as Run gives it: %+v", i, er, ci, r)
		}
		if last := len(s.Cases[ci].Steps) - 1; er.Step != last {
			t.Errorf("case %d compared step %d, want %d", ci, er.Step, last)
		}
	}
	for _, bad := range []struct {
		req  EngineRequest
		want string
	}{
		{EngineRequest{Protocol: EngineProtocol + 1, Minor: Own, Suites: req.Suites}, "protocol"},
		{EngineRequest{Protocol: EngineProtocol, Minor: "1.30", Suites: req.Suites}, "judges as Kubernetes " + Own + ", not 1.30"},
		{EngineRequest{Protocol: EngineProtocol, Minor: Own, Suites: []EngineSuite{{File: s.File, Cases: []int{len(s.Cases)}}}}, "has no case"},
	} {
		if _, err := Serve(bad.req, []*Suite{s}, []*Server{srv}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want an error with %q", bad.req, err, bad.want)
		}
	}
}

// TestRunMinorsAnswers: the answer of another minor's engine lands on
// the cases it was asked for, with their expectations (for --update); an
// answer of another minor, for a case not asked, or missing a case, is
// the run's error.
func TestRunMinorsAnswers(t *testing.T) {
	s, _ := runFile(t, "testdata/suites/widgets.crdtest.yaml")
	srv, err := Load(s.CRDs...)
	if err != nil {
		t.Fatal(err)
	}
	s = s.Filter(func(name string) bool { return strings.Contains(name, "status") })
	if len(s.Cases) < 2 {
		t.Fatal("the filter kept too few cases")
	}
	const other = "1.36"
	var asked EngineRequest
	answer := func(edit func(*EngineResponse)) Remote {
		return func(req EngineRequest) (EngineResponse, error) {
			asked = req
			resp := EngineResponse{Protocol: EngineProtocol, Minor: req.Minor}
			for _, es := range req.Suites {
				for _, ci := range es.Cases {
					resp.Results = append(resp.Results, EngineResult{File: es.File, Case: ci, Passed: ci%2 == 0, Error: fmt.Sprint("case ", ci), Step: 0})
				}
			}
			edit(&resp)
			return resp, nil
		}
	}
	rs, err := RunMinors([]*Suite{s}, []*Server{srv}, []string{other}, answer(func(*EngineResponse) {}))
	if err != nil {
		t.Fatal(err)
	}
	if len(asked.Suites) != 1 || len(asked.Suites[0].Cases) != len(s.Cases) {
		t.Fatalf("asked %+v", asked)
	}
	for i, r := range rs {
		c := s.Cases[i]
		// The file's index, not the filtered suite's.
		if asked.Suites[0].Cases[i] != c.index || r.c != c || r.Error != fmt.Sprint("case ", c.index) || r.expect != c.Steps[0].Expect || !reflect.DeepEqual(r.Minors, []string{other}) {
			t.Errorf("result %d: %+v for case %q (index %d)", i, r, c.Name, c.index)
		}
	}
	for name, edit := range map[string]func(*EngineResponse){
		"another minor":    func(r *EngineResponse) { r.Minor = "1.35" },
		"a case not asked": func(r *EngineResponse) { r.Results[0].Case = 999 },
		"a missing case":   func(r *EngineResponse) { r.Results = r.Results[1:] },
	} {
		if _, err := RunMinors([]*Suite{s}, []*Server{srv}, []string{other}, answer(edit)); err == nil || !strings.HasPrefix(err.Error(), "Kubernetes 1.36: ") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestMerge: a case's results that agree on several minors are one,
// naming them; those that differ stay apart, in the order of their
// oldest minor, each variant's together.
func TestMerge(t *testing.T) {
	res := func(m, variant string, passed bool, msg string) *Result {
		return &Result{Case: "c", Variant: variant, Minors: []string{m}, Engine: m, Passed: passed, Error: msg}
	}
	// Two variants named B (one feature set of two cluster profiles),
	// each on 1.33, 1.34 and 1.37.
	got := merge(map[string][]*Result{
		"1.33": {res("1.33", "A", false, "refused"), res("1.33", "B", true, ""), res("1.33", "B", true, "")},
		"1.34": {res("1.34", "A", true, ""), res("1.34", "B", true, ""), res("1.34", "B", true, "")},
		"1.35": {res("1.35", "A", true, "")},
		"1.37": {res("1.37", "A", false, "refused"), res("1.37", "B", true, ""), res("1.37", "B", true, "")},
	})
	var lines []string
	for _, r := range got {
		lines = append(lines, fmt.Sprintf("%s %v %s %t", r.Variant, r.Minors, r.Engine, r.Passed))
	}
	want := []string{"A [1.33 1.37] 1.33,1.37 false", "A [1.34 1.35] 1.34-1.35 true", "B [1.33 1.34 1.37] 1.33-1.34,1.37 true", "B [1.33 1.34 1.37] 1.33-1.34,1.37 true"}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("got  %q\nwant %q", lines, want)
	}
}

// TestRecordSplit: --update leaves a failed case whose minors answer
// differently as written (one expectation cannot hold on all of them)
// and Split names it; a case whose minors agree is recorded.
func TestRecordSplit(t *testing.T) {
	dir := t.TempDir()
	crd, err := os.ReadFile("testdata/suites/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	suite := `apiVersion: crdlint.dev/v1alpha1
kind: CRDTestSuite
crds: [crd.yaml]
tests:
- name: on two minors
  kubernetesVersions: 1.36-1.37
  object: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {size: 2}}
  expect: {accepted: false}
- name: on one minor
  kubernetesVersions: "1.37"
  object: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {size: 2}}
  expect: {accepted: false}
`
	path := filepath.Join(dir, "x.crdtest.yaml")
	for name, content := range map[string]string{"x.crdtest.yaml": suite, "crd.yaml": string(crd)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// In process, 1.36's result is a failure that says no engine ran
	// it: the two minors answer differently.
	s, rs := runFile(t, path)
	split := Split(rs)
	if len(split) != 1 || split[0].Case != "on two minors" {
		t.Fatalf("split: %+v", split)
	}
	if err := Record(s, rs); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := strings.Replace(suite, "  kubernetesVersions: \"1.37\"\n  object: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {size: 2}}\n  expect: {accepted: false}\n", "  kubernetesVersions: \"1.37\"\n  object: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {size: 2}}\n  expect:\n    accepted: true\n", 1)
	if string(got) != want {
		t.Errorf("recorded:\n%s\nwant:\n%s", got, want)
	}
}
