package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/fsutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crdsource"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crdtest"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/remote"
)

// TestOptions runs CRD test suites.
type TestOptions struct {
	Output   string
	Update   bool
	RunCases string
	Verbose  bool
	sourceOptions

	paths []string
	run   *regexp.Regexp
	flags *pflag.FlagSet
	// minors are --kubernetes-version's (or the configuration's): the
	// minors of the suites and cases that name none.
	minors []string
	genericiooptions.IOStreams
}

// testFormats are test's output formats.
var testFormats = []string{"text", "json", "junit", "github"}

// NewCmdTest builds "test".
func NewCmdTest(s genericiooptions.IOStreams) *cobra.Command {
	o := &TestOptions{Output: "text", IOStreams: s}
	c := &cobra.Command{
		Use:   "test [PATH...]",
		Short: "Run CRD validation test suites against the API server's own code, offline",
		Long: `Run CRD test suites: cases that create, update or write the status of custom
resources and say what the API server answers (accepted or rejected, with
which fields, reasons and messages; what it stores, prunes or warns about).
Each request goes through the server's own decoding, pruning, defaulting,
strategies and validation (OpenAPI schema, CEL rules with oldSelf,
ratcheting, the status subresource's strategy), with no cluster and no
envtest.

Suites are files named *.crdtest.yaml (any file given by name), found in
the directories given, or the configuration's tests:, or the working
directory; openshift/api's tests/<crd>/*.yaml suites are read as they are.
docs/testing-crds.md describes the format.

A suite or a case names the Kubernetes minors it must hold on
(kubernetesVersions); --kubernetes-version gives those of the others. Each
minor is judged by its own engine, which runs that minor's share of the
cases, as check --kubernetes-version does.

Exit code 0: every case passed; 1: a case failed; 2: usage error, or a
suite that cannot be read.`,
		Example: `  # Run the suites of the repository
  kubectl crdlint test

  # Run one suite against the CRDs of a directory
  kubectl crdlint test --crd config/crd/bases tests/widgets.crdtest.yaml

  # Record what the server answers as the suite's expectations
  kubectl crdlint test --update tests/widgets.crdtest.yaml

  # Run the suites that name no minors on every supported minor
  kubectl crdlint test --kubernetes-version 1.33-1.37`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Complete(c, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(c.Context())
		},
	}
	f := c.Flags()
	f.StringArrayVar(&o.CRDs, "crd", nil, "A file, directory or https:// URL of CRDs every suite runs against, with the suite's own crds: (repeatable)")
	f.StringVar(&o.ConfigFile, "config", "", "The configuration file (default: .crdlint.yaml in the working directory or the nearest parent, up to the repository's root)")
	f.BoolVar(&o.NoConfig, "no-config", false, "Ignore any configuration file")
	f.StringVar(&o.CacheDir, "cache-dir", "", "Where CRDs fetched from URLs are kept (default: $XDG_CACHE_HOME/kubectl-crdlint)")
	f.BoolVar(&o.Offline, "offline", false, "Never fetch a CRD URL: use the cache, and fail for what is not in it")
	f.StringVarP(&o.Output, "output", "o", o.Output, "Output format: "+strings.Join(testFormats, ", "))
	f.BoolVar(&o.Update, "update", false, "Write what the server answers into the suites as their expectations (crdlint's format), keeping comments and order")
	f.StringVar(&o.RunCases, "run", "", "Run only the cases whose name matches this regular expression")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "List passing cases too (text output)")
	o.sourceOptions.Minor.addFlags(f)
	return c
}

// Complete loads the configuration and takes the paths.
func (o *TestOptions) Complete(c *cobra.Command, args []string) error {
	o.flags = c.Flags()
	// Minors other than this binary's are not handed to their engines
	// whole, as other commands' are: the runner sends each engine its
	// share of the cases (crdtest.RunMinors).
	var d *delegated
	if err := o.sourceOptions.complete(o.flags); errors.As(err, &d) {
		o.minors = d.minors
	} else if err != nil {
		return err
	} else {
		o.minors = o.settings.KubernetesVersions
	}
	if err := o.configErrors(); err != nil {
		return err
	}
	o.paths = args
	if len(o.paths) == 0 && o.settings != nil {
		o.paths = o.settings.Tests
	}
	if len(o.paths) == 0 {
		o.paths = []string{"."}
	}
	return nil
}

// Validate checks the flags, without I/O.
func (o *TestOptions) Validate() error {
	ok := false
	for _, f := range testFormats {
		ok = ok || f == o.Output
	}
	if !ok {
		return usageErrorf("--output must be one of %s, not %q", strings.Join(testFormats, ", "), o.Output)
	}
	if o.RunCases != "" {
		re, err := regexp.Compile(o.RunCases)
		if err != nil {
			return usageErrorf("--run: %v", err)
		}
		o.run = re
	}
	return nil
}

// Run reads every suite, runs them, prints and, with --update, records.
func (o *TestOptions) Run(ctx context.Context) error {
	if o.Minor.EngineProtocol > 0 {
		return o.serve(ctx)
	}
	start := time.Now()
	files, err := crdtest.Discover(o.paths)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if len(files) == 0 {
		return usageErrorf("no CRD test suites in %s (suites are named *%s)", strings.Join(o.paths, ", "), crdtest.Suffix)
	}
	// A suite that cannot be read is reported at its position and the
	// others still run; the run then exits 2, as go test does with a
	// package that does not build.
	var suites []*crdtest.Suite
	var unreadable, warnings []*crdtest.Error
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			unreadable = append(unreadable, &crdtest.Error{File: f, Msg: fmt.Sprintf("read: %v", fsutil.UnwrapPath(err))})
			continue
		}
		s, err := crdtest.Read(f, data)
		if err != nil {
			var re *crdtest.Error
			if !errors.As(err, &re) {
				re = &crdtest.Error{File: f, Msg: err.Error()}
			}
			unreadable = append(unreadable, re)
			continue
		}
		warnings = append(warnings, s.Warnings...)
		suites = append(suites, s)
	}
	for _, w := range warnings {
		fmt.Fprintf(o.ErrOut, "warning: %s\n", w)
	}
	servers := map[string]*crdtest.Server{}
	cases := 0
	run := make([]*crdtest.Suite, len(suites))
	srvs := make([]*crdtest.Server, len(suites))
	for i, s := range suites {
		srv, err := o.server(ctx, s, servers)
		if err != nil {
			return err
		}
		if o.run != nil {
			s = s.Filter(o.run.MatchString)
		}
		run[i], srvs[i] = s, srv
		cases += len(s.Cases)
	}
	// A run that judges nothing must not pass, as check with no input
	// does not (an unreadable suite fails the run anyway).
	if cases == 0 && len(unreadable) == 0 {
		in := suites[0].File
		if len(suites) > 1 {
			in = plural(len(suites), "suite", "suites")
		}
		if o.run != nil {
			return usageErrorf("no case matches --run %q in %s", o.RunCases, in)
		}
		return usageErrorf("no cases to run in %s", in)
	}
	engines := map[string]string{}
	for _, m := range crdtest.Needed(run, o.minors) {
		bin, err := engineFor(m, o.CacheDir, o.ErrOut)
		if err != nil {
			return usageErrorf("%v", err)
		}
		engines[m] = bin
	}
	results, err := crdtest.RunMinors(run, srvs, o.minors, func(req crdtest.EngineRequest) (crdtest.EngineResponse, error) {
		return o.remote(engines[req.Minor], req)
	})
	if err != nil {
		return usageErrorf("%v", err)
	}
	// --update records crdlint's format only: openshift/api's
	// expectations are strings in its generator's terms (a substring of
	// the error, an expected object), which it reads as they are. Its
	// failing cases, and cases that could not run, stay failures.
	unrecorded := 0
	if o.Update {
		format := map[string]crdtest.Format{}
		for _, s := range suites {
			format[s.File] = s.Format
			if err := crdtest.Record(s, results); err != nil {
				return err
			}
		}
		skipped := map[string]int{}
		for _, r := range results {
			switch {
			case r.Passed:
			case format[r.File] != crdtest.Crdlint:
				skipped[r.File]++
				unrecorded++
			case r.Actual == nil:
				unrecorded++
			}
		}
		for _, s := range suites {
			if n := skipped[s.File]; n > 0 {
				fmt.Fprintf(o.ErrOut, "warning: %s: --update writes crdlint's suite format only; %s of openshift/api's format left as written\n", s.File, plural(n, "failing case", "failing cases"))
			}
		}
		// One expectation cannot hold where the minors disagree.
		for _, r := range crdtest.Split(results) {
			if format[r.File] == crdtest.Crdlint {
				fmt.Fprintf(o.ErrOut, "warning: %s:%d: %q: the Kubernetes minors answer differently; --update left it as written (split it by kubernetesVersions)\n", r.File, r.Line, r.Case)
				unrecorded++
			}
		}
	}
	sum := crdtest.Summarize(len(suites), results, time.Since(start))
	sum.Unreadable, sum.Warnings = unreadable, warnings
	if err := o.render(o.Out, results, sum); err != nil {
		return err
	}
	if len(unreadable) > 0 {
		msgs := make([]string, len(unreadable))
		for i, e := range unreadable {
			msgs[i] = e.Error()
		}
		return usageErrorf("%s", strings.Join(msgs, "\nerror: "))
	}
	if sum.Failed > 0 && (!o.Update || unrecorded > 0) {
		return errFindings
	}
	return nil
}

func (o *TestOptions) render(w io.Writer, rs []*crdtest.Result, sum crdtest.Summary) error {
	switch o.Output {
	case "json":
		return crdtest.RenderJSON(w, rs, sum)
	case "junit":
		return crdtest.RenderJUnit(w, rs, sum)
	case "github":
		return crdtest.RenderGitHub(w, rs, sum)
	}
	if !o.Verbose {
		rs = failed(rs)
	}
	return crdtest.RenderText(w, rs, sum)
}

func failed(rs []*crdtest.Result) []*crdtest.Result {
	var out []*crdtest.Result
	for _, r := range rs {
		if !r.Passed {
			out = append(out, r)
		}
	}
	return out
}

// server is the server of a suite's CRDs: --crd's and the
// configuration's, then the suite's own (or, for openshift/api's suites
// that name none, where that project keeps them); servers of the same
// sources are shared between suites.
func (o *TestOptions) server(ctx context.Context, s *crdtest.Suite, cache map[string]*crdtest.Server) (*crdtest.Server, error) {
	own := s.CRDs
	if len(own) == 0 && len(o.settings.CRDs) == 0 {
		own = crdtest.DefaultCRDs(s)
	}
	srcs := append([]config.CRDSource(nil), o.settings.CRDs...)
	for _, c := range own {
		cs := config.CRDSource{Path: c, From: s.File}
		if remote.IsURL(c) {
			u, err := remote.ParseSource(c)
			if err != nil {
				return nil, usageErrorf("%s: crds: %s: %v", s.File, c, err)
			}
			cs = config.CRDSource{URL: &u, From: s.File}
		}
		srcs = append(srcs, cs)
	}
	if len(srcs) == 0 {
		return nil, usageErrorf("%s: the suite names no CRDs (crds:) and none are given (--crd, or crds: in .crdlint.yaml)", s.File)
	}
	var key strings.Builder
	for _, c := range srcs {
		key.WriteString(c.Path)
		if c.URL != nil {
			key.WriteString(c.URL.URL)
		}
		key.WriteByte(0)
	}
	if srv, ok := cache[key.String()]; ok {
		return srv, nil
	}
	files, err := crdsource.Load(ctx, o.crdSources(o.ErrOut, srcs)...)
	if err != nil {
		return nil, sourceError(err)
	}
	srv, err := crdtest.NewServer()
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		data, err := f.Read()
		if err != nil {
			return nil, inputError(err)
		}
		if err := srv.AddYAML(f.Name, data); err != nil {
			return nil, usageErrorf("%v", err)
		}
	}
	cache[key.String()] = srv
	return srv, nil
}

// remote runs req on bin, the engine of req's minor: its test command
// with the flags that choose the CRD sources and the configuration, the
// request on its stdin, the answer on its stdout.
func (o *TestOptions) remote(bin string, req crdtest.EngineRequest) (crdtest.EngineResponse, error) {
	var resp crdtest.EngineResponse
	in, err := json.Marshal(req)
	if err != nil {
		return resp, err
	}
	args := []string{"test", "--" + config.FlagKubernetesVersion + "=" + req.Minor, fmt.Sprintf("--%s=%d", flagEngineProtocol, crdtest.EngineProtocol)}
	for _, c := range o.CRDs {
		args = append(args, "--crd="+c)
	}
	switch {
	case o.NoConfig:
		args = append(args, "--no-config")
	case o.ConfigFile != "":
		args = append(args, "--config="+o.ConfigFile)
	}
	if o.CacheDir != "" {
		args = append(args, "--cache-dir="+o.CacheDir)
	}
	if o.Offline {
		args = append(args, "--offline")
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(cmd.Run()); code != ExitClean {
		// An engine that answered nothing failed: its one-line error.
		msg := strings.TrimPrefix(strings.TrimSpace(stderr.String()), "error: ")
		if msg == "" {
			msg = fmt.Sprintf("%s exited %d", bin, code)
		}
		return resp, errors.New(msg)
	}
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
		return resp, fmt.Errorf("%s answered what is not a result (%v): is it this version's engine?", bin, err)
	}
	return resp, nil
}

// serve is the run of an engine for another minor's run (crdtest.Serve):
// the request on stdin names the suites' files and cases, the CRDs come
// from the same sources, and the results go to stdout.
func (o *TestOptions) serve(ctx context.Context) error {
	var req crdtest.EngineRequest
	if err := json.NewDecoder(o.In).Decode(&req); err != nil {
		return usageErrorf("reading the engine request: %v", err)
	}
	servers := map[string]*crdtest.Server{}
	suites := make([]*crdtest.Suite, len(req.Suites))
	srvs := make([]*crdtest.Server, len(req.Suites))
	for i, es := range req.Suites {
		data, err := os.ReadFile(es.File)
		if err != nil {
			return usageErrorf("%s: %v", es.File, fsutil.UnwrapPath(err))
		}
		if suites[i], err = crdtest.Read(es.File, data); err != nil {
			return usageErrorf("%v", err)
		}
		if srvs[i], err = o.server(ctx, suites[i], servers); err != nil {
			return err
		}
	}
	resp, err := crdtest.Serve(req, suites, srvs)
	if err != nil {
		return usageErrorf("%v", err)
	}
	return json.NewEncoder(o.Out).Encode(resp)
}
