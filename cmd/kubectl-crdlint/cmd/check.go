package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	baselinepkg "github.com/kubectl-crdlint/kubectl-crdlint/pkg/baseline"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/helm"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/kustomize"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/suppress"
)

// CheckOptions lints files and directories.
type CheckOptions struct {
	Output    report.Format
	FailOn    severityFlag
	Strict    bool
	Disable   []string
	NoColor   bool
	ListRules bool
	CELCosts  bool
	// NoCache turns the verdict cache off.
	NoCache bool
	// Baseline reports only findings not in this file; WriteBaseline
	// records today's findings in it.
	Baseline, WriteBaseline string
	// Kustomize are kustomization directories rendered in-process, as
	// kubectl apply -k renders them.
	Kustomize []string
	// MaxDocumentSize bounds one document of a file (0: 64 MiB).
	MaxDocumentSize int
	Cluster         clusterOptions
	sourceOptions

	paths []string
	flags *pflag.FlagSet
	genericiooptions.IOStreams
}

// NewCmdCheck builds "check".
func NewCmdCheck(s genericiooptions.IOStreams) *cobra.Command {
	o := &CheckOptions{Output: report.Text, FailOn: severityFlag(report.Error), Cluster: newClusterOptions(), IOStreams: s}
	c := &cobra.Command{
		Use:   "check [PATH|-]... | check --live RESOURCE[/NAME]...",
		Short: "Tell whether the API server would accept each CRD and custom resource, and why not",
		Long: `Check CustomResourceDefinitions and custom resources in files, directories
(recursively: .yaml, .yml, .json; hidden directories skipped) or stdin (-),
exactly as the API server validates a create, and report every problem at
its file:line:column. Custom resources are validated against the CRDs among
the inputs and those given with --crd.

With --live the arguments are kubectl resource references read from the
cluster (crds, crd/NAME, widgets.example.com, widgets.example.com/NAME, short
and singular names; -n or -A), judged as creates of the objects as stored,
against the cluster's CRD of their kind unless --crd gives a (new) revision.
Lines and columns then refer to the object as 'kubectl get -o yaml' prints it,
named cluster/NAMESPACE/RESOURCE/NAME. With --crd-from-cluster, local custom
resources are validated against the cluster's CRDs too. The kubectl
connection flags (--kubeconfig, --context, ...) and KUBECONFIG apply; nothing
touches the network without --live or --crd-from-cluster.

Documents that are not Kubernetes objects and kinds built into the server are
skipped and counted. Exit code 0: clean; 1: findings at or above --fail-on;
2: usage or input error.`,
		Example: `  # Lint every CRD of a repository
  kubectl crdlint check config/crd/

  # Validate custom resources against CRDs kept elsewhere
  kubectl crdlint check --crd config/crd/ config/samples/

  # Lint rendered manifests, failing on warnings too
  helm template ./chart | kubectl crdlint check --fail-on warning -

  # Annotate a pull request from GitHub Actions
  kubectl crdlint check -o github deploy/

  # Lint the CRDs installed in the current cluster
  kubectl crdlint check --live crds

  # Validate local custom resources against the cluster's CRDs
  kubectl crdlint check --crd-from-cluster config/samples/

  # Which stored widgets would a new revision of their CRD reject?
  kubectl crdlint check --live widgets.example.com -A --crd new-crd.yaml`,
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
	f.VarP(&o.Output, "output", "o", "Output format: "+strings.Join(report.FormatNames(), ", "))
	f.Var(&o.FailOn, "fail-on", "Exit 1 when a finding is at or above this severity: error, warning or none")
	f.BoolVar(&o.Strict, "strict", false, "Report unknown and duplicate fields as errors, as the server does under fieldValidation=Strict (kubectl apply --validate=strict)")
	f.StringArrayVar(&o.Disable, "disable", nil, "Silence a rule by ID (repeatable); see --list-rules")
	f.BoolVar(&o.NoColor, "no-color", false, "Never colour the output (NO_COLOR is honoured too)")
	o.sourceOptions.addFlags(f, "A file, directory or https:// URL of CRDs to validate custom resources against, in addition to the CRDs among the inputs and the configuration's crds: (repeatable)")
	f.BoolVar(&o.NoCache, "no-cache", false, "Neither read nor write the verdict cache (findings of unchanged files whose CRDs did not change, kept in --cache-dir's verdicts directory)")
	f.StringVar(&o.Baseline, "baseline", "", "Report only findings not recorded in this baseline file (see --write-baseline)")
	f.StringVar(&o.WriteBaseline, "write-baseline", "", "Record today's findings in this baseline file, to report only new ones later with --baseline")
	f.IntVar(&o.MaxDocumentSize, "max-document-size", 0, "The largest document read, in bytes (default 64 MiB); a larger one is a finding, and a file may hold any number of documents")
	f.StringArrayVarP(&o.Kustomize, "kustomize", "k", nil, "Render this kustomization directory as kubectl apply -k does and check the result; findings point into the files the objects came from (repeatable)")
	f.BoolVar(&o.ListRules, "list-rules", false, "List every rule with its ID, default severity and description, then exit")
	f.BoolVar(&o.CELCosts, "cel-costs", false, "Print the server's estimated cost of every CEL expression and its share of both budgets, then exit")
	o.Cluster.addFlags(f, "Read the arguments from the cluster: resource references such as crds, crd/NAME, widgets.example.com or widgets.example.com/NAME (with -n or -A)", true)
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(report.FormatNames(), cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"error", "warning", "none"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("disable", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		ids := make([]string, 0, len(lint.Rules))
		for _, r := range lint.Rules {
			ids = append(ids, r.ID+"\t"+r.Doc)
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

// Complete takes the positional arguments and resolves the flags over
// the configuration file.
func (o *CheckOptions) Complete(c *cobra.Command, args []string) error {
	o.paths = args
	o.flags = c.Flags()
	if o.ListRules {
		return nil
	}
	return o.sourceOptions.complete(o.flags)
}

// Validate rejects bad combinations, without I/O.
func (o *CheckOptions) Validate() error {
	if o.ListRules {
		return nil
	}
	if err := o.Cluster.validate(o.flags); err != nil {
		return err
	}
	if o.Cluster.Live {
		if len(o.paths) == 0 {
			return usageErrorf("--live needs resource references: e.g. crds, crd/NAME or widgets.example.com\nSee 'kubectl crdlint check --help' for usage.")
		}
		if o.CELCosts {
			return usageErrorf("--cel-costs reads CRD files; it cannot be combined with --live")
		}
	} else if len(o.paths) == 0 && len(o.Kustomize) == 0 {
		return usageErrorf("no input: give files, directories, - for stdin, or -k DIR\nSee 'kubectl crdlint check --help' for usage.")
	}
	if err := stdinOnce(o.paths); err != nil {
		return err
	}
	if _, err := parseRules(o.Disable, catalogue); err != nil {
		return err
	}
	if o.Baseline != "" && o.WriteBaseline != "" {
		return usageErrorf("--baseline and --write-baseline cannot be used together")
	}
	if o.CELCosts && o.Output != report.Text && o.Output != report.JSON {
		return usageErrorf("--cel-costs prints text or json, not %s", o.Output)
	}
	return nil
}

// Run lints and reports.
func (o *CheckOptions) Run(ctx context.Context) error {
	if o.ListRules {
		return o.listRules()
	}
	if o.CELCosts {
		return o.celCosts()
	}
	set := o.resolved(o.Strict, report.Severity(o.FailOn), o.Disable)
	run, err := o.Cluster.open(ctx, o.Cluster.local(o.paths), &o.sourceOptions, o.IOStreams, set.Strict)
	if err != nil {
		return err
	}
	rendered, err := o.render(run.Inputs)
	if err != nil {
		return err
	}
	l := lint.New(lint.Options{Strict: set.Strict, Disabled: set.Off(), Catalog: run.Catalog, MissingCRDs: o.missing()})
	run.MaxDocumentSize = o.MaxDocumentSize
	cache := o.verdictCache()
	defer cache.Trim()
	if cache != nil {
		run.Verdicts, run.Indexes = crdAnswers{cache}, crdAnswers{cache}
	}
	cacheOpts := lintOptionsKey(set.Strict, set.Off())
	var crCache *crFiles
	// A cluster's CRDs have no JSON to name them by, and what they are
	// is the cluster's to change: such runs judge every file.
	if cache != nil && !o.Cluster.Live && !o.Cluster.CRDFromCluster {
		crCache = &crFiles{cache: cache, cat: run.Catalog, opts: crOptionsKey(cacheOpts, o.missing(), o.MaxDocumentSize)}
	}
	res := report.Result{Rules: catalogue, Findings: o.configFindings}
	results := make([]fileResult, len(run.Inputs.Files))
	prog := newProgress(o.ErrOut, o.Output == report.Text, len(run.Inputs.Files))
	v := input.Visitor{
		CRDs: func(i int, data []byte, found []crd.Found) {
			r := &results[i]
			if data != nil {
				r.set = scan(run.Inputs.Name(run.Inputs.Files[i]), data)
			}
			r.crds += len(found)
			r.findings = append(r.findings, crdFindings(l, cache, cacheOpts, run.Inputs.Name(run.Inputs.Files[i]), data, found)...)
		},
		File: func(i int, data []byte, f *source.File) error {
			defer prog.file(f.Count)
			fs, sum := l.File(f)
			r := &results[i]
			if data != nil {
				r.set = scan(f.Path, data)
			}
			r.findings, r.sum = o.review(f.Path, r.set, append(r.findings, fs...)), sum
			if k := rendered[f.Path]; k != nil {
				r.findings = mapKustomize(k, r.findings)
			} else if data != nil && bytes.Contains(data, []byte("# Source: ")) {
				r.findings = mapHelm(helm.Parse(data), r.findings)
			}
			return nil
		},
		// A file a document at a time: its CRDs' findings (from the
		// collect pass) wait for their document's suppressions.
		Begin: func(i int) {
			r := &results[i]
			r.pending = map[int][]report.Finding{}
			for _, fd := range r.findings {
				r.pending[fd.Document] = append(r.pending[fd.Document], fd)
			}
			r.findings = nil
		},
		// Each document is judged counted from 0 (the base of its
		// stream index is known in order, in Take): its suppressions
		// come with it, for the CRD findings that wait for it.
		Doc: func(i int, f *source.File) (any, error) {
			fs, sum := l.File(f)
			d := docResult{sum: sum, count: f.Count}
			if crCache != nil {
				// Review changes findings in place.
				d.raw, d.text, d.line, d.kinds = slices.Clone(fs), f.Text(0), f.Line, kindsOf(f)
			}
			d.findings, d.set = o.reviewDoc(f.Path, f.Text(0), f.Line, fs)
			return d, nil
		},
		Take: func(i, base int, v any) {
			d := v.(docResult)
			r := &results[i]
			if r.cr != nil {
				r.cr.add(d)
			}
			fs := rebase(d.findings, base)
			if k := rendered[run.Inputs.Name(run.Inputs.Files[i])]; k != nil {
				fs = mapKustomize(k, fs) // by the rendered document's index
			}
			r.findings = append(r.findings, fs...)
			r.sum.Add(d.sum)
			for n := base; n < base+d.count; n++ {
				if fs := r.pending[n]; fs != nil {
					fs = o.review(fs[0].File, d.set, rebase(fs, -base))
					r.findings = append(r.findings, rebase(fs, base)...)
					delete(r.pending, n)
				}
			}
			prog.docs(d.count)
		},
		Done: func(i int) error {
			defer prog.file(0)
			r := &results[i]
			for _, fs := range r.pending {
				r.findings = append(r.findings, o.review(run.Inputs.Name(run.Inputs.Files[i]), nil, fs)...)
			}
			r.pending = nil
			if r.cr != nil {
				crCache.put(r.cr)
				r.cr = nil
			}
			return nil
		},
		Skipped: func(i int, reason string) {
			results[i].sum.Skip(reason)
			prog.file(0)
		},
	}
	if crCache != nil {
		v.Replay = func(i int, data []byte) ([]input.Replayed, bool) {
			name := run.Inputs.Name(run.Inputs.Files[i])
			key := crCache.key(name, data)
			rec, ok := crCache.get(key, data)
			if !ok {
				results[i].cr = &crPending{key: key, data: data, kinds: map[schema.GroupKind]bool{}}
				return nil, false
			}
			out := make([]input.Replayed, len(rec.Docs))
			for k := range rec.Docs {
				d := &rec.Docs[k]
				text := d.text(data)
				fs, set := o.reviewDoc(name, text, d.Line, d.Findings)
				out[k] = input.Replayed{Result: docResult{findings: fs, sum: d.sum(), set: set, count: d.Count}, Count: d.Count}
			}
			return out, true
		}
	}
	err = run.Visit(ctx, v)
	prog.stop()
	if err != nil {
		return inputError(err)
	}
	for i := range results {
		results[i].addTo(&res, &res.Summary.Files)
	}
	for _, f := range lint.Duplicates(run.Catalog) {
		res.Findings = append(res.Findings, o.review(f.File, nil, []report.Finding{f})...)
	}
	if o.Cluster.Live {
		if err := o.lintLive(ctx, run.Catalog, l, &res); err != nil {
			return err
		}
	}
	if err := o.baseline(&res, run.Inputs); err != nil {
		return err
	}
	failOn := severityFlag(set.FailOn)
	return render(o.IOStreams, res, o.Output, failOn, o.NoColor)
}

// lintLive judges the objects the references name, a page at a time:
// only one page and the findings are held, however many objects there are.
func (o *CheckOptions) lintLive(ctx context.Context, cat *crd.Catalog, l *lint.Linter, res *report.Result) error {
	c, err := o.Cluster.connect()
	if err != nil {
		return err
	}
	res.Summary.Live = true
	n, err := c.VisitFiles(ctx, o.paths, cat, func(files []*source.File, _ [][]byte) error {
		results := make([]fileResult, len(files))
		input.Parallel(ctx, len(files), func(i int) error {
			fs, sum := l.File(files[i])
			results[i] = fileResult{findings: o.review(files[i].Path, nil, fs), sum: sum}
			return nil
		})
		for i := range results {
			results[i].addTo(res, &res.Summary.Objects)
		}
		return ctx.Err()
	})
	if err == nil && n == 0 {
		noResources(o.ErrOut, c, o.Cluster.Flags.AllNamespaces)
	}
	return clusterError(err)
}

// fileResult is what one input gave: its findings, what was judged, and
// its inline suppressions (read while its text was at hand).
type fileResult struct {
	findings []report.Finding
	sum      report.Summary
	set      *suppress.Set
	crds     int
	// pending are a streamed file's CRD findings waiting for their
	// document, by document index.
	pending map[int][]report.Finding
	// cr is the cache record of a file being judged, stored when it is
	// done.
	cr *crPending
}

// docResult is what one document of a streamed file gave, counted from
// document 0; with the file cache on, also what the cache keeps of it
// (crDoc): the findings before review, the document's text and line, and
// the kinds it names.
type docResult struct {
	findings []report.Finding
	sum      report.Summary
	set      *suppress.Set
	count    int

	raw   []report.Finding
	text  []byte
	line  int
	kinds []schema.GroupKind
}

// reviewDoc is the run's reading of a document's findings (fs, counted
// from the document), judged or replayed from the cache: the inline
// suppressions of its text (which starts at the file's line line; nil:
// none to read), the configuration's severities, and the Helm template
// each object came from.
func (o *CheckOptions) reviewDoc(path string, text []byte, line int, fs []report.Finding) ([]report.Finding, *suppress.Set) {
	var set *suppress.Set
	if text != nil {
		set = suppress.ScanAt(path, text, line, 0, catalogue)
	}
	fs = o.review(path, set, fs)
	if text != nil && bytes.Contains(text, []byte("# Source: ")) {
		fs = mapHelm(helm.Parse(text), fs)
	}
	return fs, set
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

func (o *CheckOptions) listRules() error {
	return report.RenderRules(o.Out, catalogue, o.Output)
}

// baseline applies --baseline (findings it records are suppressed, and
// its entries no finding matches any more are counted as fixed) or
// writes --write-baseline; the findings just written are then accepted
// as --baseline would accept them, so that the run that records them
// passes.
func (o *CheckOptions) baseline(res *report.Result, in *input.Set) error {
	var live, done []report.Finding
	for _, f := range res.Findings {
		if f.Suppressed == nil {
			live = append(live, f)
		} else {
			done = append(done, f)
		}
	}
	var b *baselinepkg.Baseline
	if o.WriteBaseline != "" {
		var err error
		if b, err = writeBaseline(o.WriteBaseline, in.Files, live); err != nil {
			return &UsageError{err}
		}
		fmt.Fprintf(o.ErrOut, "wrote %s: %s\n", o.WriteBaseline, plural(len(live), "finding", "findings"))
	} else {
		path := o.settings.Baseline
		if path == "" {
			path = o.Baseline
		}
		if path == "" {
			return nil
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			// Named before the first --write-baseline: nothing is
			// baselined yet, which every finding being new says.
			fmt.Fprintf(o.ErrOut, "warning: baseline %s does not exist yet: every finding is new (record them with --write-baseline %s)\n", path, path)
			return nil
		}
		var err error
		if b, err = baselinepkg.Read(path); err != nil {
			return inputError(err)
		}
	}
	fresh, baselined, stale := b.Only(in.Files).Match(live)
	for _, f := range baselined {
		done = append(done, f.Marked())
	}
	res.Findings = append(done, fresh...)
	res.Summary.StaleBaseline = len(stale)
	if o.Output == report.Text {
		// Text readers are told which; scripts read the count.
		for _, e := range stale {
			fmt.Fprintf(o.ErrOut, "baseline entry fixed: %s\n", e)
		}
	}
	return nil
}

// render renders each -k directory in-process and adds its output to the
// inputs, named as `kustomize build DIR`.
func (o *CheckOptions) render(in *input.Set) (map[string]*kustomize.Rendered, error) {
	out := map[string]*kustomize.Rendered{}
	for _, dir := range o.Kustomize {
		r, err := kustomize.Render(dir)
		if err != nil {
			return nil, inputError(err)
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
