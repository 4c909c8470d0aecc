package app

import (
	"fmt"
	"os"

	"github.com/kapi-dev/kapi/pkg/controlplane/identitylease"
)

// serverIdentity is the identity of this server, the name of its
// identity lease (kube-apiserver's, from the host name). Metrics are
// labelled with its hash.
func serverIdentity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("getting the host name for the server's identity: %w", err)
	}
	return identitylease.Name(host), nil
}
