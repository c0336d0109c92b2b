package cluster

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	sigsyaml "sigs.k8s.io/yaml"
)

// DefaultChunkSize is kubectl get's page size.
const DefaultChunkSize = 500

// CRDResource is the resource of CustomResourceDefinitions.
var CRDResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// Flags are kubectl's connection flags plus -A and --chunk-size.
type Flags struct {
	Config        *genericclioptions.ConfigFlags
	AllNamespaces bool
	ChunkSize     int64
	// UserAgent names the client to the server.
	UserAgent string
}

// NewFlags returns the flags with kubectl's defaults. The discovery cache
// directory flag is left out: this tool keeps discovery in memory and
// writes nothing.
func NewFlags() *Flags {
	cf := genericclioptions.NewConfigFlags(true)
	cf.CacheDir = nil
	return &Flags{Config: cf, ChunkSize: DefaultChunkSize}
}

// AddFlags registers the flags.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	f.Config.AddFlags(fs)
	fs.BoolVarP(&f.AllNamespaces, "all-namespaces", "A", false, "With --live: read the objects of every namespace; -n is ignored")
	fs.Int64Var(&f.ChunkSize, "chunk-size", DefaultChunkSize, "With --live: fetch lists in pages of this many objects (0 fetches whole lists at once)")
}

// Namespace is the namespace kubectl would use: -n, else the current
// context's, else "default". It reads the kubeconfig but no network.
func (f *Flags) Namespace() (string, error) {
	ns, _, err := f.Config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", Describe(err, "")
	}
	return ns, nil
}

// Client talks to one cluster. It is safe for use by one goroutine at a
// time except where a method says otherwise.
type Client struct {
	config    *rest.Config
	host      string
	namespace string
	all       bool
	chunk     int64

	once    sync.Once
	mapper  meta.RESTMapper
	disc    discovery.CachedDiscoveryInterface
	dyn     *dynamic.DynamicClient
	initErr error

	sawClusterScoped bool
}

// SawClusterScoped reports whether Visit read a cluster-scoped resource.
func (c *Client) SawClusterScoped() bool { return c.sawClusterScoped }

// NewClient loads the kubeconfig and the flags; it does not connect yet.
func (f *Flags) NewClient() (*Client, error) {
	cfg, err := f.Config.ToRESTConfig()
	if err != nil {
		return nil, Describe(err, "")
	}
	cfg = rest.CopyConfig(cfg)
	// Server warnings about the objects we read are not ours to print,
	// and client-go would log them through klog.
	cfg.WarningHandler = rest.NoWarnings{}
	if f.UserAgent != "" {
		cfg.UserAgent = f.UserAgent
	}
	ns, err := f.Namespace()
	if err != nil {
		return nil, err
	}
	if f.ChunkSize < 0 {
		return nil, fmt.Errorf("--chunk-size must not be negative")
	}
	return &Client{config: cfg, host: redactHost(cfg.Host), namespace: ns, all: f.AllNamespaces, chunk: f.ChunkSize}, nil
}

// Host is the server's address with any user information removed.
func (c *Client) Host() string { return c.host }

// Namespace is the namespace used for namespaced references without -A.
func (c *Client) Namespace() string { return c.namespace }

func (c *Client) init() error {
	c.once.Do(func() {
		dcfg := rest.CopyConfig(c.config)
		// kubectl's discovery burst: discovery is many small requests.
		dcfg.Burst = 300
		dc, err := discovery.NewDiscoveryClientForConfig(dcfg)
		if err != nil {
			c.initErr = Describe(err, c.host)
			return
		}
		c.disc = memory.NewMemCacheClient(dc)
		c.mapper = restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(c.disc), c.disc, func(string) {})
		c.dyn, err = dynamic.NewForConfig(c.config)
		if err != nil {
			c.initErr = Describe(err, c.host)
		}
	})
	return c.initErr
}

// ServerVersion is the version the server reports (/version, as kubectl
// version reads it).
func (c *Client) ServerVersion() (*version.Info, error) {
	if err := c.init(); err != nil {
		return nil, err
	}
	v, err := c.disc.ServerVersion()
	if err != nil {
		return nil, Describe(err, c.host)
	}
	return v, nil
}

// ref is one parsed resource reference: a resource and optional names.
type ref struct {
	resource string
	names    []string
}

// parseRefs reads kubectl's argument forms: TYPE[,TYPE...] [NAME...] or
// TYPE/NAME... (not mixed).
func parseRefs(args []string) ([]ref, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no resource given: e.g. crds, crd/NAME, widgets.example.com or widgets.example.com/NAME")
	}
	slash := 0
	for _, a := range args {
		if strings.Contains(a, "/") {
			slash++
		}
	}
	var out []ref
	switch {
	case slash == len(args):
		for _, a := range args {
			typ, name, _ := strings.Cut(a, "/")
			if typ == "" || name == "" || strings.Contains(name, "/") {
				return nil, fmt.Errorf("arguments in resource/name form must have a single resource and name: %q", a)
			}
			out = append(out, ref{resource: typ, names: []string{name}})
		}
	case slash > 0:
		return nil, fmt.Errorf("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'crd/NAME' instead of 'crd NAME')")
	default:
		var names []string
		if len(args) > 1 {
			names = args[1:]
		}
		for _, typ := range strings.Split(args[0], ",") {
			if typ == "" {
				return nil, fmt.Errorf("empty resource type in %q", args[0])
			}
			out = append(out, ref{resource: typ, names: names})
		}
	}
	return out, nil
}

// mapping resolves a resource argument as kubectl does: plural, singular
// or short name, optionally with .version.group or .group.
func (c *Client) mapping(arg string) (*meta.RESTMapping, error) {
	gvr, gr := schema.ParseResourceArg(strings.ToLower(arg))
	var gvk schema.GroupVersionKind
	var err error
	if gvr != nil {
		gvk, err = c.mapper.KindFor(*gvr)
	}
	if gvk.Empty() {
		gvk, err = c.mapper.KindFor(gr.WithVersion(""))
	}
	if err != nil || gvk.Empty() {
		if err == nil || meta.IsNoMatchError(err) {
			return nil, &Error{Msg: fmt.Sprintf("the server doesn't have a resource type %q", arg), Err: err}
		}
		return nil, Describe(err, c.host)
	}
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, Describe(err, c.host)
	}
	return m, nil
}

// Visit reads the objects that kubectl-style references name (crds,
// crd/NAME, widgets.example.com, widgets.example.com/NAME, widget NAME,
// a,b) and hands them to fn one page at a time (lists are fetched with
// limit/continue), in the server's order. fn must not keep the page.
func (c *Client) Visit(ctx context.Context, args []string, fn func(page []*unstructured.Unstructured) error) error {
	refs, err := parseRefs(args)
	if err != nil {
		return &Error{Msg: err.Error(), Err: err}
	}
	if err := c.init(); err != nil {
		return err
	}
	for _, r := range refs {
		m, err := c.mapping(r.resource)
		if err != nil {
			return err
		}
		var ri dynamic.ResourceInterface = c.dyn.Resource(m.Resource)
		namespaced := m.Scope.Name() == meta.RESTScopeNameNamespace
		if !namespaced {
			c.sawClusterScoped = true
		}
		if len(r.names) > 0 && namespaced && c.all {
			return &Error{Msg: "a resource cannot be retrieved by name across all namespaces: use -n instead of -A"}
		}
		if namespaced && !c.all {
			ri = c.dyn.Resource(m.Resource).Namespace(c.namespace)
		}
		for _, name := range r.names {
			u, err := ri.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return Describe(err, c.host)
			}
			if err := fn([]*unstructured.Unstructured{u}); err != nil {
				return err
			}
		}
		if len(r.names) > 0 {
			continue
		}
		opts := metav1.ListOptions{Limit: c.chunk}
		for {
			list, err := ri.List(ctx, opts)
			if err != nil {
				return Describe(err, c.host)
			}
			page := make([]*unstructured.Unstructured, len(list.Items))
			for i := range list.Items {
				page[i] = &list.Items[i]
			}
			if err := fn(page); err != nil {
				return err
			}
			opts.Continue = list.GetContinue()
			if opts.Continue == "" {
				break
			}
		}
	}
	return nil
}

// VersionNotServedError: the cluster serves the kind, but not in the
// version asked for (a new revision's version, say).
type VersionNotServedError struct {
	GVK    schema.GroupVersionKind
	Served string // a version the cluster serves the kind in
}

func (e *VersionNotServedError) Error() string {
	return fmt.Sprintf("the cluster does not serve %s, Kind=%s (it serves version %s)", e.GVK.GroupVersion(), e.GVK.Kind, e.Served)
}

// Get reads one object by its kind and name, as kubectl get does with the
// object's apiVersion (the server converts to it). A missing object is
// (nil, nil); so is a kind the server does not serve at all. A kind served
// in other versions only is a *VersionNotServedError.
func (c *Client) Get(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	if err := c.init(); err != nil {
		return nil, err
	}
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		if other, err := c.mapper.RESTMapping(gvk.GroupKind()); err == nil {
			return nil, &VersionNotServedError{GVK: gvk, Served: other.GroupVersionKind.Version}
		}
		return nil, nil
	}
	if err != nil {
		return nil, Describe(err, c.host)
	}
	ri := c.dyn.Resource(m.Resource)
	var u *unstructured.Unstructured
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		if namespace == "" {
			namespace = c.namespace
		}
		u, err = ri.Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	} else {
		u, err = ri.Get(ctx, name, metav1.GetOptions{})
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Describe(err, c.host)
	}
	return u, nil
}

// CRDFor reads the CRD that defines a group and kind, or (nil, nil) when
// the server serves the kind without a CRD (a built-in or aggregated API)
// or does not know it.
func (c *Client) CRDFor(ctx context.Context, gvk schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	if err := c.init(); err != nil {
		return nil, err
	}
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		// The version may no longer be served: any version will do to
		// find the resource name.
		m, err = c.mapper.RESTMapping(gvk.GroupKind())
	}
	if meta.IsNoMatchError(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Describe(err, c.host)
	}
	if m.Resource.Group == "" || !strings.Contains(m.Resource.Group, ".") {
		return nil, nil // core and other built-in groups have no CRDs
	}
	u, err := c.dyn.Resource(CRDResource).Get(ctx, m.Resource.Resource+"."+m.Resource.Group, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Describe(err, c.host)
	}
	return u, nil
}

// Name is how an object read from the cluster is named in reports:
// cluster/NAMESPACE/RESOURCE.GROUP/NAME, or cluster/RESOURCE.GROUP/NAME for
// cluster-scoped objects. RESOURCE is lower-case kind plural when the
// mapping is unknown.
func Name(u *unstructured.Unstructured, resource schema.GroupResource) string {
	res := resource.String()
	if resource.Resource == "" {
		gvk := u.GroupVersionKind()
		res = strings.ToLower(gvk.GroupKind().String())
	}
	if ns := u.GetNamespace(); ns != "" {
		return "cluster/" + ns + "/" + res + "/" + u.GetName()
	}
	return "cluster/" + res + "/" + u.GetName()
}

// Resource maps an object's kind to its resource through discovery; the
// zero value when unknown. Safe for concurrent use after the first call.
func (c *Client) Resource(gvk schema.GroupVersionKind) schema.GroupResource {
	if c.init() != nil {
		return schema.GroupResource{}
	}
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return schema.GroupResource{}
	}
	return m.Resource.GroupResource()
}

// Render prints an object as `kubectl get -o yaml` does: keys sorted,
// managed fields omitted. The lines of findings refer to this text.
func Render(u *unstructured.Unstructured) ([]byte, error) {
	obj := u.Object
	if _, ok, _ := unstructured.NestedFieldNoCopy(obj, "metadata", "managedFields"); ok {
		obj = runtime.DeepCopyJSON(obj)
		unstructured.RemoveNestedField(obj, "metadata", "managedFields")
	}
	return sigsyaml.Marshal(obj)
}
