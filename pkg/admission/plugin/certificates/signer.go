// Package certificates holds what the certificate admission plugins
// share: whether a user may act on a signer.
//
// Signers are a synthetic resource of certificates.k8s.io: RBAC grants
// "approve", "sign" or "attest" on resource "signers" named after a
// signerName, or after its domain with a wildcard ("example.com/*") for
// every signer of that domain.
package certificates

import (
	"context"
	"strings"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// AuthorizedForSigner says whether u may do verb on the signer named
// signerName: by name, or else by its domain's wildcard. An authorizer's
// error counts as a refusal.
func AuthorizedForSigner(ctx context.Context, authz authorizer.Authorizer, u user.Info, verb, signerName string) bool {
	domain, _, _ := strings.Cut(signerName, "/")
	for _, name := range []string{signerName, domain + "/*"} {
		decision, _, err := authz.Authorize(ctx, authorizer.AttributesRecord{
			User:            u,
			Verb:            verb,
			Name:            name,
			APIGroup:        "certificates.k8s.io",
			APIVersion:      "*",
			Resource:        "signers",
			ResourceRequest: true,
		})
		if err == nil && decision == authorizer.DecisionAllow {
			return true
		}
	}
	return false
}
