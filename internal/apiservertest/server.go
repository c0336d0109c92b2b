package apiservertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	discoveryendpoint "k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"go.etcd.io/etcd/client/v3/kubernetes"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	extensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	"k8s.io/apiextensions-apiserver/pkg/cmd/server/options"
	generatedopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/storage/etcd3/testserver"
	"k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/util/openapi"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	basecompatibility "k8s.io/component-base/compatibility"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
)

func init() {
	// Several servers in one binary would each try to reconfigure global
	// logging; StartTestServer does the same.
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
}

// AdminUser is the name of the user every server has, in system:masters.
const AdminUser = "admin"

// Options configures a server. The zero value gives a server with only the
// admin user.
type Options struct {
	// Users are accepted besides the admin, each by its bearer token.
	Users []User
	// Deny lists the resource requests answered with 403 Forbidden.
	// Everything else is allowed to every authenticated user.
	Deny []Rule
	// Version, when set, is the Kubernetes version the server reports at
	// /version (what kubectl version and discovery read), such as
	// "1.36.2": a cluster of another release, for the clients that act
	// on it. What the server does stays its libraries' own. By default it
	// reports those libraries' version.
	Version string
	// Logs, when set, receives the server's klog output. By default it is
	// discarded. klog is global: this affects the whole test binary.
	Logs io.Writer
}

// User is a bearer token and who it authenticates as.
type User struct {
	Name   string
	Token  string
	Groups []string
}

// Rule matches resource requests to deny. An empty field matches anything,
// except User, which must be set (the admin cannot be denied).
type Rule struct {
	User     string
	Verb     string // get, list, watch, create, update, patch, delete, ...
	Group    string // API group; "" matches any group
	Resource string // plural resource name, e.g. "widgets"
}

func (r Rule) matches(a authorizer.Attributes) bool {
	return a.GetUser().GetName() == r.User &&
		(r.Verb == "" || r.Verb == a.GetVerb()) &&
		(r.Group == "" || r.Group == a.GetAPIGroup()) &&
		(r.Resource == "" || r.Resource == a.GetResource())
}

// Server is a running apiextensions-apiserver with its own etcd.
type Server struct {
	// URL is the https URL of the server on 127.0.0.1.
	URL string
	// CAData is the PEM of the CA that signed the serving certificate.
	CAData []byte
	// Tokens maps each user name, AdminUser included, to its bearer token.
	Tokens map[string]string

	stopOnce sync.Once
	stop     func()
	// etcd and prefix: where the server stores objects, for Stored.
	etcd   *kubernetes.Client
	prefix string
}

var etcdPorts sync.Mutex

// runEtcd is testserver.RunEtcd(t, nil) with etcd's logger silenced: its
// error-level logger reports the normal shutdown as errors in every test's
// output. The lock keeps the free ports NewTestConfig picks from being
// taken by a parallel Start before etcd binds them, as RunEtcd's own lock
// does when it picks them.
func runEtcd(t testing.TB) *kubernetes.Client {
	etcdPorts.Lock()
	defer etcdPorts.Unlock()
	cfg := testserver.NewTestConfig(t)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	return testserver.RunEtcd(t, cfg)
}

var klogOnce sync.Mutex

// quietKlog sends klog to w, or nowhere. The server's controllers log at
// info level on every CRD change, which would bury a test's own output.
func quietKlog(w io.Writer) {
	klogOnce.Lock()
	defer klogOnce.Unlock()
	if w == nil {
		klog.SetLogger(logr.Discard())
		return
	}
	klog.SetLogger(funcr.New(func(prefix, args string) {
		fmt.Fprintln(w, prefix, args)
	}, funcr.Options{}))
}

// Start starts etcd and the server, waits until /healthz is ok, and
// registers Stop as a cleanup of t. It fails t when the server does not
// come up.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	// The fast loop (go test -short, make test-short) leaves out every test
	// that needs a real API server: starting etcd and the server takes
	// seconds each, and those tests are what the full suite (CI) is for.
	if testing.Short() {
		t.Skip("starts an in-process API server; run without -short (make test)")
	}
	quietKlog(opts.Logs)
	began := time.Now()

	etcd := runEtcd(t)
	dir := t.TempDir()

	srv := &Server{Tokens: map[string]string{AdminUser: randomToken()}, etcd: etcd, prefix: "/registry/" + randomToken()}
	tokens := map[string]*user.DefaultInfo{
		srv.Tokens[AdminUser]: {Name: AdminUser, Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}},
	}
	for _, u := range opts.Users {
		if u.Name == "" || u.Token == "" || u.Name == AdminUser {
			t.Fatalf("apiservertest: user %q needs a name other than %q and a token", u.Name, AdminUser)
		}
		if _, dup := tokens[u.Token]; dup {
			t.Fatalf("apiservertest: token of user %q is used twice", u.Name)
		}
		srv.Tokens[u.Name] = u.Token
		tokens[u.Token] = &user.DefaultInfo{Name: u.Name, Groups: append([]string{user.AllAuthenticated}, u.Groups...)}
	}
	for _, r := range opts.Deny {
		if r.User == "" || r.User == AdminUser {
			t.Fatalf("apiservertest: deny rule %+v must name a user other than %q", r, AdminUser)
		}
	}

	ca, err := newCA()
	if err != nil {
		t.Fatal(err)
	}
	srv.CAData = ca.certPEM
	certFile, keyFile, err := ca.writeServing(dir)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancelCause(context.Background())
	errCh, err := run(ctx, etcd.Endpoints(), srv.prefix, dir, certFile, keyFile, tokens, opts, srv)
	if err != nil {
		cancel(err)
		t.Fatalf("apiservertest: start: %v", err)
	}
	srv.stop = func() {
		cancel(errors.New("apiservertest: stopped"))
		select {
		case <-errCh:
		case <-time.After(30 * time.Second):
			t.Errorf("apiservertest: server did not stop within 30s")
		}
	}
	t.Cleanup(srv.Stop)

	if err := srv.waitHealthy(errCh); err != nil {
		t.Fatalf("apiservertest: %v", err)
	}
	t.Logf("apiservertest: server at %s ready in %v", srv.URL, time.Since(began).Round(time.Millisecond))
	return srv
}

// run mirrors k8s.io/apiextensions-apiserver/pkg/cmd/server/testing
// StartTestServer, which cannot be used as is: its authentication and
// authorization delegate to a kube-apiserver, and it takes its serving
// certificate from files of its own source tree.
func run(ctx context.Context, etcdServers []string, prefix, dir, certFile, keyFile string, tokens map[string]*user.DefaultInfo, opts Options, srv *Server) (<-chan struct{}, error) {
	deny := opts.Deny
	s := options.NewCustomResourceDefinitionsServerOptions(io.Discard, io.Discard)

	// A registry per server: the default one refuses a second registration.
	featureGate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	effectiveVersion := compatibility.DefaultKubeEffectiveVersionForTest()
	effectiveVersion.SetEmulationVersion(featureGate.EmulationVersion())
	registry := basecompatibility.NewComponentGlobalsRegistry()
	if err := registry.Register(basecompatibility.DefaultKubeComponent, effectiveVersion, featureGate); err != nil {
		return nil, err
	}
	s.ServerRunOptions.ComponentGlobalsRegistry = registry
	if err := registry.Set(); err != nil {
		return nil, err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().(*net.TCPAddr)
	srv.URL = fmt.Sprintf("https://127.0.0.1:%d", addr.Port)
	ss := s.RecommendedOptions.SecureServing
	ss.Listener, ss.BindPort, ss.BindAddress = ln, addr.Port, addr.IP
	ss.ExternalAddress = addr.IP
	ss.ServerCert.CertKey.CertFile, ss.ServerCert.CertKey.KeyFile = certFile, keyFile

	s.RecommendedOptions.Etcd.StorageConfig.Transport.ServerList = etcdServers
	s.RecommendedOptions.Etcd.StorageConfig.Prefix = prefix
	// Our own authenticator and authorizer are set below; the delegating
	// ones would call a kube-apiserver's TokenReview and SubjectAccessReview.
	s.RecommendedOptions.Authentication = nil
	s.RecommendedOptions.Authorization = nil
	// Admission plugins and priority and fairness need a core API.
	s.RecommendedOptions.Admission = nil
	s.RecommendedOptions.Features.EnablePriorityAndFairness = false
	// The options insist on a core API client to build a services lister
	// (for conversion webhooks). It points nowhere and its informers are
	// never started (see below).
	nowhere := filepath.Join(dir, "core-api.kubeconfig")
	if err := os.WriteFile(nowhere, []byte(nowhereKubeconfig), 0o600); err != nil {
		return nil, err
	}
	s.RecommendedOptions.CoreAPI.CoreAPIKubeconfigPath = nowhere
	if err := s.APIEnablement.RuntimeConfig.Set("api/all=true"); err != nil {
		return nil, err
	}

	if err := s.Complete(); err != nil {
		return nil, fmt.Errorf("complete options: %w", err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("validate options: %w", err)
	}
	config, err := s.Config()
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	gc := &config.GenericConfig.Config
	if opts.Version != "" {
		v, err := utilversion.ParseGeneric(opts.Version)
		if err != nil {
			return nil, fmt.Errorf("Options.Version: %w", err)
		}
		gc.EffectiveVersion = reportedVersion{gc.EffectiveVersion, v}
	}
	config.GenericConfig.SharedInformerFactory = nil
	config.GenericConfig.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(
		openapi.GetOpenAPIDefinitionsWithoutDisabledFeatures(generatedopenapi.GetOpenAPIDefinitions),
		openapinamer.NewDefinitionNamer(extensionsapiserver.Scheme))

	gc.Authentication.Authenticator = authenticatorfactory.NewFromTokens(tokens, gc.Authentication.APIAudiences)
	gc.Authorization.Authorizer = authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if !a.IsResourceRequest() {
			return authorizer.DecisionAllow, "", nil
		}
		for _, r := range deny {
			if r.matches(a) {
				return authorizer.DecisionDeny, "denied by apiservertest.Options.Deny", nil
			}
		}
		return authorizer.DecisionAllow, "", nil
	})
	// The server's own controllers talk to it through the loopback client,
	// whose token must authenticate and be allowed everything.
	genericapiserver.AuthorizeClientBearerToken(gc.LoopbackClientConfig, &gc.Authentication, &gc.Authorization)

	server, err := config.Complete().New(genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	// In a cluster the aggregator serves /apis; the apiextensions server
	// alone turns its root discovery off. Serve it as the generic server
	// would, from the aggregated discovery manager that the CRD discovery
	// controller fills, so that kubectl-style clients resolve short and
	// singular names of custom resources.
	gs := server.GenericAPIServer
	rootDiscovery := discoveryendpoint.WrapAggregatedDiscoveryToHandler(gs.DiscoveryGroupManager, gs.AggregatedDiscoveryGroupManager, gs.PeerAggregatedDiscoveryManager)
	gs.Handler.GoRestfulContainer.Add(rootDiscovery.GenerateWebService("/apis", metav1.APIGroupList{}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := server.GenericAPIServer.PrepareRun().RunWithContext(ctx); err != nil && ctx.Err() == nil {
			klog.Errorf("apiservertest: server exited: %v", err)
		}
	}()
	return done, nil
}

// reportedVersion is the server's effective version with another
// release's version info, which /version serves.
type reportedVersion struct {
	basecompatibility.EffectiveVersion
	v *utilversion.Version
}

func (r reportedVersion) Info() *apimachineryversion.Info {
	info := *r.EffectiveVersion.Info()
	info.Major, info.Minor = fmt.Sprint(r.v.Major()), fmt.Sprint(r.v.Minor())
	info.GitVersion = "v" + r.v.String()
	return &info
}

// The core API kubeconfig's server: port 1 of loopback refuses at once.
const nowhereKubeconfig = `apiVersion: v1
kind: Config
clusters:
- cluster: {server: "https://127.0.0.1:1"}
  name: none
contexts:
- context: {cluster: none, user: none}
  name: none
current-context: none
users:
- name: none
  user: {token: none}
`

// waitHealthy polls /healthz, which includes the post-start hooks: once it
// is ok, the CRD controllers run and a created CRD gets established.
func (s *Server) waitHealthy(exited <-chan struct{}) error {
	dc, err := discovery.NewDiscoveryClientForConfig(s.AdminConfig())
	if err != nil {
		return err
	}
	rc := dc.RESTClient()
	var last string
	err = wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		select {
		case <-exited:
			return false, errors.New("server exited while starting")
		default:
		}
		body, err := rc.Get().AbsPath("/healthz").DoRaw(ctx)
		if err != nil {
			last = fmt.Sprintf("%v: %s", err, body)
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for /healthz: %v (last: %s)", err, last)
	}
	return nil
}

// Stop stops the API server (etcd keeps running until the test ends), so
// that a test can check how a client fails against an unreachable server.
// It is safe to call more than once; Start registers it as a cleanup.
func (s *Server) Stop() {
	s.stopOnce.Do(s.stop)
}

// Config returns a client configuration for a user (AdminUser or one of
// Options.Users) that verifies the server's certificate. It panics on an
// unknown user, a bug of the test.
func (s *Server) Config(userName string) *rest.Config {
	tok, ok := s.Tokens[userName]
	if !ok {
		panic(fmt.Sprintf("apiservertest: no user %q", userName))
	}
	return &rest.Config{
		Host:            s.URL,
		BearerToken:     tok,
		TLSClientConfig: rest.TLSClientConfig{CAData: append([]byte(nil), s.CAData...)},
		QPS:             -1, // no client-side throttling: tests make many requests
		Timeout:         30 * time.Second,
	}
}

// AdminConfig is Config(AdminUser).
func (s *Server) AdminConfig() *rest.Config { return s.Config(AdminUser) }

func randomToken() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// sanitize makes a user name usable in a file name.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == os.PathSeparator || r == ':' {
			return '_'
		}
		return r
	}, s)
}
