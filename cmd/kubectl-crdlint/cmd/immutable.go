package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/version"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/cluster"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/immutable"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// ImmutableOptions judges the update from one revision to another.
type ImmutableOptions struct {
	CRDs    []string
	ToCEL   bool
	Output  report.Format
	FailOn  severityFlag
	NoColor bool
	Cluster clusterOptions

	oldPath, newPath string
	// defaultNS is the namespace of NEW's objects that name none: kubectl
	// apply's context namespace with --live, else "default".
	defaultNS string
	genericiooptions.IOStreams
}

// NewCmdImmutable builds "immutable".
func NewCmdImmutable(s genericiooptions.IOStreams) *cobra.Command {
	o := &ImmutableOptions{Output: report.Text, FailOn: severityFlag(report.Error), Cluster: newClusterOptions(), defaultNS: lint.DefaultNamespace, IOStreams: s}
	c := &cobra.Command{
		Use:   "immutable [--crd PATH]... OLD NEW | immutable --live NEW | immutable --to-cel CRD...",
		Short: "Tell whether the update from revision OLD to revision NEW would be refused",
		Long: `Pair the custom resources of OLD and NEW (files or directories) by apiVersion,
kind, namespace and name, and judge each update as the API server would: both
revisions as stored (pruned and defaulted), CEL transition rules (oldSelf) with
the server's library and budget, ratcheting, and every other update check.
Objects only in OLD or only in NEW are reported. Findings point into NEW.

With --live, give only NEW: OLD is each object's live counterpart in the
cluster (same kind, namespace and name; NEW's objects without a namespace are
in -n's or the context's, as kubectl would put them), and the update replaces
it with NEW as written (a PUT, as kubectl replace; fields NEW leaves out are
removed), judged under the cluster's CRD of its kind unless --crd or NEW gives
one. A live object of a version the cluster does not serve yet is read in a
served one and converted as the CRD's None strategy does. Objects not in the
cluster are reported as creates.

With --to-cel, print the given CRDs with every x-kubernetes-mutability and
x-kubernetes-key-mutability marker replaced by equivalent CEL transition rules,
which real API servers enforce; a marker CEL cannot express exactly (or only
over the cost budget, naming the maxItems/maxLength that would fix it) is an
error, never a weaker rule.

Exit code 0: every update would be accepted; 1: findings at or above --fail-on
(or a marker --to-cel cannot translate); 2: usage or input error.`,
		Example: `  # Would applying the new revision be refused?
  kubectl crdlint immutable --crd config/crd/ old/widget.yaml new/widget.yaml

  # Would replacing what the cluster stores with these objects be refused?
  kubectl crdlint immutable --live config/samples/

  # Make a real cluster enforce the markers
  kubectl crdlint immutable --to-cel config/crd/widget.yaml > widget-cel.yaml`,
		RunE: func(c *cobra.Command, args []string) error {
			if o.ToCEL {
				if len(args) == 0 {
					return usageErrorf("--to-cel needs CRD files or directories")
				}
				return o.runToCEL(args)
			}
			if err := o.Cluster.validate(c.Flags()); err != nil {
				return err
			}
			if o.Cluster.Live {
				if len(args) != 1 {
					return usageErrorf("accepts 1 arg(s) with --live, received %d: give NEW; OLD is read from the cluster", len(args))
				}
				o.newPath = args[0]
				return o.Run(c.Context())
			}
			if len(args) != 2 {
				return usageErrorf("accepts 2 arg(s), received %d: give OLD and NEW", len(args))
			}
			o.oldPath, o.newPath = args[0], args[1]
			return o.Run(c.Context())
		},
	}
	f := c.Flags()
	f.StringArrayVar(&o.CRDs, "crd", nil, "A file or directory of CRDs (repeatable); CRDs among OLD and NEW count too, NEW's last")
	f.BoolVar(&o.ToCEL, "to-cel", false, "Print the CRDs with their markers replaced by CEL transition rules that real servers enforce")
	f.VarP(&o.Output, "output", "o", "Output format: text, json, sarif or github")
	f.Var(&o.FailOn, "fail-on", "Exit 1 when a finding is at or above this severity: error, warning or none")
	f.BoolVar(&o.NoColor, "no-color", false, "Never colour the output (NO_COLOR is honoured too)")
	o.Cluster.addFlags(f, "Read OLD from the cluster: give only NEW, each object's live counterpart is its old revision", true)
	return c
}

// pairKey identifies an object across revisions.
type pairKey struct{ apiVersion, kind, namespace, name string }

type revision struct {
	docs  map[pairKey]*source.Document
	order []pairKey
	files int
	count int
}

func (o *ImmutableOptions) readRevision(p string) (*revision, error) {
	in, err := newInputs([]string{p}, o.In)
	if err != nil {
		return nil, err
	}
	r := &revision{docs: map[pairKey]*source.Document{}}
	for _, f := range in.files {
		file, err := in.read(f)
		if err != nil {
			return nil, err
		}
		r.files++
		r.count += file.Count
		for _, d := range file.Documents {
			if lint.IsCRD(d) || lint.IsBuiltin(d) {
				continue
			}
			k := pairKey{d.Object.APIVersion, d.Object.Kind, d.Object.Namespace, d.Object.Name}
			if _, dup := r.docs[k]; !dup {
				r.order = append(r.order, k)
			}
			r.docs[k] = d
		}
	}
	return r, nil
}

// Run pairs and judges.
func (o *ImmutableOptions) Run(ctx context.Context) error {
	cat := crd.NewCatalog()
	paths := []string{o.oldPath, o.newPath}
	if o.Cluster.Live {
		paths = paths[1:]
	}
	in, err := newInputs(paths, o.In)
	if err != nil {
		return err
	}
	l := lint.New(lint.Options{})
	if err := o.Cluster.catalog(ctx, cat, in, o.CRDs, l); err != nil {
		return err
	}
	newRev, err := o.readRevision(o.newPath)
	if err != nil {
		return err
	}
	var oldRev *revision
	if o.Cluster.Live {
		oldRev, err = o.liveRevision(ctx, cat, l, newRev)
	} else {
		oldRev, err = o.readRevision(o.oldPath)
	}
	if err != nil {
		return err
	}
	res := report.Result{Rules: lint.Rules}
	res.Summary.Files = oldRev.files + newRev.files
	res.Summary.Documents = oldRev.count + newRev.count
	if o.Cluster.Live {
		res.Summary.Files, res.Summary.Objects, res.Summary.Live = newRev.files, oldRev.files, true
	}
	for _, k := range newRev.order {
		nd := newRev.docs[k]
		od, ok := oldRev.docs[k]
		if !ok {
			res.Findings = append(res.Findings, at(nd, "", lint.RuleUpdateUnpaired, report.Warning,
				fmt.Sprintf("%s %s is only in the new revision: a create, not an update", k.kind, objName(k))))
			continue
		}
		res.Findings = append(res.Findings, judgeUpdate(cat, od, nd, o.defaultNS)...)
	}
	for _, k := range oldRev.order {
		if _, ok := newRev.docs[k]; !ok {
			od := oldRev.docs[k]
			res.Findings = append(res.Findings, at(od, "", lint.RuleUpdateUnpaired, report.Warning,
				fmt.Sprintf("%s %s is only in the old revision: the new revision does not update it", k.kind, objName(k))))
		}
	}
	res.Count()
	ro := report.Options{Color: useColor(o.Out, o.NoColor), ToolVersion: version.Get().Version, SummaryLine: true}
	if err := report.Render(o.Out, o.Output, res, ro); err != nil {
		return err
	}
	if res.Fails(report.Severity(o.FailOn)) {
		return errFindings
	}
	return nil
}

// liveRevision reads the old revision of NEW's objects from the cluster:
// each object's live counterpart, keyed as in NEW so that they pair.
func (o *ImmutableOptions) liveRevision(ctx context.Context, cat *crd.Catalog, l *lint.Linter, newRev *revision) (*revision, error) {
	c, err := o.Cluster.connect()
	if err != nil {
		return nil, err
	}
	o.defaultNS = c.Namespace()
	fetch := newCRDFetcher(c, cat, l)
	r := &revision{docs: map[pairKey]*source.Document{}}
	for _, k := range newRev.order {
		nd := newRev.docs[k]
		if err := fetch.ensureDocs(ctx, []*source.Document{nd}); err != nil {
			return nil, err
		}
		g, v := nd.GroupVersion()
		gvk := schema.GroupVersionKind{Group: g, Version: v, Kind: nd.Object.Kind}
		u, err := c.Get(ctx, gvk, k.namespace, k.name)
		var vns *cluster.VersionNotServedError
		if errors.As(err, &vns) {
			// NEW is in a version the cluster does not serve yet: read the
			// stored object in one it does, and convert as the judging CRD
			// would.
			u, err = o.convertedLive(ctx, c, cat, gvk, vns.Served, k)
		}
		if err != nil {
			return nil, clusterError(err)
		}
		if u == nil {
			continue // a create: reported when pairing
		}
		f, _, err := liveFile(c, u)
		if err != nil {
			return nil, err
		}
		if len(f.Documents) != 1 {
			return nil, fmt.Errorf("%s: the live object does not read back as one document", f.Path)
		}
		r.files++
		r.count += f.Count
		r.docs[k] = f.Documents[0]
		r.order = append(r.order, k)
	}
	return r, nil
}

// convertedLive reads an object in a served version and converts it to
// gvk's version the way the server would under the judging CRD: with the
// None strategy only apiVersion changes; a webhook cannot be called
// offline, so that is an error rather than a guess.
func (o *ImmutableOptions) convertedLive(ctx context.Context, c *cluster.Client, cat *crd.Catalog, gvk schema.GroupVersionKind, served string, k pairKey) (*unstructured.Unstructured, error) {
	e := cat.Entry(gvk.GroupKind())
	if e == nil {
		return nil, fmt.Errorf("cannot read %s %s as %s: the cluster serves it in %s only and no CRD given converts to %s", gvk.Kind, objName(k), gvk.GroupVersion(), served, gvk.Version)
	}
	if conv := e.CRD.Spec.Conversion; conv != nil && conv.Strategy != apiextensionsv1.NoneConverter {
		return nil, &UsageError{fmt.Errorf("cannot read %s %s as %s: the cluster serves it in %s only and the CRD converts with a %s webhook, which crdlint cannot call", gvk.Kind, objName(k), gvk.GroupVersion(), served, conv.Strategy)}
	}
	u, err := c.Get(ctx, gvk.GroupKind().WithVersion(served), k.namespace, k.name)
	if err != nil || u == nil {
		return u, err
	}
	u.SetAPIVersion(gvk.GroupVersion().String())
	return u, nil
}

func objName(k pairKey) string {
	if k.namespace != "" {
		return k.namespace + "/" + k.name
	}
	return k.name
}

// at positions a finding about field of d.
func at(d *source.Document, field, rule string, sev report.Severity, msg string) report.Finding {
	pos, _ := d.Locate(field)
	return report.Finding{Rule: rule, Severity: sev, Message: msg, Field: field, File: d.File,
		Document: d.Index, Line: pos.Line, Column: pos.Column, Object: d.Object}
}

// judgeUpdate is the server's verdict on updating od to nd.
func judgeUpdate(cat *crd.Catalog, od, nd *source.Document, defaultNS string) []report.Finding {
	g, ver := nd.GroupVersion()
	v, entry, st, err := cat.Lookup(schema.GroupVersionKind{Group: g, Version: ver, Kind: nd.Object.Kind})
	if st != crd.Found || err != nil {
		return []report.Finding{at(nd, "kind", lint.RuleCRNoCRD, report.Warning,
			fmt.Sprintf("no served CRD version for %s, Kind=%s: the update was not judged", nd.Object.APIVersion, nd.Object.Kind))}
	}
	var oldObj, newObj map[string]any
	if err := utiljson.Unmarshal(od.JSON, &oldObj); err != nil {
		return []report.Finding{at(od, "", lint.RuleCRDecode, report.Error, err.Error())}
	}
	if err := utiljson.Unmarshal(nd.JSON, &newObj); err != nil {
		return []report.Finding{at(nd, "", lint.RuleCRDecode, report.Error, err.Error())}
	}
	ns := nd.Object.Namespace
	if ns == "" {
		ns = defaultNS
	}
	vd := v.Update(oldObj, newObj, ns)
	if vd.Panic != "" {
		return []report.Finding{at(nd, "", lint.RuleCRServerPanic, report.Error, "Internal error occurred: "+vd.Panic)}
	}
	if vd.DecodeError != nil {
		return []report.Finding{at(nd, "", lint.RuleCRDecode, report.Error,
			fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", v.GVK.Kind, v.GVK.Version, v.GVK.Kind, vd.DecodeError))}
	}
	var out []report.Finding
	var celErrs map[string]bool
	if len(vd.Errors) > 0 {
		celErrs = v.CELErrors(vd.Object.Object, oldObj)
	}
	for _, e := range vd.Errors {
		rule := lint.RuleUpdateInvalid
		if celErrs[e.Error()] || strings.Contains(e.ErrorBody(), "some validation rules were not checked") {
			rule = lint.RuleUpdateCEL
		}
		out = append(out, at(nd, e.Field, rule, report.Error, e.ErrorBody()))
	}
	out = append(out, markerFindings(entry.Raw, v, od, nd, oldObj, newObj)...)
	return out
}

// markerFindings compares the stored revisions under the CRD's
// x-kubernetes-mutability markers, read from the CRD as written.
func markerFindings(raw []byte, v *crd.Version, od, nd *source.Document, oldObj, newObj map[string]any) []report.Finding {
	if len(raw) == 0 {
		return nil
	}
	s, err := immutable.FromCRD(raw, v.GVK.Version)
	if err != nil || s == nil {
		return nil
	}
	var out []report.Finding
	for _, vi := range immutable.Compare(s, oldObj, newObj) {
		d := nd
		if _, exact := nd.Locate(vi.Path); !exact {
			if _, inOld := od.Locate(vi.Path); inOld {
				d = od // a removed field: point at it in OLD
			}
		}
		msg := fmt.Sprintf("%s (%s: %s)", vi.Message, vi.Rule, vi.Value)
		out = append(out, at(d, vi.Path, lint.RuleUpdateImmutable, report.Error, msg))
	}
	return out
}

// runToCEL prints each CRD of the inputs translated; CRDs without markers
// print unchanged in meaning.
func (o *ImmutableOptions) runToCEL(paths []string) error {
	in, err := newInputs(paths, o.In)
	if err != nil {
		return err
	}
	failed, first := 0, true
	for _, p := range in.files {
		f, err := in.read(p)
		if err != nil {
			return err
		}
		for _, d := range f.Documents {
			if !lint.IsCRD(d) {
				continue
			}
			out, err := immutable.ToCEL(d.JSON)
			if err != nil {
				fmt.Fprintf(o.ErrOut, "%s:%d:%d: error: %v\n", d.File, d.Root.Line, d.Root.Column, err)
				failed++
				continue
			}
			y, err := sigsyaml.JSONToYAML(out)
			if err != nil {
				return err
			}
			if !first {
				fmt.Fprintln(o.Out, "---")
			}
			first = false
			o.Out.Write(y)
		}
	}
	if failed > 0 {
		return errFindings
	}
	return nil
}
