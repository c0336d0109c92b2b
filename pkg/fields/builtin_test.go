package fields

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
)

// builtinExceptNamespace lists namespaced kinds whose conversion func does
// not accept metadata.namespace (see builtin.go).
var builtinExceptNamespace = map[string]bool{
	"certificates.k8s.io/PodCertificateRequest": true,
}

func builtinID(k Listing) string { return k.Group + "/" + k.Kind }

func builtinSelectors(k Listing) []string {
	var s []string
	for _, f := range k.Fields {
		s = append(s, f.Path)
	}
	return s
}

// TestBuiltinDesignDocKinds: every kind the design doc's table names is in
// the table, with the selectors the server accepts.
func TestBuiltinDesignDocKinds(t *testing.T) {
	tests := []struct {
		group, kind string
		want        []string
	}{
		{"", "Pod", []string{"metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"}},
		{"", "Node", []string{"metadata.name", "spec.unschedulable"}},
		{"", "Namespace", []string{"metadata.name", "status.phase"}},
		{"", "Secret", []string{"metadata.name", "metadata.namespace", "type"}},
		{"", "Event", []string{"metadata.name", "metadata.namespace", "involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"}},
		{"events.k8s.io", "Event", []string{"metadata.name", "metadata.namespace", "reason", "regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid", "regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath", "reportingController", "source", "type"}},
		{"apps", "ReplicaSet", []string{"metadata.name", "metadata.namespace"}},
		{"", "ReplicationController", []string{"metadata.name", "metadata.namespace", "status.replicas"}},
		{"batch", "Job", []string{"metadata.name", "metadata.namespace", "status.successful"}},
		{"certificates.k8s.io", "CertificateSigningRequest", []string{"metadata.name", "spec.signerName"}},
		{"", "PersistentVolume", []string{"metadata.name"}},
		{"", "PersistentVolumeClaim", []string{"metadata.name", "metadata.namespace"}},
	}
	all := Builtins()
	for _, tt := range tests {
		t.Run(tt.group+"/"+tt.kind, func(t *testing.T) {
			var found *Listing
			for i := range all {
				if all[i].Group == tt.group && all[i].Kind == tt.kind {
					found = &all[i]
				}
			}
			if found == nil {
				t.Fatalf("got no %s/%s in Builtins(), want one", tt.group, tt.kind)
			}
			if got := builtinSelectors(*found); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got selectors %q, want %q", got, tt.want)
			}
		})
	}
}

// TestBuiltinServerDisagreements pins the places where the server wins over
// the design doc.
func TestBuiltinServerDisagreements(t *testing.T) {
	tests := []struct {
		name, selector string
		want           bool // accepted
		field          string
	}{
		{"pods", "status.phase", true, "status.phase"},
		{"pods", "phase", false, ""},
		{"pods", "status.podIP", true, "status.podIPs[0].ip"},
		{"pods", "spec.hostNetwork", true, "spec.hostNetwork"},
		{"namespaces", "status.phase", true, "status.phase"},
		{"namespaces", "phase", false, ""},
		{"namespaces", "name", false, ""},
		{"pv", "name", false, ""},
		{"pvc", "name", false, ""},
		{"rs", "status.replicas", false, ""},
		{"rc", "status.replicas", true, "status.replicas"},
		{"jobs", "status.successful", true, "status.succeeded"},
		{"jobs", "status.succeeded", false, ""},
		{"ev", "source", true, "source.component"},
		{"events.events.k8s.io", "regarding.name", true, "regarding.name"},
		{"events.events.k8s.io", "involvedObject.name", false, ""},
		{"events.events.k8s.io", "reportingComponent", false, ""},
		{"nodes", "metadata.namespace", false, ""},
		{"podcertificaterequests", "metadata.namespace", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.selector, func(t *testing.T) {
			k, ok := LookupBuiltin(tt.name)
			if !ok {
				t.Fatalf("LookupBuiltin(%q): got not found, want found", tt.name)
			}
			var got *Field
			for i := range k.Fields {
				if k.Fields[i].Path == tt.selector {
					got = &k.Fields[i]
				}
			}
			if (got != nil) != tt.want {
				t.Fatalf("%s accepts %s: got %v, want %v", k.Kind, tt.selector, got != nil, tt.want)
			}
			if got != nil && got.Reads() != tt.field {
				t.Errorf("%s %s reads: got %q, want %q", k.Kind, tt.selector, got.Reads(), tt.field)
			}
		})
	}
}

func TestLookupBuiltin(t *testing.T) {
	tests := []struct {
		name             string
		wantOK           bool
		wantGroup, wantK string
	}{
		{"pods", true, "", "Pod"},
		{"pod", true, "", "Pod"},
		{"Pod", true, "", "Pod"},
		{"PODS", true, "", "Pod"},
		{"po", true, "", "Pod"},
		{" po ", true, "", "Pod"},
		{"pods.v1", true, "", "Pod"},
		{"ns", true, "", "Namespace"},
		{"no", true, "", "Node"},
		{"ev", true, "", "Event"},
		{"events", true, "", "Event"},
		{"Event", true, "", "Event"},
		{"events.events.k8s.io", true, "events.k8s.io", "Event"},
		{"event.events.k8s.io", true, "events.k8s.io", "Event"},
		{"Event.events.k8s.io", true, "events.k8s.io", "Event"},
		{"events.v1.events.k8s.io", true, "events.k8s.io", "Event"},
		{"rs", true, "apps", "ReplicaSet"},
		{"replicasets.apps", true, "apps", "ReplicaSet"},
		{"rc", true, "", "ReplicationController"},
		{"csr", true, "certificates.k8s.io", "CertificateSigningRequest"},
		{"certificatesigningrequests.certificates.k8s.io", true, "certificates.k8s.io", "CertificateSigningRequest"},
		{"pv", true, "", "PersistentVolume"},
		{"pvc", true, "", "PersistentVolumeClaim"},
		{"jobs", true, "batch", "Job"},
		{"job", true, "batch", "Job"},
		{"jobs.batch", true, "batch", "Job"},
		{"job.batch", true, "batch", "Job"},
		{"Job.batch", true, "batch", "Job"},
		{"jobs.v1.batch", true, "batch", "Job"},
		{"secret", true, "", "Secret"},
		{"svc", true, "", "Service"},
		{"deploy", true, "apps", "Deployment"},
		{"resourceslices", true, "resource.k8s.io", "ResourceSlice"},
		{"jobs.apps", false, "", ""},
		{"jobs.v2.batch", false, "", ""},
		{"pods.apps", false, "", ""},
		{"gizmos", false, "", ""},
		{"gizmos.example.com", false, "", ""},
		{"", false, "", ""},
		{".", false, "", ""},
		{"pods.", false, "", ""},
		{".pods", false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, ok := LookupBuiltin(tt.name)
			if ok != tt.wantOK {
				t.Fatalf("LookupBuiltin(%q): got ok=%v, want %v", tt.name, ok, tt.wantOK)
			}
			if k.Group != tt.wantGroup || k.Kind != tt.wantK {
				t.Errorf("LookupBuiltin(%q): got %s/%s, want %s/%s", tt.name, k.Group, k.Kind, tt.wantGroup, tt.wantK)
			}
		})
	}
}

// TestLookupBuiltinEveryName: every kind is found by each of its names.
func TestLookupBuiltinEveryName(t *testing.T) {
	for _, k := range Builtins() {
		names := append([]string{k.Kind, strings.ToLower(k.Kind), strings.ToUpper(k.Resource), k.Resource}, k.ShortNames...)
		if k.Group != "" {
			names = append(names, k.Resource+"."+k.Group, k.Kind+"."+k.Group, k.Resource+"."+k.Version+"."+k.Group)
		}
		for _, n := range names {
			got, ok := LookupBuiltin(n)
			if !ok || builtinID(got) != builtinID(k) {
				// Unqualified names shared with the core group resolve to core.
				if k.Group != "" && ok && got.Group == "" && got.Kind == k.Kind {
					continue
				}
				t.Errorf("LookupBuiltin(%q): got %s (ok=%v), want %s", n, builtinID(got), ok, builtinID(k))
			}
		}
	}
}

func TestBuiltinsSortedAndCopied(t *testing.T) {
	b := Builtins()
	if len(b) == 0 {
		t.Fatal("got no built-in kinds, want some")
	}
	if !sort.SliceIsSorted(b, func(i, j int) bool { return b[i].Kind < b[j].Kind }) {
		t.Errorf("got kinds out of order, want sorted by kind")
	}
	// Callers may not change the table.
	b[0].Fields[0].Path = "changed"
	b[0].ShortNames = append(b[0].ShortNames[:0:0], "changed")
	if got := Builtins()[0].Fields[0].Path; got != "metadata.name" {
		t.Errorf("after changing a returned kind, got %q, want metadata.name", got)
	}
	k, _ := LookupBuiltin("pods")
	k.Fields[0].Path = "changed"
	for i := range k.Fields {
		if len(k.Fields[i].Enum) > 0 {
			k.Fields[i].Enum[0] = "changed"
		}
	}
	k2, _ := LookupBuiltin("pods")
	if k2.Fields[0].Path != "metadata.name" {
		t.Errorf("after changing a looked-up kind, got %q, want metadata.name", k2.Fields[0].Path)
	}
	for _, f := range k2.Fields {
		if len(f.Enum) > 0 && f.Enum[0] == "changed" {
			t.Errorf("after changing a looked-up kind's enum, got %v, want the table's", f.Enum)
		}
	}
}

// TestBuiltinFieldsShape: metadata.name first, metadata.namespace iff
// namespaced, no duplicates, plain types, a source each, Field only where
// it differs from Path, names unique across the table.
func TestBuiltinFieldsShape(t *testing.T) {
	types := map[string]bool{"string": true, "integer": true, "boolean": true, "number": true}
	seen := map[string]string{}
	for _, k := range Builtins() {
		id := builtinID(k)
		t.Run(id, func(t *testing.T) {
			if seen[id] != "" {
				t.Errorf("got %s twice, want once", id)
			}
			seen[id] = id
			if len(k.Fields) == 0 || k.Fields[0].Path != "metadata.name" {
				t.Fatalf("got first selector %q, want metadata.name", builtinSelectors(k))
			}
			if k.CRD != "" {
				t.Errorf("got crd %q, want none for a built-in kind", k.CRD)
			}
			hasNS := false
			dup := map[string]bool{}
			for i, f := range k.Fields {
				if dup[f.Path] {
					t.Errorf("got selector %q twice, want once", f.Path)
				}
				dup[f.Path] = true
				if f.Path == "metadata.namespace" {
					hasNS = true
					if i != 1 {
						t.Errorf("got metadata.namespace at %d, want 1", i)
					}
				}
				if !types[f.Type] {
					t.Errorf("%s: got type %q, want string, integer, boolean or number", f.Path, f.Type)
				}
				if f.Field == f.Path {
					t.Errorf("%s: got Field %q, want it empty when it is the label", f.Path, f.Field)
				}
				wantSource := Builtin
				if strings.HasPrefix(f.Path, "metadata.") {
					wantSource = Implicit
				}
				if f.Source != wantSource {
					t.Errorf("%s: got source %q, want %q", f.Path, f.Source, wantSource)
				}
			}
			want := k.Namespaced && !builtinExceptNamespace[id]
			if hasNS != want {
				t.Errorf("got metadata.namespace present=%v, want %v (namespaced=%v)", hasNS, want, k.Namespaced)
			}
			if k.Version == "" || k.Kind == "" || k.Resource == "" {
				t.Errorf("got version %q kind %q resource %q, want all set", k.Version, k.Kind, k.Resource)
			}
			if k.Resource != strings.ToLower(k.Resource) {
				t.Errorf("got resource %q, want lower case", k.Resource)
			}
		})
	}
}

// TestBuiltinAgainstClientGo cross-checks each kind against client-go: the
// kind is registered in client-go's scheme at its group/version, its Field
// paths exist in the k8s.io/api type with a Go type matching Type, and the
// typed clientset has a method named for the plural resource which takes a
// namespace exactly when the kind is namespaced.
func TestBuiltinAgainstClientGo(t *testing.T) {
	clientset := reflect.TypeOf((*kubernetes.Interface)(nil)).Elem()
	for _, k := range Builtins() {
		t.Run(builtinID(k), func(t *testing.T) {
			gvk := schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
			obj, err := scheme.Scheme.New(gvk)
			if err != nil {
				t.Fatalf("client-go scheme: got %v, want %s registered", err, gvk)
			}
			typ := reflect.TypeOf(obj).Elem()
			for _, f := range k.Fields {
				ft, ok := builtinFieldType(typ, f.Reads())
				if !ok {
					t.Errorf("%s: got no field %q in %s, want one", f.Path, f.Reads(), typ)
					continue
				}
				want := map[string][]reflect.Kind{
					"string":  {reflect.String},
					"boolean": {reflect.Bool},
					"integer": {reflect.Int, reflect.Int32, reflect.Int64},
				}[f.Type]
				if !containsKind(want, ft.Kind()) {
					t.Errorf("%s: got Go kind %s for type %q, want one of %v", f.Path, ft.Kind(), f.Type, want)
				}
				// The values of a Go type k8s.io/api marks +enum, in
				// its order; none for any other.
				var values []any
				for _, v := range apiEnums(t, ft.PkgPath())[ft.Name()] {
					values = append(values, v)
				}
				if !reflect.DeepEqual(f.Enum, values) {
					t.Errorf("%s: got enum %v, want %v (%s: a type k8s.io/api marks +enum lists its constants, any other none)", f.Path, f.Enum, values, ft)
				}
			}

			accessor := builtinGroupAccessor(k.Group, k.Version)
			gm, ok := clientset.MethodByName(accessor)
			if !ok {
				t.Fatalf("got no kubernetes.Interface.%s, want one", accessor)
			}
			groupClient := gm.Type.Out(0)
			var method reflect.Method
			found := false
			for i := 0; i < groupClient.NumMethod(); i++ {
				m := groupClient.Method(i)
				if strings.ToLower(m.Name) == k.Resource {
					method, found = m, true
				}
			}
			if !found {
				t.Fatalf("got no %s.<%s> method, want one named for the resource", accessor, k.Resource)
			}
			namespaced := method.Type.NumIn() == 1 && method.Type.In(0).Kind() == reflect.String
			if namespaced != k.Namespaced {
				t.Errorf("%s.%s takes a namespace: got %v, want Namespaced=%v", accessor, method.Name, namespaced, k.Namespaced)
			}
		})
	}
}

// builtinGroupAccessor names the clientset method for a group/version:
// ("", "v1") is CoreV1, ("certificates.k8s.io", "v1") is CertificatesV1.
func builtinGroupAccessor(group, version string) string {
	name := "Core"
	if group != "" {
		first, _, _ := strings.Cut(group, ".")
		name = string(unicode.ToUpper(rune(first[0]))) + first[1:]
	}
	return name + strings.ToUpper(version[:1]) + version[1:]
}

func containsKind(ks []reflect.Kind, k reflect.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// builtinFieldType walks a JSON path ("status.podIPs[0].ip") through a Go
// API type by its json tags and returns the type of the leaf.
func builtinFieldType(t reflect.Type, path string) (reflect.Type, bool) {
	for _, seg := range strings.Split(path, ".") {
		name, index := strings.CutSuffix(seg, "[0]")
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil, false
		}
		f, ok := builtinJSONField(t, name)
		if !ok {
			return nil, false
		}
		t = f.Type
		if index {
			if t.Kind() != reflect.Slice {
				return nil, false
			}
			t = t.Elem()
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t, true
}

var (
	apiEnumsMu    sync.Mutex
	apiEnumsCache = map[string]map[string][]string{}
)

// apiEnums reads the source of the k8s.io/api package pkg, as go.mod
// pins it, for its string types marked "+enum" (the marker the
// OpenAPI generator turns into an enum) and returns each one's
// constants in declaration order; nothing for a package outside
// k8s.io/api.
func apiEnums(t *testing.T, pkg string) map[string][]string {
	t.Helper()
	rel, ok := strings.CutPrefix(pkg, "k8s.io/api/")
	if !ok {
		return nil
	}
	apiEnumsMu.Lock()
	defer apiEnumsMu.Unlock()
	if m, ok := apiEnumsCache[pkg]; ok {
		return m
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/api").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/api: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), filepath.FromSlash(rel))
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s (%v)", dir, err)
	}
	sort.Strings(files)
	enum := map[string]bool{}
	consts := map[string][]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				switch sp := spec.(type) {
				case *ast.TypeSpec:
					doc := sp.Doc
					if doc == nil {
						doc = gd.Doc
					}
					if doc != nil && strings.Contains(doc.Text(), "+enum") {
						enum[sp.Name.Name] = true
					}
				case *ast.ValueSpec:
					id, ok := sp.Type.(*ast.Ident)
					if gd.Tok != token.CONST || !ok {
						continue
					}
					for _, v := range sp.Values {
						if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							s, _ := strconv.Unquote(lit.Value)
							consts[id.Name] = append(consts[id.Name], s)
						}
					}
				}
			}
		}
	}
	m := map[string][]string{}
	for name := range enum {
		m[name] = consts[name]
	}
	apiEnumsCache[pkg] = m
	return m
}

// builtinJSONField finds the struct field serialized as name, looking
// through inlined and embedded structs.
func builtinJSONField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name {
			return f, true
		}
		if tag == "" && (f.Anonymous || strings.Contains(f.Tag.Get("json"), "inline")) {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if g, ok := builtinJSONField(ft, name); ok {
					return g, true
				}
			}
		}
	}
	return reflect.StructField{}, false
}
