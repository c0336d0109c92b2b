package crd

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apidiscoveryv2beta1 "k8s.io/api/apidiscovery/v2beta1"
	imagepolicyv1alpha1 "k8s.io/api/imagepolicy/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	apiserverv1alpha1 "k8s.io/apiserver/pkg/apis/apiserver/v1alpha1"
	apiserverv1beta1 "k8s.io/apiserver/pkg/apis/apiserver/v1beta1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clientauthv1 "k8s.io/client-go/pkg/apis/clientauthentication/v1"
	clientauthv1beta1 "k8s.io/client-go/pkg/apis/clientauthentication/v1beta1"
	kubeconfigv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"
	kubeproxyv1alpha1 "k8s.io/kube-proxy/config/v1alpha1"
	kubeschedulerv1 "k8s.io/kube-scheduler/config/v1"
	kubeletv1 "k8s.io/kubelet/config/v1"
	kubeletv1alpha1 "k8s.io/kubelet/config/v1alpha1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	credentialproviderv1 "k8s.io/kubelet/pkg/apis/credentialprovider/v1"
	credentialproviderv1alpha1 "k8s.io/kubelet/pkg/apis/credentialprovider/v1alpha1"
	credentialproviderv1beta1 "k8s.io/kubelet/pkg/apis/credentialprovider/v1beta1"
)

// builtinSchemes register every kind a Kubernetes API server knows
// without a CRD: client-go's scheme (the groups of k8s.io/api that
// kube-apiserver serves), the groups of k8s.io/api client-go leaves out
// because the server sends rather than serves them (admission and
// image-policy reviews, discovery documents), apiextensions.k8s.io's
// ConversionReview, and the aggregator's apiregistration.k8s.io, which
// kube-apiserver serves itself (APIService). TestBuiltinKinds checks that
// every group version of k8s.io/api is here.
var builtinSchemes = []func(*runtime.Scheme) error{
	clientgoscheme.AddToScheme,
	admissionv1.AddToScheme, admissionv1beta1.AddToScheme,
	apidiscoveryv2.AddToScheme, apidiscoveryv2beta1.AddToScheme,
	imagepolicyv1alpha1.AddToScheme,
	apiextensionsv1.AddToScheme, apiextensionsv1beta1.AddToScheme,
	apiregistrationv1.AddToScheme, apiregistrationv1beta1.AddToScheme,
}

// configSchemes register the configuration APIs of Kubernetes' own
// components: files in the shape of objects that a component reads from
// disk and no API server serves (audit policies, the API server's
// admission, authentication, authorization, encryption, egress and
// tracing configuration, kubeconfigs, exec credentials, the kubelet's,
// kube-proxy's and kube-scheduler's configuration, kubelet credential
// providers).
var configSchemes = []func(*runtime.Scheme) error{
	auditv1.AddToScheme,
	apiserverv1.AddToScheme, apiserverv1alpha1.AddToScheme, apiserverv1beta1.AddToScheme,
	kubeconfigv1.AddToScheme,
	clientauthv1.AddToScheme, clientauthv1beta1.AddToScheme,
	kubeletv1.AddToScheme, kubeletv1alpha1.AddToScheme, kubeletv1beta1.AddToScheme,
	credentialproviderv1.AddToScheme, credentialproviderv1alpha1.AddToScheme, credentialproviderv1beta1.AddToScheme,
	kubeproxyv1alpha1.AddToScheme,
	kubeschedulerv1.AddToScheme,
}

// ConfigGroups are the API groups of tool configuration that no library
// this program links defines: every kind of these groups is a file some
// tool reads, never an object an API server serves.
var ConfigGroups = []string{
	"kustomize.config.k8s.io",              // kustomize: Kustomization, Component
	"config.kubernetes.io",                 // KRM functions (kustomize, kpt): ResourceList
	"kpt.dev",                              // kpt: Kptfile
	"kind.x-k8s.io",                        // kind: Cluster
	"kubeadm.k8s.io",                       // kubeadm: ClusterConfiguration, InitConfiguration, ...
	"kubecontrollermanager.config.k8s.io",  // kube-controller-manager
	"cloudcontrollermanager.config.k8s.io", // cloud-controller-manager
	"apiserver.k8s.io",                     // kube-apiserver before apiserver.config.k8s.io: AdmissionConfiguration
	"pod-security.admission.config.k8s.io", // the PodSecurity admission plugin: PodSecurityConfiguration
	"eventratelimit.admission.k8s.io",      // the EventRateLimit admission plugin: Configuration
	"componentconfig",                      // components before Kubernetes 1.10
	"controller-runtime.sigs.k8s.io",       // controller-runtime: ControllerManagerConfig
	"scorecard.operatorframework.io",       // operator-sdk scorecard: Configuration
	"krew.googlecontainertools.github.com", // krew plugin manifests: Plugin
	"ctlptl.dev",                           // ctlptl: Cluster, Registry
	"k3d.io",                               // k3d: Simple
	"config.kwok.x-k8s.io",                 // kwok: KwokConfiguration, KwokctlConfiguration
	"kuttl.dev",                            // kuttl: TestSuite, TestStep, TestAssert
	"chainsaw.kyverno.io",                  // chainsaw: Test, Configuration
	"cli.kyverno.io",                       // the kyverno CLI: Test (kyverno-test.yaml), Values, Context, UserInfo, ClusterResource
	"skaffold",                             // skaffold: Config (apiVersion skaffold/v4beta11)
	"eksctl.io",                            // eksctl: ClusterConfig
	"backstage.io",                         // Backstage's software catalog (catalog-info.yaml): Component, Resource, System, API, ...
	"scaffolder.backstage.io",              // Backstage's software templates: Template
	"meta.pkg.crossplane.io",               // a Crossplane package's crossplane.yaml: Provider, Configuration, Function
	"crdlint.dev",                          // kubectl crdlint test: CRDTestSuite (pkg/crdtest)
}

// ConfigKindsKnown are single kinds of well-known tools' configuration in
// groups that also have served kinds (so the group cannot be listed).
var ConfigKindsKnown = []schema.GroupKind{
	{Group: "gateway.envoyproxy.io", Kind: "EnvoyGateway"}, // Envoy Gateway's own configuration (its EnvoyProxy is a CRD)
	// Gateway API's conformance reports, which implementations keep in
	// their repositories to submit upstream: the conformance suite writes
	// them, no CRD defines the kind.
	{Group: "gateway.networking.k8s.io", Kind: "ConformanceReport"},
	// The kyverno CLI's kyverno-test.yaml before cli.kyverno.io: the CLI
	// reads the file by its name and ignores its apiVersion; kyverno.io
	// serves policies, and no Test.
	{Group: "kyverno.io", Kind: "Test"},
	// kuttl before kuttl.dev, when it was KUDO's test harness: kudo.dev
	// serves KUDO's Operator, OperatorVersion and Instance.
	{Group: "kudo.dev", Kind: "TestSuite"},
	{Group: "kudo.dev", Kind: "TestStep"},
	{Group: "kudo.dev", Kind: "TestAssert"},
}

// kinds is what the schemes say, built once.
var kinds = func() struct {
	builtin       map[schema.GroupKind]bool
	config        map[schema.GroupKind]bool
	configGroups  map[string]bool
	builtinGroups map[string]bool
} {
	k := struct {
		builtin       map[schema.GroupKind]bool
		config        map[schema.GroupKind]bool
		configGroups  map[string]bool
		builtinGroups map[string]bool
	}{map[schema.GroupKind]bool{}, map[schema.GroupKind]bool{}, map[string]bool{}, map[string]bool{}}
	for gvk := range schemeKinds(builtinSchemes) {
		k.builtin[gvk.GroupKind()] = true
		k.builtinGroups[gvk.Group] = true
	}
	for gvk := range schemeKinds(configSchemes) {
		gk := gvk.GroupKind()
		if k.builtin[gk] {
			continue // a meta kind every group version registers
		}
		k.config[gk] = true
		if gvk.Group != "" && !k.builtinGroups[gvk.Group] {
			// A component's configuration group holds nothing served.
			k.configGroups[gvk.Group] = true
		}
	}
	for _, g := range ConfigGroups {
		k.configGroups[g] = true
	}
	for _, gk := range ConfigKindsKnown {
		k.config[gk] = true
	}
	return k
}()

func schemeKinds(adds []func(*runtime.Scheme) error) map[schema.GroupVersionKind]bool {
	s := runtime.NewScheme()
	for _, add := range adds {
		if err := add(s); err != nil {
			panic(fmt.Sprintf("register a built-in API: %v", err))
		}
	}
	out := map[schema.GroupVersionKind]bool{}
	for gvk := range s.AllKnownTypes() {
		if gvk.Version != runtime.APIVersionInternal {
			out[gvk] = true
		}
	}
	return out
}

// BuiltinGroupKind reports whether a kind is built into the API server.
func BuiltinGroupKind(gk schema.GroupKind) bool { return kinds.builtin[gk] }

// BuiltinGroup reports whether an API group is built into the server (""
// is the core group): its kinds come with the server, and a kind it does
// not have is one removed from it or misspelt, which no CRD could add.
func BuiltinGroup(group string) bool { return kinds.builtinGroups[group] }

// BuiltinKindGroups are the built-in groups that have a kind of this
// name, sorted ("" the core group): where a kind sent in the wrong group
// belongs (Pod as apps/v1).
func BuiltinKindGroups(kind string) []string {
	var out []string
	for gk := range kinds.builtin {
		if gk.Kind == kind {
			out = append(out, gk.Group)
		}
	}
	slices.Sort(out)
	return out
}

// ConfigGroupKind reports whether a kind is the well-known configuration
// of a tool (see ConfigGroups and the component configuration APIs).
func ConfigGroupKind(gk schema.GroupKind) bool {
	return kinds.config[gk] || kinds.configGroups[gk.Group]
}

// ConfigKinds are more kinds of tool configuration than the well-known
// ones: a project's own component configuration (.crdlint.yaml's
// configKinds:). The zero value and nil name none.
type ConfigKinds struct {
	kinds  map[schema.GroupKind]bool
	groups map[string]bool
	// entries are the kinds as given, for the cache key.
	entries []string
}

// NewConfigKinds returns the kinds given: a Kind of "*" names every kind
// of its group (config.ParseConfigKind reads .crdlint.yaml's entries).
// None gives nil.
func NewConfigKinds(kinds []schema.GroupKind) *ConfigKinds {
	if len(kinds) == 0 {
		return nil
	}
	c := &ConfigKinds{kinds: map[schema.GroupKind]bool{}, groups: map[string]bool{}}
	for _, gk := range kinds {
		if gk.Kind == "*" {
			c.groups[gk.Group] = true
		} else {
			c.kinds[gk] = true
		}
		c.entries = append(c.entries, gk.String())
	}
	slices.Sort(c.entries)
	return c
}

// Has reports whether the kinds include gk.
func (c *ConfigKinds) Has(gk schema.GroupKind) bool {
	return c != nil && (c.kinds[gk] || c.groups[gk.Group])
}

// String lists the entries, sorted: what a cache keys on.
func (c *ConfigKinds) String() string {
	if c == nil {
		return ""
	}
	return strings.Join(c.entries, ",")
}
