package kustomize

import (
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Via says what a Trace points at.
type Via string

const (
	// ViaResource: the object's own file (a resource of a kustomization).
	ViaResource Via = "resource"
	// ViaPatch: a patch (a file, or inline in a kustomization) that sets
	// the field to the rendered value.
	ViaPatch Via = "patch"
	// ViaKustomization: a kustomization's namespace, labels,
	// commonLabels or commonAnnotations entry that sets the field.
	ViaKustomization Via = "kustomization"
	// ViaGenerator: the generator entry in a kustomization.
	ViaGenerator Via = "generator"
	// ViaFile: the object's file is known but the object was not found in
	// it; Line and Column are 0.
	ViaFile Via = "file"
)

// Trace is where a field of a rendered object was written.
type Trace struct {
	// File is the origin file, or the patch file or kustomization that
	// wrote the field; empty when kustomize recorded no origin (the
	// rendered position is all there is).
	File string
	// Line and Column are 1-based in File; 0 when the object was not
	// found there.
	Line, Column int
	// Document is the index of the document in File (as source.Parse
	// counts objects for a resource, in YAML documents for a patch); -1
	// when unknown.
	Document int
	// Exact says Line:Column is the field itself, written there with the
	// value it has in the rendered object. Otherwise it is the field with
	// another value (a transformer changed it: namespace, images, name
	// prefixes), or the nearest enclosing field that is written there, or
	// the object or generator entry.
	Exact bool
	Via   Via
}

// Trace says where the field (a path in the server's notation, as
// report.Finding.Field has it; "" for the object) of rendered document
// doc was written:
//
//  1. in the object's own file, when the field is there with the rendered
//     value (exact);
//  2. else in the last patch that sets it to the rendered value (exact):
//     a strategic merge patch or a JSON 6902 operation, in a file or
//     inline in a literal block (patch: |), of a kustomization that
//     includes the object, the including ones (overlays) first;
//  3. else in the object's own file at the field, with another value, or
//     at the nearest enclosing field there (not exact);
//  4. for a generated object, the generator's entry in its
//     kustomization: the literal that made a data key (exact when its
//     value is the rendered one), the files entry, else the entry.
func (r *Rendered) Trace(doc int, field string) Trace {
	if doc < 0 || doc >= len(r.Objects) {
		return Trace{Document: -1}
	}
	o := r.Objects[doc]
	t := Trace{File: o.Origin.Path, Line: o.Origin.Line, Column: o.Origin.Column, Document: o.Origin.Document}
	if t.File == "" {
		return t
	}
	t.Via = ViaFile
	if t.Line > 0 {
		t.Via = ViaResource
	}
	steps, val, ok := resolve(r.renderedValue(doc), field)
	if o.Origin.Generator != "" {
		return r.generatorTrace(t, o, steps, val, ok)
	}
	d := r.object(o.Origin.Path, o.Object)
	if d != nil {
		if strings.TrimSpace(field) == "" || field == "<nil>" {
			t.Exact = true
			return t
		}
		if ok && sameAt(d, field, val) {
			pos, _ := d.Locate(field)
			t.Line, t.Column, t.Exact = pos.Line, pos.Column, true
			return t
		}
	}
	if ok {
		orig := ""
		if d != nil {
			orig = d.Object.Name
		}
		if pt, found := r.patchTrace(o, orig, steps, val); found {
			return pt
		}
	}
	if d != nil {
		pos, _ := d.Locate(field)
		t.Line, t.Column = pos.Line, pos.Column
	}
	return t
}

// Map rewrites a finding positioned in the rendered stream (File is
// Name) to the file its field was written in (see Trace), keeping Field,
// Object and everything else; other findings come back unchanged. When
// the object was not found in its file, the finding names the file at
// line 0 (about the file as a whole) and the rendered object's identity
// (Object). The rendered position is the caller's to keep.
func (r *Rendered) Map(f report.Finding) report.Finding {
	if f.File != r.Name {
		return f
	}
	t := r.Trace(f.Document, f.Field)
	if t.File == "" {
		return f
	}
	f.File, f.Line, f.Column, f.Document = t.File, t.Line, t.Column, max(t.Document, 0)
	return f
}

// renderedValue is document doc of the stream as kubectl sends it.
func (r *Rendered) renderedValue(doc int) any {
	for _, d := range r.Stream.Documents {
		if d.Index == doc && d.Item < 0 {
			var v any
			if json.Unmarshal(d.JSON, &v) == nil {
				return v
			}
		}
	}
	return nil
}

// sameAt says whether d has the field with the rendered value.
func sameAt(d *source.Document, field string, rendered any) bool {
	var v any
	if json.Unmarshal(d.JSON, &v) != nil {
		return false
	}
	_, ov, ok := resolve(v, field)
	return ok && reflect.DeepEqual(ov, rendered)
}

// patch is one patch of a kustomization: its documents and where they
// are written.
type patch struct {
	target *types.Selector
	docs   []*yaml.Node
	file   string
	inline bool // written in the kustomization file
	// shift maps positions in docs to File: identity for a patch file;
	// for an inline patch, from the patch's text to the kustomization's,
	// ok false when the text's lines are not the file's (a quoted or
	// folded string).
	shift func(line, col int) (int, int, bool)
}

// patchTrace looks for the last patch, or kustomization field
// (namespace, labels, commonLabels, commonAnnotations), that sets the
// field to the rendered value. Kustomizations are searched from the one
// whose changes apply last; in each, in kustomize's transformer order
// reversed: the patch transformers configured under transformers, then
// patchesJson6902, then the fields, then patches and
// patchesStrategicMerge.
func (r *Rendered) patchTrace(o Object, orig string, steps []step, val any) (Trace, bool) {
	for _, k := range r.tree.chain(r.tree.owner(o.Origin.Path)) {
		ps := r.patches(k)
		if t, ok := r.searchPatches(ps.transformers, o, orig, steps, val); ok {
			return t, true
		}
		if t, ok := r.searchPatches(ps.after, o, orig, steps, val); ok {
			return t, true
		}
		if at := fieldSets(k, steps, val); at != nil {
			return Trace{File: k.file, Line: at.Line, Column: at.Column, Exact: true, Via: ViaKustomization}, true
		}
		if t, ok := r.searchPatches(ps.before, o, orig, steps, val); ok {
			return t, true
		}
	}
	return Trace{}, false
}

func (r *Rendered) searchPatches(ps []*patch, o Object, orig string, steps []step, val any) (Trace, bool) {
	for _, p := range slices.Backward(ps) {
		if !p.applies(o.Object, orig) {
			continue
		}
		for di, root := range slices.Backward(p.docs) {
			at, exact := p.find(root, o.Object, orig, steps, val)
			if at == nil {
				continue
			}
			line, col, ok := p.shift(at.Line, at.Column)
			if p.inline {
				di = 0 // the kustomization's
			}
			return Trace{File: p.file, Line: line, Column: col, Document: di, Exact: exact && ok, Via: ViaPatch}, true
		}
	}
	return Trace{}, false
}

// fieldSets returns the key of the kustomization field that sets
// metadata.namespace, a label or an annotation to the rendered value.
func fieldSets(k *kust, steps []step, val any) *yaml.Node {
	if len(steps) < 2 || steps[0].key != "metadata" {
		return nil
	}
	s, ok := val.(string)
	if !ok {
		return nil
	}
	is := func(key, v *yaml.Node) bool {
		return key != nil && v != nil && v.Kind == yaml.ScalarNode && v.Value == s
	}
	switch {
	case len(steps) == 2 && steps[1].key == "namespace":
		if key, v := mapping(k.root, "namespace"); is(key, v) {
			return key
		}
	case len(steps) == 3 && steps[1].key == "labels":
		_, labels := mapping(k.root, "labels")
		for _, l := range slices.Backward(seqOf(labels)) {
			_, pairs := mapping(l, "pairs")
			if key, v := mapping(pairs, steps[2].key); is(key, v) {
				return key
			}
		}
		_, common := mapping(k.root, "commonLabels")
		if key, v := mapping(common, steps[2].key); is(key, v) {
			return key
		}
	case len(steps) == 3 && steps[1].key == "annotations":
		_, common := mapping(k.root, "commonAnnotations")
		if key, v := mapping(common, steps[2].key); is(key, v) {
			return key
		}
	}
	return nil
}

func seqOf(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// find looks for the field with the rendered value in one patch document
// (a strategic merge patch, or a list of JSON 6902 operations).
func (p *patch) find(root *yaml.Node, obj report.ObjectRef, orig string, steps []step, val any) (*yaml.Node, bool) {
	root = deref(root)
	if root == nil {
		return nil, false
	}
	if root.Kind == yaml.SequenceNode {
		if p.target == nil {
			return nil, false // kustomize applies JSON 6902 patches only to a target
		}
		for _, op := range slices.Backward(root.Content) {
			if at := opSets(op, steps, val); at != nil {
				return at, true
			}
		}
		return nil, false
	}
	if p.target == nil && !smpNames(root, obj, orig) || identifies(steps) {
		return nil, false
	}
	at, v := nodeAt(root, steps)
	if at == nil || !sameValue(v, val) {
		return nil, false
	}
	return at, true
}

// opSets returns where a JSON 6902 add or replace operation writes the
// field with the rendered value: its value key when its path is the
// field, the field inside its value when its path encloses it.
func opSets(op *yaml.Node, steps []step, val any) *yaml.Node {
	_, kind := mapping(op, "op")
	_, path := mapping(op, "path")
	vk, v := mapping(op, "value")
	if kind == nil || path == nil || vk == nil || (kind.Value != "add" && kind.Value != "replace") {
		return nil
	}
	toks, ok := pointer(path.Value)
	if !ok || !prefixOf(toks, steps) {
		return nil
	}
	if len(toks) == len(steps) {
		if sameValue(v, val) {
			return vk
		}
		return nil
	}
	at, inner := nodeAt(v, steps[len(toks):])
	if at == nil || !sameValue(inner, val) {
		return nil
	}
	return at
}

// identifies says whether the field is one a strategic merge patch
// writes to name its target, not to change it.
func identifies(steps []step) bool {
	switch {
	case len(steps) == 1:
		return steps[0].key == "apiVersion" || steps[0].key == "kind"
	case len(steps) == 2 && steps[0].key == "metadata":
		return steps[1].key == "name" || steps[1].key == "namespace"
	}
	return false
}

// smpNames says whether a strategic merge patch without a target names
// the object: the same kind, and a name between the one written in the
// object's file and the rendered one (a base's prefix may already be on
// it when an overlay patches it).
func smpNames(root *yaml.Node, obj report.ObjectRef, orig string) bool {
	_, kind := mapping(root, "kind")
	if kind != nil && kind.Value != obj.Kind {
		return false
	}
	_, meta := mapping(root, "metadata")
	_, name := mapping(meta, "name")
	if name == nil {
		return false
	}
	n := name.Value
	return n == obj.Name || n == orig || orig != "" && strings.Contains(n, orig) && strings.Contains(obj.Name, n)
}

// applies says whether a patch's target selects the object, as far as
// kustomize's selector can be judged from names: group, version, kind
// and name are anchored regular expressions matched against the rendered
// object (the name also against the one in its file); label and
// annotation selectors are not judged, so a patch with them is taken to
// apply (the value must still be the rendered one).
func (p *patch) applies(obj report.ObjectRef, orig string) bool {
	s := p.target
	if s == nil {
		return true
	}
	group, version := "", obj.APIVersion
	if i := strings.LastIndexByte(version, '/'); i >= 0 {
		group, version = version[:i], version[i+1:]
	}
	return matches(s.Group, group) && matches(s.Version, version) && matches(s.Kind, obj.Kind) &&
		(matches(s.Name, obj.Name) || orig != "" && matches(s.Name, orig))
}

func matches(pattern, s string) bool {
	if pattern == "" {
		return true
	}
	re, err := regexp.Compile("^(?:" + pattern + ")$")
	if err != nil {
		return pattern == s
	}
	return re.MatchString(s)
}

// patchSet is a kustomization's patches by when kustomize applies them:
// before the namespace, name and label transformers
// (patchesStrategicMerge, then patches), after them (patchesJson6902),
// and last the builtin patch transformers configured under transformers.
type patchSet struct{ before, after, transformers []*patch }

// patches reads a kustomization's patches once.
func (r *Rendered) patches(k *kust) patchSet {
	r.mu.Lock()
	ps, ok := r.patchCache[k]
	r.mu.Unlock()
	if ok {
		return ps
	}
	ps = r.readPatches(k)
	r.mu.Lock()
	if r.patchCache == nil {
		r.patchCache = map[*kust]patchSet{}
	}
	r.patchCache[k] = ps
	r.mu.Unlock()
	return ps
}

func (r *Rendered) readPatches(k *kust) patchSet {
	var ps patchSet
	in := site{file: k.file, text: k.text, shift: same}
	_, psm := mapping(k.root, "patchesStrategicMerge")
	for i, e := range k.k.PatchesStrategicMerge {
		// A file if it reads, else the patch itself, as kustomize decides.
		if s := string(e); isFile(filepath.Join(k.dir, s)) {
			ps.before = append(ps.before, r.patch(k.dir, nil, s, "", nil, in))
		} else {
			ps.before = append(ps.before, r.patch(k.dir, nil, "", s, item(psm, i), in))
		}
	}
	_, pl := mapping(k.root, "patches")
	for i, p := range k.k.Patches {
		_, inline := mapping(item(pl, i), "patch")
		ps.before = append(ps.before, r.patch(k.dir, p.Target, p.Path, p.Patch, inline, in))
	}
	_, pj := mapping(k.root, "patchesJson6902")
	for i, p := range k.k.PatchesJson6902 {
		_, inline := mapping(item(pj, i), "patch")
		ps.after = append(ps.after, r.patch(k.dir, p.Target, p.Path, p.Patch, inline, in))
	}
	_, tl := mapping(k.root, "transformers")
	for i, t := range k.k.Transformers {
		config := in
		if strings.Contains(t, "\n") {
			config = site{file: k.file, text: []byte(t), shift: inlineShift(k.text, item(tl, i))}
		} else if f := r.file(filepath.Join(k.dir, t)); f != nil {
			config = site{file: filepath.Join(k.dir, t), text: f.text, shift: same}
		} else {
			continue
		}
		for _, d := range yamlDocs(config.text) {
			ps.transformers = append(ps.transformers, r.configuredPatches(k.dir, d, config)...)
		}
	}
	isNil := func(p *patch) bool { return p == nil }
	ps.before = slices.DeleteFunc(ps.before, isNil)
	ps.after = slices.DeleteFunc(ps.after, isNil)
	ps.transformers = slices.DeleteFunc(ps.transformers, isNil)
	return ps
}

// configuredPatches reads the patches of a builtin patch transformer's
// configuration (PatchTransformer, PatchStrategicMergeTransformer,
// PatchJson6902Transformer), in their order.
func (r *Rendered) configuredPatches(dir string, d *yaml.Node, in site) []*patch {
	_, kind := mapping(d, "kind")
	if kind == nil {
		return nil
	}
	var c struct {
		Path    string          `json:"path"`
		Patch   string          `json:"patch"`
		JSONOp  string          `json:"jsonOp"`
		Paths   []string        `json:"paths"`
		Patches string          `json:"patches"`
		Target  *types.Selector `json:"target"`
	}
	v, ok := nodeValue(d)
	if !ok {
		return nil
	}
	if js, err := json.Marshal(v); err != nil || json.Unmarshal(js, &c) != nil {
		return nil
	}
	text := func(key string) *yaml.Node { _, n := mapping(d, key); return n }
	switch kind.Value {
	case "PatchTransformer":
		return []*patch{r.patch(dir, c.Target, c.Path, c.Patch, text("patch"), in)}
	case "PatchJson6902Transformer":
		return []*patch{r.patch(dir, c.Target, c.Path, c.JSONOp, text("jsonOp"), in)}
	case "PatchStrategicMergeTransformer":
		var out []*patch
		for _, p := range c.Paths {
			out = append(out, r.patch(dir, nil, p, "", nil, in))
		}
		return append(out, r.patch(dir, nil, "", c.Patches, text("patches"), in))
	}
	return nil
}

// site is where the text of inline patches is written: a file, the text,
// and how positions in the text map to the file (for a configuration
// written inline in a kustomization, from the configuration's text to
// the kustomization's).
type site struct {
	file  string
	text  []byte
	shift func(line, col int) (int, int, bool)
}

func same(l, c int) (int, int, bool) { return l, c, true }

func item(seq *yaml.Node, i int) *yaml.Node {
	if seq == nil || seq.Kind != yaml.SequenceNode || i >= len(seq.Content) {
		return nil
	}
	return seq.Content[i]
}

// patch reads one patch: a file (path, relative to dir) or the text of
// an inline patch written at node in the site's text.
func (r *Rendered) patch(dir string, target *types.Selector, path, text string, node *yaml.Node, in site) *patch {
	if path != "" {
		f := r.file(filepath.Join(dir, path))
		if f == nil {
			return nil
		}
		return &patch{target: target, docs: f.docs, file: filepath.Join(dir, path), shift: same}
	}
	if text == "" {
		return nil
	}
	inner := inlineShift(in.text, node)
	return &patch{target: target, docs: yamlDocs([]byte(text)), file: in.file, inline: true,
		shift: func(l, c int) (int, int, bool) {
			l, c, ok1 := inner(l, c)
			l, c, ok2 := in.shift(l, c)
			return l, c, ok1 && ok2
		}}
}

// inlineShift maps positions in an inline patch to the kustomization
// file. In a literal block (patch: |) line n of the text is line n after
// the block's indicator, shifted right by the block's indentation; other
// styles fold or escape lines, and map to the patch's own position, not
// exactly.
func inlineShift(file []byte, n *yaml.Node) func(int, int) (int, int, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Style&yaml.LiteralStyle == 0 {
		line, col := 0, 0
		if n != nil {
			line, col = n.Line, n.Column
		}
		return func(int, int) (int, int, bool) { return line, col, false }
	}
	lines := strings.Split(string(file), "\n")
	text := strings.Split(n.Value, "\n")
	indent := -1
	for i, t := range text {
		fl := n.Line + i // 0-based index of the file's line n.Line+1+i
		if strings.TrimSpace(t) == "" || fl >= len(lines) {
			continue
		}
		l := strings.TrimRight(lines[fl], "\r")
		indent = (len(l) - len(strings.TrimLeft(l, " "))) - (len(t) - len(strings.TrimLeft(t, " ")))
		break
	}
	if indent < 0 {
		return func(int, int) (int, int, bool) { return n.Line, n.Column, false }
	}
	return func(l, c int) (int, int, bool) { return n.Line + l, c + indent, true }
}

// generatorTrace traces a field of a generated ConfigMap or Secret to
// its generator's entry.
func (r *Rendered) generatorTrace(t Trace, o Object, steps []step, val any, ok bool) Trace {
	t.Via = ViaGenerator
	e, _, _ := r.generatorEntry(o.Origin, o.Object.Name)
	if e == nil || !ok || len(steps) == 0 {
		return t
	}
	set := func(n *yaml.Node, exact bool) Trace {
		t.Line, t.Column, t.Exact = n.Line, n.Column, exact
		return t
	}
	for _, k := range r.tree.chain(r.tree.owner(o.Origin.Path)) {
		if at := fieldSets(k, steps, val); at != nil {
			return Trace{File: k.file, Line: at.Line, Column: at.Column, Exact: true, Via: ViaKustomization}
		}
	}
	if len(steps) == 2 && steps[0].key == "metadata" && steps[1].key == "name" {
		// an entry's name, or a configuration's
		if k, _ := mapping(e, "name"); k != nil {
			return set(k, false)
		}
		_, meta := mapping(e, "metadata")
		if k, _ := mapping(meta, "name"); k != nil {
			return set(k, false)
		}
	}
	if len(steps) != 2 || (steps[0].key != "data" && steps[0].key != "binaryData") {
		return t
	}
	key := steps[1].key
	_, lits := mapping(e, "literals")
	for _, l := range seqItems(lits) {
		if k, v, found := strings.Cut(l.Value, "="); found && strings.TrimSpace(k) == key {
			s, _ := val.(string)
			return set(l, v == s || o.Origin.Generator == "SecretGenerator" && base64.StdEncoding.EncodeToString([]byte(v)) == s)
		}
	}
	_, files := mapping(e, "files")
	for _, f := range seqItems(files) {
		// "key=path", or "path" whose base name is the key
		k, _, found := strings.Cut(f.Value, "=")
		if !found {
			k = filepath.Base(f.Value)
		}
		if strings.TrimSpace(k) == key {
			return set(f, false)
		}
	}
	return t
}

func seqItems(seq *yaml.Node) []*yaml.Node {
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	var out []*yaml.Node
	for _, n := range seq.Content {
		if n = deref(n); n != nil && n.Kind == yaml.ScalarNode {
			out = append(out, n)
		}
	}
	return out
}

// owner is the kustomization that lists file as a resource (or, for a
// generated object, is file); nil when none does.
func (t *tree) owner(file string) *kust {
	if k := t.byFile(file); k != nil {
		return k
	}
	for _, k := range t.kusts {
		for _, res := range k.k.Resources {
			if filepath.Join(k.dir, res) == file {
				return k
			}
		}
	}
	return nil
}

// chain lists the kustomizations whose patches can reach the objects of
// owner: owner, the kustomizations that include it (directly or not),
// and the components of any of them, in walk order (the top one first,
// whose patches apply last). Without an owner, every kustomization.
func (t *tree) chain(owner *kust) []*kust {
	if owner == nil {
		return lastFirst(t.kusts)
	}
	seen := map[*kust]bool{}
	var up func(k *kust)
	var comps func(k *kust)
	comps = func(k *kust) {
		for _, c := range k.components {
			if !seen[c] {
				seen[c] = true
				comps(c)
			}
		}
	}
	up = func(k *kust) {
		if seen[k] {
			return
		}
		seen[k] = true
		comps(k)
		for _, p := range k.parents {
			up(p)
		}
	}
	up(owner)
	var out []*kust
	for _, k := range t.kusts {
		if seen[k] {
			out = append(out, k)
		}
	}
	return lastFirst(out)
}

// lastFirst orders kustomizations by when their patches apply, the last
// first.
func lastFirst(ks []*kust) []*kust {
	ks = slices.Clone(ks)
	slices.SortStableFunc(ks, func(a, b *kust) int { return b.applied - a.applied })
	return ks
}

// Files lists, sorted, every file Map can name: the objects' origin files,
// the kustomizations, and their patch files. A caller that honours inline
// suppressions (# crdlint:ignore) reads them from these files, since the
// rendered stream has no comments.
func (r *Rendered) Files() []string {
	seen := map[string]bool{}
	for _, o := range r.Objects {
		if o.Origin.Path != "" {
			seen[o.Origin.Path] = true
		}
	}
	for _, k := range r.tree.kusts {
		seen[k.file] = true
		ps := r.patches(k)
		for _, l := range [][]*patch{ps.before, ps.after, ps.transformers} {
			for _, p := range l {
				seen[p.file] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}
