// Package deps pins the module's dependencies while the packages that use
// them are being written. Removed once every dependency has a real user.
package deps

import (
	_ "github.com/evanphx/json-patch/v5"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/spf13/cobra"
	_ "go.etcd.io/etcd/client/v3"
	_ "go.etcd.io/etcd/server/v3/embed"
	_ "k8s.io/api/core/v1"
	_ "k8s.io/apimachinery/pkg/util/strategicpatch"
	_ "k8s.io/client-go/kubernetes"
	_ "k8s.io/client-go/tools/clientcmd"
	_ "k8s.io/kube-openapi/pkg/validation/spec"
	_ "sigs.k8s.io/structured-merge-diff/v6/typed"
)
