package compare

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Revisions reports what upgrading a CRD from old to new breaks or changes
// for clients and stored objects. Both are CRDs as the server stores them:
// decoded from apiextensions.k8s.io/v1 and defaulted (the comparison reads
// defaulted fields such as the conversion strategy and list types as the
// server sees them). Neither is modified.
//
// The result is sorted by version, old version, path, rule and message,
// and empty when old and new differ only in documentation (descriptions,
// titles, examples, external docs) or not at all. Nil CRDs compare as
// nothing.
func Revisions(old, new *apiextensionsv1.CustomResourceDefinition, opts Options) []Change {
	if old == nil || new == nil {
		return nil
	}
	c := &comparer{old: old, new: new, opts: opts}
	c.crd()
	c.versions()
	sortChanges(c.out)
	return c.out
}

func sortChanges(cs []Change) {
	slices.SortStableFunc(cs, func(a, b Change) int {
		return cmp.Or(
			cmp.Compare(a.Version, b.Version),
			cmp.Compare(a.OldVersion, b.OldVersion),
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message),
		)
	})
}

type comparer struct {
	old, new *apiextensionsv1.CustomResourceDefinition
	opts     Options
	out      []Change
}

var (
	specPath     = field.NewPath("spec")
	versionsPath = specPath.Child("versions")
)

// add appends a change with its rule's severity.
func (c *comparer) add(ch Change) {
	ch.Severity = severity[ch.Rule]
	c.out = append(c.out, ch)
}

// crd compares what is not per version: scope, names, conversion.
func (c *comparer) crd() {
	o, n := &c.old.Spec, &c.new.Spec
	if o.Scope != n.Scope {
		c.add(Change{Rule: RuleScopeChanged, Path: specPath.Child("scope").String(), Old: string(o.Scope), New: string(n.Scope),
			Message: fmt.Sprintf("scope changed from %s to %s: the server refuses the change once the CRD is established", js(o.Scope), js(n.Scope))})
	}
	names := specPath.Child("names")
	if o.Names.Kind != n.Names.Kind {
		c.add(Change{Rule: RuleKindChanged, Path: names.Child("kind").String(), Old: o.Names.Kind, New: n.Names.Kind,
			Message: fmt.Sprintf("kind changed from %s to %s: the server refuses the change once the CRD is established", js(o.Names.Kind), js(n.Names.Kind))})
	}
	// Singular and list kind default from the kind: when they only
	// follow it, the kind's change says it all.
	derived := o.Names.Kind != n.Names.Kind &&
		o.Names.Singular == strings.ToLower(o.Names.Kind) && n.Names.Singular == strings.ToLower(n.Names.Kind)
	if o.Names.Singular != n.Names.Singular && o.Names.Singular != "" && !derived {
		c.add(Change{Rule: RuleNamesChanged, Path: names.Child("singular").String(), Old: o.Names.Singular, New: n.Names.Singular,
			Message: fmt.Sprintf("singular name changed from %s to %s: kubectl commands using the old name fail", js(o.Names.Singular), js(n.Names.Singular))})
	}
	derived = o.Names.Kind != n.Names.Kind && o.Names.ListKind == o.Names.Kind+"List" && n.Names.ListKind == n.Names.Kind+"List"
	if o.Names.ListKind != n.Names.ListKind && o.Names.ListKind != "" && !derived {
		c.add(Change{Rule: RuleNamesChanged, Path: names.Child("listKind").String(), Old: o.Names.ListKind, New: n.Names.ListKind,
			Message: fmt.Sprintf("list kind changed from %s to %s: clients decoding lists by kind may fail", js(o.Names.ListKind), js(n.Names.ListKind))})
	}
	for i, s := range o.Names.ShortNames {
		if !slices.Contains(n.Names.ShortNames, s) {
			c.add(Change{Rule: RuleNamesChanged, Path: names.Child("shortNames").Index(i).String(), InOld: true, Old: s,
				Message: fmt.Sprintf("short name %s removed: kubectl commands using it fail", js(s))})
		}
	}
	for i, s := range o.Names.Categories {
		if !slices.Contains(n.Names.Categories, s) {
			c.add(Change{Rule: RuleNamesChanged, Path: names.Child("categories").Index(i).String(), InOld: true, Old: s,
				Message: fmt.Sprintf("category %s removed: kubectl get %s no longer lists this resource", js(s), s)})
		}
	}
	c.conversion()
}

func strategy(cv *apiextensionsv1.CustomResourceConversion) apiextensionsv1.ConversionStrategyType {
	if cv == nil || cv.Strategy == "" {
		return apiextensionsv1.NoneConverter
	}
	return cv.Strategy
}

func (c *comparer) conversion() {
	oc, nc := c.old.Spec.Conversion, c.new.Spec.Conversion
	os, ns := strategy(oc), strategy(nc)
	p := specPath.Child("conversion")
	switch {
	case os == ns && ns == apiextensionsv1.WebhookConverter:
		ow, nw := oc.Webhook, nc.Webhook
		if ow == nil || nw == nil {
			return // the server refuses a webhook strategy without webhook
		}
		if !sameClientConfig(ow.ClientConfig, nw.ClientConfig) {
			c.add(Change{Rule: RuleConversionChanged, Path: p.Child("webhook", "clientConfig").String(),
				Old: clientConfigString(ow.ClientConfig), New: clientConfigString(nw.ClientConfig),
				Message: fmt.Sprintf("conversion webhook moved from %s to %s: reads and writes in other versions now depend on the new endpoint",
					js(clientConfigString(ow.ClientConfig)), js(clientConfigString(nw.ClientConfig)))})
		}
		if !slices.Equal(ow.ConversionReviewVersions, nw.ConversionReviewVersions) {
			c.add(Change{Rule: RuleConversionChanged, Path: p.Child("webhook", "conversionReviewVersions").String(),
				Old: stringsAny(ow.ConversionReviewVersions), New: stringsAny(nw.ConversionReviewVersions),
				Message: fmt.Sprintf("conversion review versions changed from %s to %s: the webhook must answer the version the server picks",
					js(ow.ConversionReviewVersions), js(nw.ConversionReviewVersions))})
		}
	case os == apiextensionsv1.WebhookConverter && len(c.new.Spec.Versions) > 1:
		c.add(Change{Rule: RuleConversionRemoved, Path: p.Child("strategy").String(), Old: string(os), New: string(ns),
			Message: fmt.Sprintf("conversion strategy changed from %s to %s: objects are no longer converted between versions, only relabelled, and fields a version lacks are pruned", js(os), js(ns))})
	case ns == apiextensionsv1.WebhookConverter && os != ns:
		c.add(Change{Rule: RuleConversionChanged, Path: p.Child("strategy").String(), Old: string(os), New: string(ns),
			Message: fmt.Sprintf("conversion strategy changed from %s to %s: reads and writes in other versions than the stored one now depend on the webhook", js(os), js(ns))})
	}
}

func sameClientConfig(a, b *apiextensionsv1.WebhookClientConfig) bool {
	// The CA bundle is left out on purpose: rotating it is routine and
	// does not move the endpoint.
	return clientConfigString(a) == clientConfigString(b)
}

// clientConfigString names a webhook endpoint: its URL, or its service as
// namespace/name:port/path.
func clientConfigString(cc *apiextensionsv1.WebhookClientConfig) string {
	if cc == nil {
		return "<none>"
	}
	if cc.URL != nil {
		return *cc.URL
	}
	if s := cc.Service; s != nil {
		out := s.Namespace + "/" + s.Name
		if s.Port != nil {
			out += fmt.Sprintf(":%d", *s.Port)
		}
		if s.Path != nil {
			out += *s.Path
		}
		return out
	}
	return "<none>"
}

// storedVersions is what OLD's status.storedVersions holds, or is taken
// to hold.
func (c *comparer) storedVersions() map[string]bool {
	vs := c.opts.StoredVersions
	if len(vs) == 0 {
		vs = c.old.Status.StoredVersions
	}
	if len(vs) == 0 {
		if i := storageIndex(c.old); i >= 0 {
			vs = []string{c.old.Spec.Versions[i].Name}
		}
	}
	m := make(map[string]bool, len(vs))
	for _, v := range vs {
		m[v] = true
	}
	return m
}

func storageIndex(crd *apiextensionsv1.CustomResourceDefinition) int {
	return slices.IndexFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Storage })
}

func versionIndex(crd *apiextensionsv1.CustomResourceDefinition, name string) int {
	return slices.IndexFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == name })
}

// versions compares each version of OLD with NEW's of the same name, and
// OLD's storage version with NEW's when the storage version moved.
func (c *comparer) versions() {
	stored := c.storedVersions()
	for i := range c.old.Spec.Versions {
		ov := &c.old.Spec.Versions[i]
		if versionIndex(c.old, ov.Name) != i {
			continue // a repeated name: the server refuses such a CRD
		}
		j := versionIndex(c.new, ov.Name)
		if j >= 0 {
			c.version(i, j)
			continue
		}
		p := versionsPath.Index(i).String()
		switch {
		case stored[ov.Name]:
			// The server's refusal makes the removal's other effects moot.
			c.add(Change{Rule: RuleStoredVersionRemoved, Version: ov.Name, Path: p, InOld: true, Old: ov.Name,
				Message: fmt.Sprintf("version %s is removed but is in status.storedVersions: the server refuses the update until every stored object is rewritten in another version and storedVersions no longer lists it", js(ov.Name))})
		case ov.Served:
			c.add(Change{Rule: RuleVersionRemoved, Version: ov.Name, Path: p, InOld: true, Old: ov.Name,
				Message: fmt.Sprintf("served version %s is removed: requests for it fail", js(ov.Name))})
		}
	}
	os, ns := storageIndex(c.old), storageIndex(c.new)
	if os < 0 || ns < 0 {
		return
	}
	on, nn := c.old.Spec.Versions[os].Name, c.new.Spec.Versions[ns].Name
	if on == nn {
		return
	}
	c.add(Change{Rule: RuleStorageVersionChanged, Version: nn, OldVersion: on, Path: versionsPath.Index(ns).Child("storage").String(), Old: on, New: nn,
		Message: fmt.Sprintf("storage version moved from %s to %s: new writes are stored as %s, objects stored today stay %s until rewritten", js(on), js(nn), js(nn), js(on))})
	if strategy(c.new.Spec.Conversion) == apiextensionsv1.WebhookConverter {
		// A webhook maps fields between the versions: their schemas
		// may differ on purpose, and the comparison cannot see how.
		return
	}
	c.storagePair(os, ns)
}

// storagePair compares OLD's storage version with NEW's, when they differ
// and conversion is None: objects stored today are read as NEW's storage
// version by relabelling, and validated and pruned by its schema when
// written. Left out are differences OLD already had between the two
// versions (when OLD has NEW's storage version too), which are not the
// upgrade's doing, and those the comparison of NEW's storage version with
// OLD's of the same name already reported.
func (c *comparer) storagePair(os, ns int) {
	ov, nv := &c.old.Spec.Versions[os], &c.new.Spec.Versions[ns]
	pair := c.schema(ov, nv, versionsPath.Index(os), versionsPath.Index(ns), nv.Name, ov.Name)
	seen := map[string]bool{}
	for _, ch := range c.out {
		if ch.Version == nv.Name && ch.OldVersion == nv.Name {
			seen[relativeKey(ch)] = true
		}
	}
	if k := versionIndex(c.old, nv.Name); k >= 0 {
		for _, ch := range c.schema(ov, &c.old.Spec.Versions[k], versionsPath.Index(os), versionsPath.Index(k), nv.Name, ov.Name) {
			seen[relativeKey(ch)] = true
		}
	}
	for _, ch := range pair {
		if seen[relativeKey(ch)] {
			continue
		}
		ch.Message = fmt.Sprintf("objects stored as %s are read as %s: %s", js(ov.Name), js(nv.Name), ch.Message)
		c.add(ch)
	}
}

// relativeKey identifies a schema change apart from the version it is in.
func relativeKey(ch Change) string {
	p := ch.Path
	if i := strings.Index(p, ".openAPIV3Schema"); i >= 0 {
		p = p[i:]
	}
	return fmt.Sprintf("%s|%t|%s|%s", ch.Rule, ch.InOld, p, ch.Message)
}

// version compares OLD's version i with NEW's version j (same name).
func (c *comparer) version(i, j int) {
	ov, nv := &c.old.Spec.Versions[i], &c.new.Spec.Versions[j]
	op, np := versionsPath.Index(i), versionsPath.Index(j)
	name := nv.Name
	add := func(ch Change) {
		ch.Version, ch.OldVersion = name, name
		c.add(ch)
	}
	if ov.Served && !nv.Served {
		add(Change{Rule: RuleVersionUnserved, Path: np.Child("served").String(), Old: true, New: false,
			Message: fmt.Sprintf("version %s is no longer served: requests for it fail", js(name))})
	}
	if !ov.Deprecated && nv.Deprecated {
		add(Change{Rule: RuleVersionDeprecated, Path: np.Child("deprecated").String(), Old: false, New: true,
			Message: fmt.Sprintf("version %s is deprecated: clients get a warning on every request", js(name))})
	}
	c.subresources(ov, nv, op, np, add)
	c.columns(ov, nv, op, np, add)
	c.selectable(ov, nv, op, add)
	for _, ch := range c.schema(ov, nv, op, np, name, name) {
		c.add(ch)
	}
}

func (c *comparer) subresources(ov, nv *apiextensionsv1.CustomResourceDefinitionVersion, op, np *field.Path, add func(Change)) {
	var os, ns *apiextensionsv1.CustomResourceSubresources
	os, ns = ov.Subresources, nv.Subresources
	if os == nil {
		os = &apiextensionsv1.CustomResourceSubresources{}
	}
	if ns == nil {
		ns = &apiextensionsv1.CustomResourceSubresources{}
	}
	sp, nsp := op.Child("subresources"), np.Child("subresources")
	switch {
	case os.Status != nil && ns.Status == nil:
		add(Change{Rule: RuleSubresourceRemoved, Path: sp.Child("status").String(), InOld: true, Old: "status",
			Message: "status subresource removed: requests to /status fail, and status is written with the main resource again"})
	case os.Status == nil && ns.Status != nil:
		add(Change{Rule: RuleStatusSubresourceAdded, Path: nsp.Child("status").String(), New: "status",
			Message: "status subresource added: changes to status through the main resource are silently dropped, and creates drop status"})
	}
	switch {
	case os.Scale != nil && ns.Scale == nil:
		add(Change{Rule: RuleSubresourceRemoved, Path: sp.Child("scale").String(), InOld: true, Old: "scale",
			Message: "scale subresource removed: kubectl scale and autoscalers fail"})
	case os.Scale != nil && ns.Scale != nil:
		o, n := os.Scale, ns.Scale
		sc := nsp.Child("scale")
		for _, f := range []struct {
			key      string
			old, new string
		}{
			{"specReplicasPath", o.SpecReplicasPath, n.SpecReplicasPath},
			{"statusReplicasPath", o.StatusReplicasPath, n.StatusReplicasPath},
			{"labelSelectorPath", deref(o.LabelSelectorPath), deref(n.LabelSelectorPath)},
		} {
			// A path added (only labelSelectorPath is optional) makes
			// the scale subresource report more: nothing read or
			// written before moves, and autoscalers that need a
			// selector start working.
			if f.old == f.new || f.old == "" {
				continue
			}
			ch := Change{Rule: RuleScaleChanged, Path: sc.Child(f.key).String()}
			switch {
			case f.new == "":
				ch.Path, ch.InOld, ch.Old = sp.Child("scale", f.key).String(), true, f.old
				ch.Message = fmt.Sprintf("scale subresource %s %s removed: the scale subresource no longer reports it, and autoscalers that select pods with it fail", f.key, js(f.old))
			default:
				ch.Old, ch.New = f.old, f.new
				ch.Message = fmt.Sprintf("scale subresource %s changed from %s to %s: kubectl scale and autoscalers read and write another field", f.key, js(f.old), js(f.new))
			}
			add(ch)
		}
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func (c *comparer) columns(ov, nv *apiextensionsv1.CustomResourceDefinitionVersion, op, np *field.Path, add func(Change)) {
	// Columns pair by name; the server lets a name repeat (cluster-api
	// has two "Available" columns), so the k-th column of a name in OLD
	// pairs with the k-th of that name in NEW.
	nth := func(cols []apiextensionsv1.CustomResourceColumnDefinition, name string, k int) int {
		for i, c := range cols {
			if c.Name == name {
				if k == 0 {
					return i
				}
				k--
			}
		}
		return -1
	}
	for i, oc := range ov.AdditionalPrinterColumns {
		k := 0
		for _, c := range ov.AdditionalPrinterColumns[:i] {
			if c.Name == oc.Name {
				k++
			}
		}
		j := nth(nv.AdditionalPrinterColumns, oc.Name, k)
		if j < 0 {
			add(Change{Rule: RulePrinterColumnRemoved, Path: op.Child("additionalPrinterColumns").Index(i).String(), InOld: true, Old: oc.Name,
				Message: fmt.Sprintf("printer column %s removed: kubectl get no longer shows it", js(oc.Name))})
			continue
		}
		nc := nv.AdditionalPrinterColumns[j]
		cp := np.Child("additionalPrinterColumns").Index(j)
		for _, f := range []struct {
			key      string
			old, new any
		}{
			{"jsonPath", oc.JSONPath, nc.JSONPath},
			{"type", oc.Type, nc.Type},
			{"format", oc.Format, nc.Format},
			{"priority", float64(oc.Priority), float64(nc.Priority)},
		} {
			if f.old == f.new {
				continue
			}
			msg := fmt.Sprintf("printer column %s: %s changed from %s to %s", js(oc.Name), f.key, js(f.old), js(f.new))
			if f.key == "priority" && nc.Priority > 0 && oc.Priority == 0 {
				msg += ": kubectl get shows it only with -o wide"
			}
			add(Change{Rule: RulePrinterColumnChanged, Path: cp.Child(f.key).String(), Old: f.old, New: f.new, Message: msg})
		}
	}
}

func (c *comparer) selectable(ov, nv *apiextensionsv1.CustomResourceDefinitionVersion, op *field.Path, add func(Change)) {
	for i, of := range ov.SelectableFields {
		if slices.ContainsFunc(nv.SelectableFields, func(nf apiextensionsv1.SelectableField) bool { return nf.JSONPath == of.JSONPath }) {
			continue
		}
		add(Change{Rule: RuleSelectableFieldRemoved, Path: op.Child("selectableFields").Index(i).String(), InOld: true, Old: of.JSONPath,
			Message: fmt.Sprintf("selectable field %s removed: list and watch requests selecting on it are refused", js(of.JSONPath))})
	}
}

// schema compares two versions' schemas and returns the changes, the
// paths rooted at op and np.
func (c *comparer) schema(ov, nv *apiextensionsv1.CustomResourceDefinitionVersion, op, np *field.Path, version, oldVersion string) []Change {
	if ov.Schema == nil || nv.Schema == nil || ov.Schema.OpenAPIV3Schema == nil || nv.Schema.OpenAPIV3Schema == nil {
		return nil
	}
	w := &walker{opts: c.opts, version: version, oldVersion: oldVersion}
	w.node(ov.Schema.OpenAPIV3Schema, nv.Schema.OpenAPIV3Schema, loc{
		op:      op.Child("schema", "openAPIV3Schema"),
		np:      np.Child("schema", "openAPIV3Schema"),
		present: true,
		root:    true,
	})
	return w.out
}
