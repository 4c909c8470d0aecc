package app

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
)

// serverIdentity is the identity of this server, as kube-apiserver names
// itself: "apiserver-" and the base32 of the first 16 bytes of a SHA-256
// over the host name and the component name, each prefixed by its
// 16-bit length. Replicas on different hosts have different identities,
// and a restarted server keeps its own. Metrics are labelled with it.
func serverIdentity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("getting the host name for the server's identity: %w", err)
	}
	return identityOf(host), nil
}

// identityOf is the identity of a server on host.
func identityOf(host string) string {
	var data []byte
	for _, part := range []string{host, "kube-apiserver"} {
		data = binary.BigEndian.AppendUint16(data, uint16(len(part)))
		data = append(data, part...)
	}
	sum := sha256.Sum256(data)
	return "apiserver-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:16]))
}
