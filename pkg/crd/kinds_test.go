package crd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// registeredKinds reads, from the source of the packages that match
// pattern (go list), the group of each package and the kinds its
// addKnownTypes registers: what the libraries define, read from their
// code rather than from the schemes built from it, so that a group or a
// kind the schemes miss shows.
func registeredKinds(t *testing.T, pattern string) map[schema.GroupKind]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}}", pattern).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	kinds := map[schema.GroupKind]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		pkg, dir, _ := strings.Cut(line, " ")
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "register.go"), nil, 0)
		if err != nil {
			continue // not an API group version
		}
		group, ok := "", false
		var types []string
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if name.Name == "GroupName" && i < len(n.Values) {
						if lit, isLit := n.Values[i].(*ast.BasicLit); isLit {
							group, _ = strconv.Unquote(lit.Value)
							ok = true
						}
					}
				}
			case *ast.CallExpr:
				sel, isSel := n.Fun.(*ast.SelectorExpr)
				if !isSel || sel.Sel.Name != "AddKnownTypes" {
					return true
				}
				for _, a := range n.Args[1:] {
					if u, isU := a.(*ast.UnaryExpr); isU {
						if cl, isCL := u.X.(*ast.CompositeLit); isCL {
							if id, isID := cl.Type.(*ast.Ident); isID {
								types = append(types, id.Name)
							}
						}
					}
				}
			}
			return true
		})
		if !ok || len(types) == 0 {
			continue
		}
		for _, k := range types {
			kinds[schema.GroupKind{Group: group, Kind: k}] = pkg
		}
	}
	if len(kinds) == 0 {
		t.Fatalf("go list %s: no API group registers a kind", pattern)
	}
	return kinds
}

// TestBuiltinKinds: every kind of every group version k8s.io/api defines,
// and the aggregator's APIService, is built in, never a custom resource;
// none is taken for configuration.
func TestBuiltinKinds(t *testing.T) {
	kinds := registeredKinds(t, "k8s.io/api/...")
	for gk, pkg := range registeredKinds(t, "k8s.io/kube-aggregator/pkg/apis/apiregistration/...") {
		kinds[gk] = pkg
	}
	groups := map[string]bool{}
	for gk, pkg := range kinds {
		groups[gk.Group] = true
		if !BuiltinGroupKind(gk) {
			t.Errorf("%s (%s) is not built in", gk, pkg)
		}
		if ConfigGroupKind(gk) {
			t.Errorf("%s (%s) is taken for tool configuration", gk, pkg)
		}
	}
	// The groups the server serves beyond client-go's scheme, and a few
	// kinds the server serves without storing them.
	for _, gk := range []schema.GroupKind{
		{Group: "apiregistration.k8s.io", Kind: "APIService"},
		{Group: "admission.k8s.io", Kind: "AdmissionReview"},
		{Group: "authentication.k8s.io", Kind: "TokenReview"},
		{Group: "authorization.k8s.io", Kind: "SubjectAccessReview"},
		{Group: "imagepolicy.k8s.io", Kind: "ImageReview"},
		{Group: "apiextensions.k8s.io", Kind: "ConversionReview"},
		{Group: "", Kind: "ConfigMap"},
	} {
		if !BuiltinGroupKind(gk) {
			t.Errorf("%s is not built in", gk)
		}
	}
	if len(groups) < 25 {
		t.Errorf("only %d groups read from k8s.io/api: the test reads too little", len(groups))
	}
}

// TestConfigKinds: the component configuration APIs of the libraries and
// the well-known tools' are configuration; nothing built in is.
func TestConfigKinds(t *testing.T) {
	for _, gk := range []schema.GroupKind{
		{Group: "audit.k8s.io", Kind: "Policy"},
		{Group: "kind.x-k8s.io", Kind: "Cluster"},
		{Group: "kubeadm.k8s.io", Kind: "ClusterConfiguration"},
		{Group: "kubelet.config.k8s.io", Kind: "KubeletConfiguration"},
		{Group: "kubelet.config.k8s.io", Kind: "CredentialProviderConfig"},
		{Group: "credentialprovider.kubelet.k8s.io", Kind: "CredentialProviderRequest"},
		{Group: "kubeproxy.config.k8s.io", Kind: "KubeProxyConfiguration"},
		{Group: "kubescheduler.config.k8s.io", Kind: "KubeSchedulerConfiguration"},
		{Group: "apiserver.config.k8s.io", Kind: "EncryptionConfiguration"},
		{Group: "apiserver.config.k8s.io", Kind: "AdmissionConfiguration"},
		{Group: "", Kind: "EncryptionConfig"},
		{Group: "", Kind: "Config"}, // a kubeconfig
		{Group: "client.authentication.k8s.io", Kind: "ExecCredential"},
		{Group: "scorecard.operatorframework.io", Kind: "Configuration"},
		{Group: "kustomize.config.k8s.io", Kind: "Kustomization"},
		{Group: "kustomize.config.k8s.io", Kind: "Component"},
		{Group: "gateway.envoyproxy.io", Kind: "EnvoyGateway"},
		{Group: "cli.kyverno.io", Kind: "Test"},
		{Group: "cli.kyverno.io", Kind: "Values"},
		{Group: "cli.kyverno.io", Kind: "Context"},
		{Group: "cli.kyverno.io", Kind: "UserInfo"},
		{Group: "kyverno.io", Kind: "Test"},
		{Group: "kudo.dev", Kind: "TestSuite"},
		{Group: "gateway.networking.k8s.io", Kind: "ConformanceReport"},
		{Group: "eksctl.io", Kind: "ClusterConfig"},
		{Group: "backstage.io", Kind: "Component"},
		{Group: "scaffolder.backstage.io", Kind: "Template"},
		{Group: "meta.pkg.crossplane.io", Kind: "Provider"},
	} {
		if !ConfigGroupKind(gk) {
			t.Errorf("%s is not configuration", gk)
		}
		if BuiltinGroupKind(gk) {
			t.Errorf("%s is built in", gk)
		}
	}
	for g := range kinds.configGroups {
		if kinds.builtinGroups[g] || g == "" {
			t.Errorf("configuration group %q is a group the server serves", g)
		}
	}
	// A custom resource stays one, also beside a configuration kind.
	for _, gk := range []schema.GroupKind{{Group: "example.com", Kind: "Widget"}, {Group: "gateway.envoyproxy.io", Kind: "EnvoyProxy"}, {Group: "kyverno.io", Kind: "ClusterPolicy"}, {Group: "kudo.dev", Kind: "Instance"}, {Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}, {Group: "pkg.crossplane.io", Kind: "Provider"}} {
		if ConfigGroupKind(gk) {
			t.Errorf("%s is configuration", gk)
		}
	}
}

func TestClassify(t *testing.T) {
	extra := NewConfigKinds([]schema.GroupKind{{Group: "config.example.com", Kind: "Configuration"}, {Group: "tools.example.com", Kind: "*"}})
	tests := []struct {
		name, apiVersion, kind string
		extra                  *ConfigKinds
		want                   Class
	}{
		{"CRD", "apiextensions.k8s.io/v1", "CustomResourceDefinition", nil, ClassCRD},
		{"v1beta1 CRD", "apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", nil, ClassCRD},
		{"core", "v1", "ConfigMap", nil, ClassBuiltin},
		{"aggregator", "apiregistration.k8s.io/v1", "APIService", nil, ClassBuiltin},
		{"audit policy", "audit.k8s.io/v1", "Policy", nil, ClassConfig},
		{"kind", "kind.x-k8s.io/v1alpha4", "Cluster", nil, ClassConfig},
		{"custom resource", "example.com/v1", "Widget", nil, ClassCustomResource},
		{"project config, not named", "config.example.com/v1", "Configuration", nil, ClassCustomResource},
		{"project config, named", "config.example.com/v1", "Configuration", extra, ClassConfig},
		{"group named", "tools.example.com/v1beta1", "Anything", extra, ClassConfig},
		{"other kind of a named kind's group", "config.example.com/v1", "Widget", extra, ClassCustomResource},
		{"built in wins over configKinds", "v1", "ConfigMap", NewConfigKinds([]schema.GroupKind{{Kind: "ConfigMap"}}), ClassBuiltin},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &source.Document{}
			d.Object.APIVersion, d.Object.Kind = tt.apiVersion, tt.kind
			if got := Classify(d, tt.extra); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

// A document no cluster could serve (a group without a dot that is no
// built-in group, and no metadata) is a tool's data, not an object to
// apply; with metadata, a misspelt group stays an object kubectl refuses.
func TestClassifyUnservable(t *testing.T) {
	tests := []struct {
		name, text string
		want       Class
	}{
		{"istio release note", "apiVersion: release-notes/v2\nkind: feature\narea: security\nreleaseNotes:\n- x\n", ClassConfig},
		{"misspelt group, with metadata", "apiVersion: app/v1\nkind: Deployment\nmetadata: {name: x}\n", ClassCustomResource},
		{"custom resource without metadata", "apiVersion: example.com/v1\nkind: Widget\nspec: {}\n", ClassCustomResource},
		{"built-in group without metadata", "apiVersion: apps/v1\nkind: Deployment\nspec: {}\n", ClassBuiltin},
		{"built-in group, unknown kind", "apiVersion: apps/v1\nkind: Widget\n", ClassCustomResource},
		{"core group, unknown kind", "apiVersion: v1\nkind: Widget\n", ClassCustomResource},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := source.Parse("t.yaml", []byte(tt.text))
			if len(f.Documents) != 1 {
				t.Fatalf("%d documents, findings %v", len(f.Documents), f.Findings)
			}
			if got := Classify(f.Documents[0], nil); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}
