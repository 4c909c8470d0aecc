// Package certificates holds the validation of the certificates.k8s.io/v1
// kinds kapi serves: CertificateSigningRequest, ClusterTrustBundle and
// PodCertificateRequest. Parsing PEM, PKCS#10 requests and X.509
// certificates is part of it: a request whose key did not sign it, or a
// trust bundle with a non-CA certificate, is refused as kube-apiserver
// refuses it.
package certificates
