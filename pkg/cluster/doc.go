// Package cluster reads CRDs and custom resources from a live cluster the
// way kubectl does: the standard connection flags of k8s.io/cli-runtime
// (kubeconfig, context, namespace, request timeout, ...), resource
// references resolved through discovery (crds, crd/NAME,
// widgets.example.com/NAME, short and singular names), lists fetched in
// pages with limit/continue and handed over one page at a time so that a
// hundred thousand objects never sit in memory together.
//
// Each object is rendered as `kubectl get -o yaml` prints it (managed
// fields omitted), so that findings about it carry lines and columns a user
// can reproduce, under a name that says where it came from:
// cluster/NAMESPACE/RESOURCE.GROUP/NAME.
//
// Pages renders each page of objects as parsed files, the one loop over a
// cluster's pages (pkg/crdsource reads the cluster's CRDs with it). For
// comparing a local revision with the installed one, StorageRef lists a
// CRD's objects in its storage version, and WrittenIn says which versions
// an object's managers wrote it in (managedFields, which the rendering
// omits).
//
// Nothing here touches the network until a Client is asked for objects, and
// nothing is written: discovery is cached in memory only, not in
// ~/.kube/cache. Errors are one line each (Describe), naming the server but
// never a credential.
//
// Example:
//
//	f := cluster.NewFlags()
//	f.AddFlags(cmd.Flags())
//	...
//	c, err := f.NewClient()
//	err = c.Visit(ctx, []string{"widgets.example.com"}, func(page []*unstructured.Unstructured) error {
//		for _, u := range page {
//			text, _ := cluster.Render(u) // as `kubectl get -o yaml` prints it
//			...
//		}
//		return nil
//	})
package cluster
