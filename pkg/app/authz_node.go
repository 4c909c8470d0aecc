package app

import (
	"fmt"

	"k8s.io/client-go/informers"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/authorization/node"
)

// buildNodeAuthorizer is the Node authorizer of --authorization-mode,
// its graph fed by the loopback informers (which the server waits for
// before it is ready).
//
// Only pods feed the graph: persistent volumes, volume attachments,
// resource slices and pod certificate requests are not served yet, and
// an informer of an unserved resource never syncs. Until they are, a
// node cannot reach a PV, a PV's secrets, its volume attachments, its
// resource slices or its pod certificate requests through the graph
// (node.AddPVHandlers and friends are ready for them).
func buildNodeAuthorizer(factory informers.SharedInformerFactory) (authorizer.Authorizer, error) {
	graph := node.NewGraph()
	if _, err := node.AddPodHandlers(graph, factory.Core().V1().Pods().Informer()); err != nil {
		return nil, fmt.Errorf("node authorizer: %w", err)
	}
	return node.New(graph, node.NodeRules(), node.DefaultFeatures()), nil
}
