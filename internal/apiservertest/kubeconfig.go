package apiservertest

import (
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Kubeconfig describes a kubeconfig file with one cluster, one user and
// one context, set as current.
type Kubeconfig struct {
	Server    string // https URL
	CAData    []byte // PEM; certificate-authority-data
	Token     string
	Namespace string // "" means "default"
	// Name names the cluster, user and context; "" means "apiservertest".
	Name string
}

// Write writes the file in a fresh temporary directory of t and returns
// its path.
func (k Kubeconfig) Write(t testing.TB) string {
	t.Helper()
	name := k.Name
	if name == "" {
		name = "apiservertest"
	}
	ns := k.Namespace
	if ns == "" {
		ns = "default"
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: k.Server, CertificateAuthorityData: k.CAData}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: k.Token}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: ns}
	cfg.CurrentContext = name
	path := filepath.Join(t.TempDir(), sanitize(name)+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// Kubeconfig writes a kubeconfig for a user (AdminUser or one of
// Options.Users) and returns its path. For a bad token or a wrong CA,
// start from KubeconfigFor, change the field, and Write it.
func (s *Server) Kubeconfig(t testing.TB, userName string) string {
	t.Helper()
	return s.KubeconfigFor(userName).Write(t)
}

// KubeconfigFor describes the kubeconfig of a user, to be changed and
// written by the caller.
func (s *Server) KubeconfigFor(userName string) Kubeconfig {
	c := s.Config(userName)
	return Kubeconfig{Server: c.Host, CAData: c.CAData, Token: c.BearerToken, Name: userName}
}
