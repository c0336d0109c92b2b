//go:build k8s1.36

package engine

import "k8s.io/apimachinery/pkg/api/validate/content"

// pathSegment is rest's validatePathSegment in Kubernetes 1.36 (unexported
// there), which the ObjectMeta validation of BeforeCreate and BeforeUpdate
// uses.
func pathSegment(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}
