package crd

import (
	"errors"
	"slices"
	"strings"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestRoundTrip: an object written in gizmos' v1alpha1 (spec open) and
// stored in v1 loses what v1 does not specify on its way to etcd, comes
// back with v1's defaults, and keeps in v1alpha1 all that is left; the
// storage version is followed whether it is served or not; a conversion
// webhook stops it only where the version changes. (test/agreement's
// TestStoredAcrossVersions holds it against a real server.)
func TestRoundTrip(t *testing.T) {
	const written = "apiVersion: example.org/v1alpha1\nkind: Gizmo\nmetadata: {name: g, namespace: lab}\nspec: {size: 3, color: red, items: [{name: a, extra: x}]}"
	tests := []struct {
		name     string
		edit     func(string) string
		from, to string
		defaults bool
		want     string // the object after RoundTrip
		pruned   []string
		err      error
	}{
		{name: "to v1alpha1 with defaults", from: "v1alpha1", to: "v1alpha1", defaults: true,
			want:   "apiVersion: example.org/v1alpha1\nkind: Gizmo\nmetadata: {name: g, namespace: lab}\nspec: {size: 3, tier: gold, items: [{name: a}]}",
			pruned: []string{"spec.color", "spec.items[0].extra"}},
		{name: "to v1alpha1, pruning alone", from: "v1alpha1", to: "v1alpha1",
			want:   "apiVersion: example.org/v1alpha1\nkind: Gizmo\nmetadata: {name: g, namespace: lab}\nspec: {size: 3, items: [{name: a}]}",
			pruned: []string{"spec.color", "spec.items[0].extra"}},
		{name: "to the storage version", from: "v1alpha1", to: "v1", defaults: true,
			want:   "apiVersion: example.org/v1\nkind: Gizmo\nmetadata: {name: g, namespace: lab}\nspec: {size: 3, tier: gold, items: [{name: a}]}",
			pruned: []string{"spec.color", "spec.items[0].extra"}},
		{name: "storage version not served", edit: func(y string) string {
			return strings.Replace(y, "  - name: v1\n    served: true", "  - name: v1\n    served: false", 1)
		}, from: "v1alpha1", to: "v1alpha1", defaults: true,
			want:   "apiVersion: example.org/v1alpha1\nkind: Gizmo\nmetadata: {name: g, namespace: lab}\nspec: {size: 3, tier: gold, items: [{name: a}]}",
			pruned: []string{"spec.color", "spec.items[0].extra"}},
		{name: "webhook", edit: func(y string) string {
			return strings.Replace(y, "  scope: Namespaced\n", "  scope: Namespaced\n  conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {url: \"https://conv.example.org/convert\"}}}\n", 1)
		}, from: "v1alpha1", to: "v1alpha1", defaults: true, err: ErrWebhookConversion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCatalog(false)
			c.Add(gizmos(t, tt.edit), "gizmos.yaml", Extra)
			e := c.Entry(schema.GroupKind{Group: "example.org", Kind: "Gizmo"})
			if e == nil || e.StorageVersion() != "v1" {
				t.Fatalf("entry %v", e)
			}
			o := obj(t, written)
			pruned, err := e.RoundTrip(o, tt.from, tt.to, tt.defaults)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			if tt.err != nil {
				if !apiequality.Semantic.DeepEqual(o, obj(t, written)) {
					t.Errorf("a refused round trip changed the object: %v", o)
				}
				return
			}
			if !apiequality.Semantic.DeepEqual(o, obj(t, tt.want)) {
				t.Errorf("got %v\nwant %v", o, obj(t, tt.want))
			}
			if !slices.Equal(sorted(pruned), tt.pruned) {
				t.Errorf("pruned %q, want %q", pruned, tt.pruned)
			}
		})
	}
}
