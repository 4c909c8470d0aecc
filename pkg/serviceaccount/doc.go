// Package serviceaccount writes and reads the JSON Web Tokens that
// kube-apiserver issues to service accounts, and knows nothing of HTTP or
// storage: it signs claims with a key and verifies a token's signature
// against a set of public keys.
//
// Two kinds of token exist, and both verify here:
//
//   - bound tokens, issued by the TokenRequest API (serviceaccounts/token):
//     issuer --service-account-issuer, audiences, an expiry, a unique jti
//     and the private claim "kubernetes.io" naming the namespace, the
//     service account and the object (Pod, Secret or Node) the token is
//     bound to, each with its uid;
//   - legacy tokens, written into Secrets of type
//     kubernetes.io/service-account-token: issuer "kubernetes/serviceaccount",
//     no expiry, and flat "kubernetes.io/serviceaccount/..." claims.
//
// The payload is written with its claims in kube-apiserver's order (by
// name, as go-jose's builder sorts them), the header carries alg and kid,
// and the kid is kube-apiserver's: the unpadded base64url SHA-256 of the
// DER (PKIX) public key. A kapi token therefore has exactly the shape of
// one kube-apiserver signs, and kube-apiserver's tokens verify in kapi
// given its public key.
package serviceaccount
