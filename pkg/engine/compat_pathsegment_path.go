//go:build k8s1.33 || k8s1.34 || k8s1.35

package engine

import "k8s.io/apimachinery/pkg/api/validation/path"

// pathSegment is the name check rest.BeforeCreate and BeforeUpdate pass to
// the ObjectMeta validation up to Kubernetes 1.35.
var pathSegment = path.ValidatePathSegmentName
