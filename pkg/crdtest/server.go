package crdtest

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/json"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Server answers create, update and status-update requests for custom
// resources as the Kubernetes API server does, offline: it runs the
// server's own decoding, pruning, defaulting, strategies, validation
// (OpenAPI schema, CEL with transition rules, ratcheting) through pkg/crd,
// and shapes its refusals as the server's responses
// (*apierrors.StatusError: message, reason, code and causes).
//
// A Server is safe for concurrent use once loaded.
type Server struct {
	cat  *crd.Catalog
	defs []*crd.Definition
	// refused are the CRDs the API server would refuse, by group and
	// kind: what a request for their kinds is answered.
	refused map[schema.GroupKind]string
	// refusedDefs are those CRDs, and where each came from.
	refusedDefs []*apiextensionsv1.CustomResourceDefinition
	refusedFrom []string
	// Namespace is where a namespaced object that names none is sent
	// ("default", as a client without a namespace sends it).
	Namespace string
	// FieldValidation is the requests' fieldValidation: "" or Warn (what
	// client-go sends: none, which the server reads as Warn), Strict
	// (kubectl apply's), or Ignore.
	FieldValidation string

	// patched are the Servers of Patched, by CRD name and patch: a
	// suite's cases repeat their patches, and compiling a CRD's schema
	// and rules is most of a request's cost.
	mu       sync.Mutex
	patched  map[string]*Server
	variants map[int]*Server
}

// NewServer serves the given CRDs. Each must be one the API server would
// accept: a refused CRD is an error that says so.
func NewServer(crds ...*apiextensionsv1.CustomResourceDefinition) (*Server, error) {
	s := newServer()
	for _, c := range crds {
		if err := s.add(crd.FromV1(c.DeepCopy()), c.Name); err != nil {
			return nil, err
		}
	}
	return s, s.strict()
}

// strict is the refusal of the first CRD the server would refuse: the Go
// package's constructors fail on it; the command's suites run on the
// others.
func (s *Server) strict() error {
	for _, msg := range s.refused {
		return errors.New(msg)
	}
	return nil
}

func newServer() *Server {
	return &Server{cat: crd.NewCatalog(false), Namespace: crd.DefaultNamespace}
}

// Load serves the CRDs of files and directories (their .yaml, .yml and
// .json files; documents that are not CRDs are ignored).
func Load(paths ...string) (*Server, error) {
	files, err := source.Expand(paths)
	if err != nil {
		return nil, err
	}
	s := newServer()
	for _, f := range files {
		data, err := source.ReadBytes(f)
		if err != nil {
			return nil, err
		}
		if err := s.AddYAML(f, data); err != nil {
			return nil, err
		}
	}
	if err := s.strict(); err != nil {
		return nil, err
	}
	return s, s.none(paths)
}

// LoadFS serves the CRDs of files of fsys (an embed.FS, say) matching the
// patterns (fs.Glob; a directory stands for its files).
func LoadFS(fsys fs.FS, patterns ...string) (*Server, error) {
	s := newServer()
	for _, p := range patterns {
		matches, err := fs.Glob(fsys, p)
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			err := fs.WalkDir(fsys, m, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				if m != p && !slices.Contains(source.Extensions, path.Ext(p)) {
					return nil
				}
				data, err := fs.ReadFile(fsys, p)
				if err != nil {
					return err
				}
				return s.AddYAML(p, data)
			})
			if err != nil {
				return nil, err
			}
		}
	}
	if err := s.strict(); err != nil {
		return nil, err
	}
	return s, s.none(patterns)
}

func (s *Server) none(what []string) error {
	if len(s.defs) == 0 {
		return fmt.Errorf("no CustomResourceDefinition in %s", strings.Join(what, ", "))
	}
	return nil
}

// AddYAML adds the CRDs of a file's content (YAML or JSON, any number of
// documents) named name.
func (s *Server) AddYAML(name string, data []byte) error {
	f := source.Parse(name, data)
	for _, fd := range crd.FindCRDs(f) {
		if fd.Def == nil {
			continue
		}
		if err := s.add(fd.Def, fd.Source()); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) add(d *crd.Definition, from string) error {
	if d.Object() == nil {
		return fmt.Errorf("%s: %v", from, d.DecodeError)
	}
	if d.Rejected(false) {
		// Its kind is not served: requests for it say why.
		if s.refused == nil {
			s.refused = map[schema.GroupKind]string{}
		}
		s.refused[schema.GroupKind{Group: d.Object().Spec.Group, Kind: d.Object().Spec.Names.Kind}] = fmt.Sprintf("%s: the API server would refuse CRD %s (kubectl crdlint check %s tells why)", from, d.Name(), strings.SplitN(from, ":", 2)[0])
		s.refusedDefs = append(s.refusedDefs, d.Object())
		s.refusedFrom = append(s.refusedFrom, strings.SplitN(from, ":", 2)[0])
		return nil
	}
	s.defs = append(s.defs, d)
	s.cat.Add(d, from, crd.Extra)
	return nil
}

// CRDs are the served CRDs, in the order they were added.
func (s *Server) CRDs() []*apiextensionsv1.CustomResourceDefinition {
	out := make([]*apiextensionsv1.CustomResourceDefinition, len(s.defs))
	for i, d := range s.defs {
		out[i] = d.Object()
	}
	return out
}

// Response is the server's answer to one request.
type Response struct {
	// Err is the refusal, nil when the request is accepted.
	Err *apierrors.StatusError
	// Warnings are the response's warning headers, in order.
	Warnings []string
	// Pruned are the paths of the unknown fields the server dropped.
	Pruned []string
	// Object is what the server returns (as a GET in the request's
	// version reads it back afterwards), nil on a refusal.
	Object map[string]any
	// Stored is what etcd holds: Object's write in the storage version,
	// pruned by its schema (crd.Entry.Store); nil on a refusal, and when
	// a conversion webhook would make it.
	Stored map[string]any
}

// Request is one write.
type Request struct {
	Op Op
	// Old is the stored object of an update, in the version its
	// apiVersion names (Response.Stored, or an object as a client read
	// it), read as storage reads it: pruned and defaulted again in the
	// storage version, and converted to the request's version as the
	// CRD's None strategy does.
	Old, Object map[string]any
	// Namespace overrides the Server's; the object's own wins.
	Namespace       string
	FieldValidation string
}

// Do runs one request. The objects are not modified.
func (s *Server) Do(req Request) (resp Response, err error) {
	obj := deepCopy(req.Object)
	gvk := schema.FromAPIVersionAndKind(str(obj["apiVersion"]), str(obj["kind"]))
	if gvk.Kind == "" || gvk.Version == "" {
		return Response{}, fmt.Errorf("the object needs apiVersion and kind")
	}
	v, err := s.cat.Lookup(gvk)
	if err != nil {
		if msg, ok := s.refused[gvk.GroupKind()]; ok {
			return Response{}, errors.New(msg)
		}
		return Response{}, err
	}
	ns := req.Namespace
	if ns == "" {
		ns = s.Namespace
	}
	fv := req.FieldValidation
	if fv == "" {
		fv = s.FieldValidation
	}
	var old map[string]any
	if req.Op != Create {
		if req.Old == nil {
			return Response{}, fmt.Errorf("an update needs the stored object")
		}
		old = deepCopy(req.Old)
		// A client sends the update to the stored object's name.
		if md, _ := obj["metadata"].(map[string]any); md == nil {
			obj["metadata"] = map[string]any{}
		}
		md := obj["metadata"].(map[string]any)
		omd, _ := old["metadata"].(map[string]any)
		for _, k := range []string{"name", "namespace"} {
			if _, ok := md[k]; !ok && omd[k] != nil {
				md[k] = omd[k]
			}
		}
		if ons := str(omd["namespace"]); ons != "" {
			ns = ons
		}
	}
	if md, _ := obj["metadata"].(map[string]any); md != nil && str(md["namespace"]) != "" {
		ns = str(md["namespace"])
	}
	name := objectName(obj)
	var vd *engine.Verdict
	e := s.cat.Entry(gvk.GroupKind())
	update, updateStatus := v.Update, v.UpdateStatus
	if old != nil && throughStorage(e, versionOf(old, gvk), gvk.Version) {
		// The old object as storage reads it for this request: stored
		// in the storage version, defaulted there, converted (and not
		// defaulted again in the request's version).
		if _, err := e.RoundTrip(old, versionOf(old, gvk), gvk.Version, true); err != nil {
			return Response{}, fmt.Errorf("the stored object: %w", err)
		}
		update, updateStatus = v.UpdateFromStorage, v.UpdateStatusFromStorage
	}
	switch req.Op {
	case Create:
		vd = v.Create(obj, ns)
	case Update:
		vd = update(old, obj, ns)
	case UpdateStatus:
		vd = updateStatus(old, obj, ns)
	default:
		return Response{}, fmt.Errorf("unknown operation %q", req.Op)
	}
	if vd.Object != nil {
		name = vd.Object.GetName()
	}
	return respond(e, v, gvk, name, req.Op, fv, vd), nil
}

// versionOf is the version obj's apiVersion names when it is of gvk's
// group, else gvk's.
func versionOf(obj map[string]any, gvk schema.GroupVersionKind) string {
	if gv, err := schema.ParseGroupVersion(str(obj["apiVersion"])); err == nil && gv.Group == gvk.Group && gv.Version != "" {
		return gv.Version
	}
	return gvk.Version
}

// throughStorage says whether an object written in version from and
// read in version to passes through another version on its way: the
// storage version differs from one of them. Under a conversion webhook,
// which crdlint cannot call, it is taken as read in the same version
// when both are one.
func throughStorage(e *crd.Entry, from, to string) bool {
	if e == nil || e.CRD() == nil {
		return false
	}
	s := e.StorageVersion()
	if e.ConvertsByWebhook() {
		return from != to
	}
	return from != s || to != s
}

// respond shapes a verdict as the server's response, in the order the
// server decides: a panic (500), a body it cannot decode or a route it
// does not have (400, 404), strict unknown fields (400), then
// validation (422, its errors in the order the server found them).
func respond(e *crd.Entry, v *engine.Version, gvk schema.GroupVersionKind, name string, op Op, fv string, vd *engine.Verdict) Response {
	var r Response
	r.Pruned = vd.Unknown
	switch {
	case vd.Panic != "":
		r.Err = apierrors.NewInternalError(fmt.Errorf("%s", vd.Panic))
		return r
	case errors.Is(vd.DecodeError, engine.ErrNoStatus):
		r.Err = apierrors.NewGenericServerResponse(404, "put", schema.GroupResource{Group: gvk.Group, Resource: v.Resource() + "/status"}, name, "", 0, true)
		return r
	case vd.DecodeError != nil:
		var se *apierrors.StatusError
		if errors.As(vd.DecodeError, &se) {
			r.Err = se
			return r
		}
		r.Err = decodeError(gvk, vd.DecodeError)
		return r
	}
	if len(vd.Unknown) > 0 {
		switch fv {
		case "Strict":
			var errs []error
			for _, u := range vd.Unknown {
				errs = append(errs, fmt.Errorf(`unknown field %q`, u))
			}
			r.Err = decodeError(gvk, runtime.NewStrictDecodingError(errs))
			return r
		case "Ignore":
		default:
			for _, u := range vd.Unknown {
				r.Warnings = append(r.Warnings, fmt.Sprintf("unknown field %q", u))
			}
		}
	}
	// Validation's warnings (a ratcheted CEL rule's error) come with a
	// refusal too; the strategy's only with an accepted request (the
	// engine's verdict has none on a refusal).
	r.Warnings = append(r.Warnings, vd.Warnings...)
	if len(vd.Errors) > 0 {
		r.Err = apierrors.NewInvalid(gvk.GroupKind(), name, vd.Errors)
		return r
	}
	if vd.Object != nil {
		// The server answers with what it wrote as its storage decodes it
		// (etcd3's Create and GuaranteedUpdate decode the bytes written):
		// stored in the storage version, pruned by its schema, defaulted
		// there, so defaults of a part the strategy dropped (a status on
		// create) show, and converted back to the request's version, as
		// a client then reads it.
		r.Object = deepCopy(vd.Object.Object)
		if e != nil && e.CRD() != nil && throughStorage(e, gvk.Version, gvk.Version) {
			if _, _, err := e.Store(r.Object, gvk.Version); err == nil {
				r.Stored = deepCopy(r.Object)
				if _, err := e.ReadBack(r.Object, gvk.Version, true); err == nil {
					return r
				}
			}
			r.Object, r.Stored = deepCopy(vd.Object.Object), nil
		}
		if _, err := v.Read(r.Object); err != nil {
			r.Object = vd.Object.Object
		}
		if e == nil || e.CRD() == nil || e.StorageVersion() == gvk.Version {
			r.Stored = deepCopy(vd.Object.Object)
		}
	}
	return r
}

// decodeError is the handlers' transformDecodeError for a custom
// resource.
func decodeError(gvk schema.GroupVersionKind, err error) *apierrors.StatusError {
	return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, gvk.Kind, err))
}

// Patched is a Server whose CRD name is patched with a JSON patch (RFC
// 6902), for requests made under an earlier schema (openshift's
// initialCRDPatches). The patched CRD is not judged: the server of the
// suite's authors accepted it.
func (s *Server) Patched(name string, patch []byte) (*Server, error) {
	key := name + "\x00" + string(patch)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.patched[key]; ok {
		return p, nil
	}
	p, err := s.patch(name, patch)
	if err != nil {
		return nil, err
	}
	if s.patched == nil {
		s.patched = map[string]*Server{}
	}
	s.patched[key] = p
	return p, nil
}

func (s *Server) patch(name string, patch []byte) (*Server, error) {
	var base *apiextensionsv1.CustomResourceDefinition
	for _, c := range s.CRDs() {
		if c.Name == name {
			base = c
		}
	}
	if base == nil {
		for _, msg := range s.refused {
			// A variant of a CRD the server would refuse: the patch
			// changes nothing of that.
			if strings.Contains(msg, "CRD "+name+" (") {
				return nil, errors.New(msg)
			}
		}
		return nil, fmt.Errorf("no CRD %s to patch", name)
	}
	js, err := json.Marshal(base)
	if err != nil {
		return nil, err
	}
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, fmt.Errorf("CRD patch: %w", err)
	}
	if js, err = p.Apply(js); err != nil {
		return nil, fmt.Errorf("CRD patch: %w", err)
	}
	d := crd.Decode(js)
	if d.Object() == nil {
		return nil, fmt.Errorf("the patched CRD %s: %v", name, d.DecodeError)
	}
	return s.replaced(name, d, name+" (patched)"), nil
}

// replaced is a Server whose CRD name is d instead.
func (s *Server) replaced(name string, d *crd.Definition, from string) *Server {
	out := newServer()
	out.Namespace, out.FieldValidation, out.refused = s.Namespace, s.FieldValidation, s.refused
	for _, od := range s.defs {
		if od.Name() != name {
			out.defs = append(out.defs, od)
			out.cat.Add(crd.FromV1(od.Object()), od.Name(), crd.Extra)
		}
	}
	out.defs = append(out.defs, d)
	out.cat.Add(d, from, crd.Extra)
	return out
}

// Versioned is a Server whose CRD name serves and stores only version, as
// openshift/api's generator installs a suite's CRD (loadVersionedCRD: the
// suite's version: is the only one kept, served and made the storage
// version), so a suite may test a version that is not the storage one.
// A Server without the CRD (a refused variant's) is returned as it is.
func (s *Server) Versioned(name, version string) (*Server, error) {
	key := name + "\x00version\x00" + version
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.patched[key]; ok {
		return p, nil
	}
	var base *apiextensionsv1.CustomResourceDefinition
	for _, c := range s.CRDs() {
		if c.Name == name {
			base = c.DeepCopy()
		}
	}
	if base == nil {
		return s, nil
	}
	var keep []apiextensionsv1.CustomResourceDefinitionVersion
	for _, v := range base.Spec.Versions {
		if v.Name == version {
			v.Served, v.Storage = true, true
			keep = append(keep, v)
		}
	}
	if len(keep) == 0 {
		// The generator's words.
		return nil, fmt.Errorf("could not find CRD version matching version %s", version)
	}
	base.Spec.Versions = keep
	out := s.replaced(name, crd.FromV1(base), name+" (version "+version+")")
	if s.patched == nil {
		s.patched = map[string]*Server{}
	}
	s.patched[key] = out
	return out, nil
}

// variant is the Server of CRDs[i] and the CRDs of other names: one of
// several CRDs of a name (openshift's feature sets), which the suites of
// that name share, each compiled once (compiling a CRD's schemas and
// rules, and judging it, are most of a suite's time). An i past CRDs
// names one of refusedCRDs: its Server has no CRD of that name, and
// answers requests for its kind with the refusal.
func (s *Server) variant(i int, name string) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.variants[i]; ok {
		return v
	}
	refused := i >= len(s.defs)
	v := s.Only(func(j int, c *apiextensionsv1.CustomResourceDefinition) bool {
		return (j == i && !refused) || c.Name != name
	})
	if refused {
		gk := schema.GroupKind{Group: s.refusedDefs[i-len(s.defs)].Spec.Group, Kind: s.refusedDefs[i-len(s.defs)].Spec.Names.Kind}
		v.refused = map[schema.GroupKind]string{gk: fmt.Sprintf("%s: the API server would refuse CRD %s (kubectl crdlint check %s tells why)", s.refusedFrom[i-len(s.defs)], name, s.refusedFrom[i-len(s.defs)])}
		v.refusedDefs, v.refusedFrom = s.refusedDefs[i-len(s.defs):i-len(s.defs)+1], s.refusedFrom[i-len(s.defs):i-len(s.defs)+1]
	}
	if s.variants == nil {
		s.variants = map[int]*Server{}
	}
	s.variants[i] = v
	return v
}

// refusedCRDs are the CRDs the API server would refuse, after CRDs in
// variant's numbering.
func (s *Server) refusedCRDs() []*apiextensionsv1.CustomResourceDefinition {
	out := make([]*apiextensionsv1.CustomResourceDefinition, len(s.refusedDefs))
	for i, c := range s.refusedDefs {
		out[i] = c.DeepCopy()
	}
	return out
}

// Only is a Server of the CRDs for which keep (given each CRD's index in
// CRDs) is true.
func (s *Server) Only(keep func(i int, c *apiextensionsv1.CustomResourceDefinition) bool) *Server {
	out := newServer()
	out.Namespace, out.FieldValidation, out.refused = s.Namespace, s.FieldValidation, s.refused
	for i, d := range s.defs {
		if c := d.Object(); keep(i, c) {
			out.defs = append(out.defs, d)
			out.cat.Add(crd.FromV1(c), c.Name, crd.Extra)
		}
	}
	return out
}

func objectName(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	if n := str(md["name"]); n != "" {
		return n
	}
	if g := str(md["generateName"]); g != "" {
		return engine.GenerateName(g)
	}
	return ""
}

func str(v any) string { s, _ := v.(string); return s }

func deepCopy(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return runtime.DeepCopyJSON(m)
}

// statusOf is err's Status, for comparisons.
func statusOf(err *apierrors.StatusError) metav1.Status { return err.ErrStatus }
