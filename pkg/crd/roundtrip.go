package crd

import (
	"errors"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
)

// The way an object goes to etcd and back, as the CRD handler's storage
// codec takes it (crdConversionRESTOptionsGetter, in
// apiextensions-apiserver's customresource_handler.go). A request in
// version A is decoded, pruned and defaulted in A and validated there
// (engine.Version.Create, Update); the encoder then converts it to the
// storage version S with the CRD's strategy and prunes it by S's schema
// (schemaCoercingConverter: versioning codec Encode, skipped when A is
// S): that is what etcd holds. What the write answers, and every GET in
// version R, is the decoder's: the stored object pruned by S's schema
// with malformed metadata dropped (schemaCoercingDecoder), defaulted in
// S (unstructuredDefaulter, by the object's own version), converted to R
// and pruned by R's schema (schemaCoercingConverter again), not
// defaulted in R. Under the None strategy converting relabels apiVersion
// only, so with schemas that differ a field only A has is gone from
// etcd, and a field only S has comes back only if R has it too.

// ErrWebhookConversion is why an object that changes version cannot be
// followed offline: its CRD converts through a webhook.
var ErrWebhookConversion = errors.New("the server converts it through the CRD's conversion webhook, which crdlint cannot call")

// StorageVersion is the name of the CRD's storage version ("" when it
// has none, which the server refuses).
func (e *Entry) StorageVersion() string {
	for i := range e.CRD().Spec.Versions {
		if e.CRD().Spec.Versions[i].Storage {
			return e.CRD().Spec.Versions[i].Name
		}
	}
	return ""
}

// ConvertsByWebhook says whether the CRD's conversion strategy is
// Webhook.
func (e *Entry) ConvertsByWebhook() bool {
	c := e.CRD().Spec.Conversion
	return c != nil && c.Strategy == apiextensionsv1.WebhookConverter
}

// storageVersion compiles the storage version, served or not: storage
// encodes and decodes in it whatever the request's version.
func (e *Entry) storageVersion() (string, *engine.Version, error) {
	s := e.StorageVersion()
	if s == "" {
		return "", nil, fmt.Errorf("CRD %s has no storage version", e.CRD().Name)
	}
	v, err := e.version(s, nil)
	if err != nil {
		return "", nil, fmt.Errorf("its storage version %s: %w", s, err)
	}
	return s, v, nil
}

// Store is obj, an object of version from as the request's decoding and
// the strategy left it, as etcd holds it (changed in place): converted
// to the storage version and pruned by its schema. It returns that
// version and the paths the conversion pruned. A CRD that converts by
// webhook stores an object of another version as only the webhook knows:
// ErrWebhookConversion.
func (e *Entry) Store(obj map[string]any, from string) (storage string, pruned []string, err error) {
	s, sv, err := e.storageVersion()
	if err != nil {
		return "", nil, err
	}
	if from == s {
		return s, nil, nil
	}
	if e.ConvertsByWebhook() {
		return s, nil, ErrWebhookConversion
	}
	pruned, err = sv.Convert(obj)
	return s, pruned, err
}

// ReadBack is obj, as etcd holds it (in the storage version: Store's),
// as the storage decoder hands it to a request in version to (changed in
// place): pruned by the storage version's schema, defaulted there when
// defaults is set (the server always defaults; pruning alone leaves it
// out), then converted to version to and pruned by its schema. It returns
// the paths pruned on the way. Without defaults obj is taken as Store
// left it, already pruned by the storage version's schema.
func (e *Entry) ReadBack(obj map[string]any, to string, defaults bool) (pruned []string, err error) {
	s, sv, err := e.storageVersion()
	if err != nil {
		return nil, err
	}
	if defaults {
		if pruned, err = sv.Read(obj); err != nil {
			return nil, err
		}
	}
	if to == s {
		return pruned, nil
	}
	if e.ConvertsByWebhook() {
		return nil, ErrWebhookConversion
	}
	v, err := e.version(to, nil)
	if err != nil {
		return nil, err
	}
	p, err := v.Convert(obj)
	return append(pruned, p...), err
}

// RoundTrip is Store then ReadBack: obj, decoded in version from, as the
// server answers the write and every later GET in version to.
func (e *Entry) RoundTrip(obj map[string]any, from, to string, defaults bool) (pruned []string, err error) {
	_, pruned, err = e.Store(obj, from)
	if err != nil {
		return nil, err
	}
	p, err := e.ReadBack(obj, to, defaults)
	return append(pruned, p...), err
}
