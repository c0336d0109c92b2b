// Package apiservertest starts a real Kubernetes API server inside the test
// binary: the apiextensions-apiserver (the part of kube-apiserver that
// serves CustomResourceDefinitions and custom resources) backed by an etcd
// that also runs in-process (k8s.io/apiserver/pkg/storage/etcd3/testserver).
//
// Why: crdlint's principle is that the API server is ground truth. Tests
// that compare crdlint with the server, or that run the CLI against a
// cluster, need the server's real answers (status causes, warning headers,
// 401 and 403 responses, TLS) rather than fakes. No external binary, no
// envtest download and no network are needed: etcd and the server listen on
// the loopback interface only.
//
// What differs from a cluster, on purpose:
//
//   - Authentication is a static table of bearer tokens (an admin in
//     system:masters plus Options.Users); any other token, or none, gets
//     401 Unauthorized.
//   - Authorization allows everything except the requests matched by
//     Options.Deny, which get a real 403 Forbidden naming the verb and the
//     resource. Non-resource requests (discovery, /openapi, /version,
//     /healthz) are always allowed, so a denied user still discovers.
//   - There is no core API (no namespaces, no services) and admission is
//     off, so namespaced custom resources can be created in any namespace,
//     "default" or another, without a Namespace object.
//   - Serving uses a fresh ECDSA certificate signed by a fresh CA per
//     server; Server.CAData is that CA, for kubeconfigs.
//   - klog output is discarded (Options.Logs to keep it), so the server's
//     controllers do not flood test logs. One thing still reaches stderr:
//     the stack of a panic in a request handler, which net/http prints
//     through the error log the server points at os.Stderr (some invalid
//     CRDs make the server's validation panic; crdlint reports those as
//     crd-server-panic).
//
// Startup takes about a second or two (etcd plus the server's post-start
// hooks); several servers can run one after the other, or side by side,
// in one test binary.
//
// Example:
//
//	func TestSomething(t *testing.T) {
//		srv := apiservertest.Start(t, apiservertest.Options{
//			Users: []apiservertest.User{{Name: "viewer", Token: "viewer-token"}},
//			Deny:  []apiservertest.Rule{{User: "viewer", Verb: "list", Group: "example.com", Resource: "widgets"}},
//		})
//		srv.ApplyCRD(t, crdYAML) // waits until established and discoverable
//		srv.Create(t, widgetYAML)
//		kubeconfig := srv.Kubeconfig(t, "viewer") // for the CLI under test
//		...
//		srv.Stop() // later requests get "connection refused"
//	}
package apiservertest
