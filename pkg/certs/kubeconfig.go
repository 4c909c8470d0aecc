package certs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ensureKubeconfig makes sure admin.kubeconfig reaches server as the admin,
// trusting the CA, with everything embedded so that the file can be copied
// anywhere.
//
// kapi owns the cluster "kapi", the user "admin" and the context "kapi" in
// that file, and rewrites them when they differ from what they should be
// (a new server URL, a renewed certificate). Other entries a person added
// are kept, and so is their choice of current context, unless it names no
// context at all.
func (b *bootstrap) ensureKubeconfig(server string, caPEM []byte, admin *leafPEM) error {
	path := b.path(KubeconfigFileName)
	cfg, err := clientcmd.LoadFromFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		cfg = clientcmdapi.NewConfig()
	case err != nil:
		b.logReplace(KubeconfigFileName, fmt.Sprintf("cannot be loaded: %v", err))
		cfg = clientcmdapi.NewConfig()
	case kubeconfigUpToDate(cfg, server, caPEM, admin):
		return nil
	}

	cfg.Clusters[KubeconfigCluster] = &clientcmdapi.Cluster{
		Server:                   server,
		CertificateAuthorityData: caPEM,
	}
	cfg.AuthInfos[KubeconfigUser] = &clientcmdapi.AuthInfo{
		ClientCertificateData: admin.certPEM,
		ClientKeyData:         admin.keyPEM,
	}
	cfg.Contexts[KubeconfigContext] = &clientcmdapi.Context{
		Cluster:  KubeconfigCluster,
		AuthInfo: KubeconfigUser,
	}
	if _, ok := cfg.Contexts[cfg.CurrentContext]; !ok {
		cfg.CurrentContext = KubeconfigContext
	}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	return b.write(KubeconfigFileName, data, 0o600)
}

func kubeconfigUpToDate(cfg *clientcmdapi.Config, server string, caPEM []byte, admin *leafPEM) bool {
	cluster, user, ctx := cfg.Clusters[KubeconfigCluster], cfg.AuthInfos[KubeconfigUser], cfg.Contexts[KubeconfigContext]
	return cluster != nil && user != nil && ctx != nil &&
		cluster.Server == server &&
		bytes.Equal(cluster.CertificateAuthorityData, caPEM) &&
		bytes.Equal(user.ClientCertificateData, admin.certPEM) &&
		bytes.Equal(user.ClientKeyData, admin.keyPEM) &&
		ctx.Cluster == KubeconfigCluster && ctx.AuthInfo == KubeconfigUser
}
