package source

import (
	"encoding/json"
	"fmt"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// The size limits of the server an object meets, measured on the request
// body kubectl sends for it (kubectl create, and kubectl apply
// --server-side: the object's JSON and a newline; client-side apply adds
// the object a second time, in its last-applied-configuration
// annotation). test/agreement's TestSizeLimitsAreTheServers compares
// them with the libraries, TestSizeLimits with a real server.
const (
	// MaxRequestBodyBytes is the API server's bound on the body of a
	// create, update or patch: a larger one is answered 413 Request
	// Entity Too Large (k8s.io/apiserver's NewConfig, MaxRequestBodyBytes;
	// no flag changes it).
	MaxRequestBodyBytes = 3 << 20
	// EtcdMaxRequestBytes is the largest write etcd accepts by default
	// (--max-request-bytes, embed.DefaultMaxRequestBytes): a stored object
	// is its request's bulk, so a larger object fails to be stored
	// ("etcdserver: request is too large"; over 2 MiB, the API server's
	// etcd client refuses to send it first). Custom resources are stored as
	// the JSON that kubectl sends, with the server's metadata added;
	// built-in kinds as protobuf, usually smaller.
	EtcdMaxRequestBytes = 3 << 19
)

// Rule IDs of the size limits.
const (
	RuleRequestSize = "object-over-request-limit"
	RuleEtcdSize    = "object-over-etcd-limit"
)

// sizeSlack is how far from a limit the JSON's length is taken as the
// body's: kubectl sends the object as its unstructured decoder reads it
// back, in which a number may be spelt differently (an integer beyond
// int64 becomes a float), so near a limit the body is measured exactly.
const sizeSlack = 64 << 10

// checkSize reports a document whose request body is over a limit of the
// server.
func (f *File) checkSize(d *Document) {
	n := int64(len(d.JSON)) + 1
	if n <= EtcdMaxRequestBytes-sizeSlack {
		return
	}
	for _, l := range []int64{EtcdMaxRequestBytes, MaxRequestBodyBytes} {
		if n > l-sizeSlack && n <= l+sizeSlack {
			n = sentSize(d.JSON)
			break
		}
	}
	var rule, msg string
	sev := report.Error
	switch {
	case n > MaxRequestBodyBytes:
		rule = RuleRequestSize
		msg = fmt.Sprintf("object is %s as kubectl sends it, over the %s the API server reads of a request: it is refused (413 Request Entity Too Large: limit is %d)",
			byteCount(n), byteCount(MaxRequestBodyBytes), int64(MaxRequestBodyBytes))
	case n > EtcdMaxRequestBytes:
		rule, sev = RuleEtcdSize, report.Warning
		msg = fmt.Sprintf("object is %s as kubectl sends it, over the %s etcd stores by default (--max-request-bytes): the API server reads it but fails to store it (request is too large), unless its etcd allows more",
			byteCount(n), byteCount(EtcdMaxRequestBytes))
	default:
		return
	}
	f.Findings = append(f.Findings, report.Finding{
		Rule: rule, Severity: sev, File: f.Path, Document: d.Index,
		Line: d.Root.Line, Column: d.Root.Column, Object: d.Object, Message: msg,
	})
}

// sentSize is the length of the body kubectl sends for the object whose
// JSON is js: the object as k8s.io/apimachinery's unstructured decoder
// reads it, encoded by its JSON scheme (a json.Encoder: a newline ends
// it).
func sentSize(js []byte) int64 {
	var obj map[string]any
	if utiljson.Unmarshal(js, &obj) != nil {
		return int64(len(js)) + 1
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return int64(len(js)) + 1
	}
	return int64(len(b)) + 1
}

// byteCount prints a size in bytes and in the unit of the limits, so that
// a size just over a limit never reads as equal to it.
func byteCount(n int64) string {
	return fmt.Sprintf("%s bytes (%s)", thousands(n), mib(n))
}

// mib prints n in MiB, with two decimals unless it is a whole or a half.
func mib(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<19) == 0:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
}

// thousands prints n with commas between groups of three digits.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
