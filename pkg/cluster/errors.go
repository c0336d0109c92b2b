package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/clientcmd"
)

// Error is a failure to read from the cluster, already said in one line.
// Commands exit 2 on it, as on an unreadable file.
type Error struct {
	Msg string
	Err error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Describe says what went wrong talking to the server at host in one
// line, the way a user can act on: unreachable, TLS, credentials, RBAC
// (naming verb and resource, in the server's words), not found,
// timeouts, kubeconfig problems. Credentials never appear: client-go's
// errors carry URLs and server messages, not tokens, and host has its
// user information removed.
func Describe(err error, host string) error {
	if err == nil {
		return nil
	}
	var ce *Error
	if errors.As(err, &ce) {
		return err
	}
	at := ""
	if host != "" {
		at = " at " + host
	}
	msg := describe(err, at)
	// Go's errors sometimes carry newlines (aggregates, TLS details).
	msg = strings.Join(strings.Fields(msg), " ")
	return &Error{Msg: msg, Err: err}
}

func describe(err error, at string) string {
	var status apierrors.APIStatus
	switch {
	case apierrors.IsUnauthorized(err):
		return fmt.Sprintf("the API server%s rejected the credentials (401 Unauthorized): check the token, client certificate or context in the kubeconfig", at)
	case apierrors.IsForbidden(err):
		return err.Error() // the server's words name the user, verb and resource
	case apierrors.IsNotFound(err):
		return err.Error()
	case apierrors.IsTimeout(err), apierrors.IsServerTimeout(err):
		return fmt.Sprintf("the API server%s timed out: %v", at, err)
	case meta.IsNoMatchError(err):
		return err.Error()
	case apierrors.IsBadRequest(err) && strings.HasPrefix(at, " at http://"):
		return fmt.Sprintf("the server%s refused a plain HTTP request: is it an https:// address?", at)
	case errors.As(err, &status):
		return fmt.Sprintf("the API server%s refused the request: %v", at, err)
	case isTimeout(err):
		return fmt.Sprintf("timed out waiting for the API server%s (raise --request-timeout, or check the address)", at)
	case isTLS(err):
		return fmt.Sprintf("TLS with the API server%s failed: %s", at, tlsReason(err))
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("cannot reach the API server%s: connection refused (is the cluster running, and --server or the kubeconfig right?)", at)
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return fmt.Sprintf("cannot reach the API server%s: no route to host", at)
	case isDNS(err):
		return fmt.Sprintf("cannot reach the API server%s: %s", at, dnsReason(err))
	case clientcmd.IsEmptyConfig(err):
		return "no cluster configured: set KUBECONFIG, pass --kubeconfig, or --server (cluster sources were asked for with --live or --crd-from-cluster)"
	case clientcmd.IsConfigurationInvalid(err):
		return "invalid kubeconfig: " + err.Error()
	case errors.Is(err, os.ErrNotExist):
		return "kubeconfig: " + err.Error()
	}
	if strings.Contains(err.Error(), "doesn't have a resource type") {
		return err.Error()
	}
	if at == "" {
		// Before any request: the kubeconfig and flags (a missing context,
		// user or cluster, an unreadable certificate file).
		return "kubeconfig: " + err.Error()
	}
	return fmt.Sprintf("reading from the API server%s: %v", at, err)
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	// http.Client's own timeout is a plain error under url.Error.
	return strings.Contains(err.Error(), "Client.Timeout exceeded") || strings.Contains(err.Error(), "i/o timeout")
}

func isTLS(err error) bool {
	var (
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
		cve *tls.CertificateVerificationError
		rh  tls.RecordHeaderError
	)
	return errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci) || errors.As(err, &cve) || errors.As(err, &rh) ||
		strings.Contains(err.Error(), "tls: ") || strings.Contains(err.Error(), "x509: ")
}

func tlsReason(err error) string {
	var rh tls.RecordHeaderError
	if errors.As(err, &rh) {
		return "the server did not answer with TLS (is it an http:// address?)"
	}
	msg := err.Error()
	if i := strings.Index(msg, "x509: "); i >= 0 {
		return msg[i:]
	}
	if i := strings.Index(msg, "tls: "); i >= 0 {
		return msg[i:]
	}
	return msg
}

func isDNS(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de)
}

func dnsReason(err error) string {
	var de *net.DNSError
	errors.As(err, &de)
	return fmt.Sprintf("cannot resolve %s", de.Name)
}

// redactHost drops user information from a server address.
func redactHost(h string) string {
	u, err := url.Parse(h)
	if err != nil || u.User == nil {
		return h
	}
	u.User = nil
	return u.String()
}
