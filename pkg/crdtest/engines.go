package crdtest

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// A binary links one release of the server libraries, so each Kubernetes
// minor but Own is judged by its own engine: kubectl-crdlint built against
// that minor's libraries (docs/versions.md). RunMinors hands each such
// minor its share of a run's cases in one request (EngineRequest, on the
// engine's stdin), the engine's test command runs them in process (Serve)
// and answers (EngineResponse, on its stdout), and the results are merged
// back in suite order.

// EngineProtocol is the version of EngineRequest and EngineResponse: an
// engine refuses a request of another version, so a mismatched engine is
// an error rather than a misread answer.
const EngineProtocol = 1

// EngineRequest asks the engine of Minor to run cases of suites.
type EngineRequest struct {
	Protocol int           `json:"protocol"`
	Minor    string        `json:"minor"`
	Suites   []EngineSuite `json:"suites"`
}

// EngineSuite is a suite file, which the engine reads itself (its CRDs
// come from the same sources and configuration), and the indexes of the
// cases to run, in the file's order.
type EngineSuite struct {
	File  string `json:"file"`
	Cases []int  `json:"cases"`
}

// EngineResponse is an engine's results, one per case and variant.
type EngineResponse struct {
	Protocol int            `json:"protocol"`
	Minor    string         `json:"minor"`
	Results  []EngineResult `json:"results"`
}

// EngineResult is one case's result on one variant of its CRD. Step is
// the index of the step whose expectation was compared (-1: none), which
// --update records into.
type EngineResult struct {
	File    string   `json:"file"`
	Case    int      `json:"case"`
	Variant string   `json:"variant,omitempty"`
	Passed  bool     `json:"passed"`
	Error   string   `json:"error,omitempty"`
	Diffs   []Diff   `json:"diffs,omitempty"`
	Actual  *Outcome `json:"actual,omitempty"`
	Step    int      `json:"step"`
}

// Remote runs a request on the engine of its minor.
type Remote func(EngineRequest) (EngineResponse, error)

// caseMinors are the minors a case must hold on: its kubernetesVersions,
// else its suite's, else def (the command line's or the configuration's),
// else Own.
func caseMinors(s *Suite, c *Case, def []string) []string {
	switch {
	case c.Minors != nil:
		return c.Minors
	case s.Minors != nil:
		return s.Minors
	case len(def) > 0:
		return def
	}
	return []string{Own}
}

// Needed are the minors other than Own that the suites' cases must hold
// on, oldest first: the engines a run needs.
func Needed(suites []*Suite, def []string) []string {
	seen := map[string]bool{}
	for _, s := range suites {
		for _, c := range s.Cases {
			for _, m := range caseMinors(s, c, def) {
				seen[m] = m != Own
			}
		}
	}
	var out []string
	for _, m := range Minors {
		if seen[m] {
			out = append(out, m)
		}
	}
	return out
}

// job is a case of a run: suite and case index.
type job struct{ si, ci int }

// RunMinors runs the suites' cases (srvs[i] is the in-process server of
// suites[i]'s CRDs) on the minors each must hold on (its
// kubernetesVersions, else its suite's, else def, else Own): Own's share
// in process, each other minor's by remote, one request per minor, as
// many at once as there are CPUs. The results are in suite order, a
// case's variants in order, and a case's results that agree on several
// minors are one result naming them. Without remote, the other minors'
// results are failures that say no engine ran them. The error is an
// engine's that could not run (not found, a one-line error of its own, a
// malformed answer).
func RunMinors(suites []*Suite, srvs []*Server, def []string, remote Remote) ([]*Result, error) {
	shares := map[string][]job{}
	for si, s := range suites {
		for ci, c := range s.Cases {
			for _, m := range caseMinors(s, c, def) {
				shares[m] = append(shares[m], job{si, ci})
			}
		}
	}
	var (
		mu   sync.Mutex
		got  = map[job]map[string][]*Result{}
		errs []error
	)
	put := func(m string, j job, rs []*Result) {
		mu.Lock()
		defer mu.Unlock()
		if got[j] == nil {
			got[j] = map[string][]*Result{}
		}
		got[j][m] = append(got[j][m], rs...)
	}
	sem := make(chan struct{}, max(1, runtime.NumCPU()))
	var wg sync.WaitGroup
	for m, share := range shares {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			switch {
			case m == Own:
				rs := runShare(suites, srvs, share)
				for i, j := range share {
					put(m, j, rs[i])
				}
			case remote == nil:
				for _, j := range share {
					s, c := suites[j.si], suites[j.si].Cases[j.ci]
					put(m, j, []*Result{{File: s.File, Pos: c.Pos, Line: c.Pos.Line, Suite: suiteName(s), Case: c.Name, Minors: []string{m}, Engine: m, c: c, index: c.index, step: -1,
						Error: fmt.Sprintf("not judged: each minor is judged by its own engine, which kubectl crdlint test starts; this process links Kubernetes %s's libraries", Own)}})
				}
			default:
				rs, err := runRemote(suites, share, m, remote)
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("Kubernetes %s: %w", m, err))
					mu.Unlock()
					return
				}
				for j, r := range rs {
					put(m, j, r)
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		// The oldest minor's, as a run's first error is the same each time.
		slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
		return nil, errs[0]
	}
	var out []*Result
	for si, s := range suites {
		for ci := range s.Cases {
			out = append(out, merge(got[job{si, ci}])...)
		}
	}
	return out, nil
}

// runShare runs jobs on this binary's engine, in parallel (a Server is
// safe for concurrent use), each suite's variants found once; the results
// are in jobs' order.
func runShare(suites []*Suite, srvs []*Server, jobs []job) [][]*Result {
	type vset struct {
		vs    []*Server
		names []string
		err   error
	}
	vars := map[int]*vset{}
	for _, j := range jobs {
		if _, ok := vars[j.si]; !ok {
			vs, names, err := variants(suites[j.si], srvs[j.si])
			vars[j.si] = &vset{vs, names, err}
		}
	}
	out := make([][]*Result, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(jobs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				v := vars[j.si]
				out[i] = runOwn(suites[j.si], j.ci, v.vs, v.names, v.err)
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// runRemote sends minor's share to its engine and turns the answer into
// results of the suites' cases.
func runRemote(suites []*Suite, share []job, minor string, remote Remote) (map[job][]*Result, error) {
	req := EngineRequest{Protocol: EngineProtocol, Minor: minor}
	bySuite := map[int]int{}
	for _, j := range share {
		i, ok := bySuite[j.si]
		if !ok {
			i = len(req.Suites)
			bySuite[j.si] = i
			req.Suites = append(req.Suites, EngineSuite{File: suites[j.si].File})
		}
		req.Suites[i].Cases = append(req.Suites[i].Cases, suites[j.si].Cases[j.ci].index)
	}
	resp, err := remote(req)
	if err != nil {
		return nil, err
	}
	if resp.Protocol != EngineProtocol || resp.Minor != minor {
		return nil, fmt.Errorf("the engine answered protocol %d as Kubernetes %s, not protocol %d as %s", resp.Protocol, resp.Minor, EngineProtocol, minor)
	}
	// The cases asked, by file and index in the file.
	type asked struct {
		file  string
		index int
	}
	jobOf := map[asked]job{}
	for _, j := range share {
		jobOf[asked{suites[j.si].File, suites[j.si].Cases[j.ci].index}] = j
	}
	out := map[job][]*Result{}
	for _, er := range resp.Results {
		j, ok := jobOf[asked{er.File, er.Case}]
		if !ok {
			return nil, fmt.Errorf("the engine answered for case %d of %s, which it was not asked", er.Case, er.File)
		}
		s, c := suites[j.si], suites[j.si].Cases[j.ci]
		r := &Result{File: s.File, Pos: c.Pos, Line: c.Pos.Line, Suite: suiteName(s), Case: c.Name, Variant: er.Variant, Minors: []string{minor}, Engine: minor,
			Passed: er.Passed, Error: er.Error, Diffs: er.Diffs, Actual: er.Actual, c: c, index: er.Case, step: er.Step}
		if er.Step >= 0 && er.Step < len(c.Steps) {
			r.expect = c.Steps[er.Step].Expect
		}
		out[j] = append(out[j], r)
	}
	for _, j := range jobOf {
		if len(out[j]) == 0 {
			return nil, fmt.Errorf("the engine gave no result for %q of %s", suites[j.si].Cases[j.ci].Name, suites[j.si].File)
		}
	}
	return out, nil
}

// merge orders one case's results by variant (as first met, oldest minor
// first) and makes the results of a variant that agree (verdict, error,
// differences, the server's answer) on several minors one, naming them:
// a case that holds on every minor reads as one line. Variants are told
// apart by name and, for CRDs of one name (openshift's feature sets of
// several cluster profiles), by their order among those.
func merge(byMinor map[string][]*Result) []*Result {
	type variant struct {
		name string
		nth  int
	}
	type group struct {
		r   *Result
		key string
	}
	var order []variant
	groups := map[variant][]*group{}
	for _, m := range Minors {
		nth := map[string]int{}
		for _, r := range byMinor[m] {
			v := variant{r.Variant, nth[r.Variant]}
			nth[r.Variant]++
			if _, ok := groups[v]; !ok {
				order = append(order, v)
				groups[v] = nil
			}
			k := outcomeKey(r)
			found := false
			for _, g := range groups[v] {
				if g.key == k {
					g.r.Minors = append(g.r.Minors, m)
					g.r.Engine = rangeText(g.r.Minors)
					found = true
					break
				}
			}
			if !found {
				groups[v] = append(groups[v], &group{r, k})
			}
		}
	}
	var out []*Result
	for _, v := range order {
		for _, g := range groups[v] {
			out = append(out, g.r)
		}
	}
	return out
}

// outcomeKey is what two minors must agree on for their results to be
// one.
func outcomeKey(r *Result) string {
	b, _ := json.Marshal(struct {
		Passed bool
		Error  string
		Diffs  []Diff
		Actual *Outcome
		Step   int
	}{r.Passed, r.Error, r.Diffs, r.Actual, r.step})
	return string(b)
}

// Serve runs, for the run of another minor that asked, the cases req
// names on this binary's engine: suites[i] is req.Suites[i]'s file as
// read, srvs[i] the server of its CRDs.
func Serve(req EngineRequest, suites []*Suite, srvs []*Server) (EngineResponse, error) {
	if req.Protocol != EngineProtocol {
		return EngineResponse{}, fmt.Errorf("this engine speaks protocol %d, not %d", EngineProtocol, req.Protocol)
	}
	if req.Minor != Own {
		return EngineResponse{}, fmt.Errorf("this engine judges as Kubernetes %s, not %s", Own, req.Minor)
	}
	if len(suites) != len(req.Suites) || len(srvs) != len(req.Suites) {
		return EngineResponse{}, fmt.Errorf("%d suites asked, %d read", len(req.Suites), len(suites))
	}
	var jobs []job
	for si, es := range req.Suites {
		for _, ci := range es.Cases {
			if ci < 0 || ci >= len(suites[si].Cases) {
				return EngineResponse{}, fmt.Errorf("%s has no case %d", es.File, ci)
			}
			jobs = append(jobs, job{si, ci})
		}
	}
	resp := EngineResponse{Protocol: EngineProtocol, Minor: Own, Results: []EngineResult{}}
	for i, rs := range runShare(suites, srvs, jobs) {
		for _, r := range rs {
			resp.Results = append(resp.Results, EngineResult{File: req.Suites[jobs[i].si].File, Case: r.index, Variant: r.Variant, Passed: r.Passed, Error: r.Error, Diffs: r.Diffs, Actual: r.Actual, Step: r.step})
		}
	}
	return resp, nil
}
