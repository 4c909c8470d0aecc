package cmd

import (
	"errors"
	"time"

	"github.com/spf13/pflag"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/authorization"
)

// AuthorizationOptions are the authorization flags beside
// --authorization-mode, with kube-apiserver's names and defaults.
type AuthorizationOptions struct {
	PolicyFile                  string
	WebhookConfigFile           string
	WebhookVersion              string
	WebhookCacheAuthorizedTTL   time.Duration
	WebhookCacheUnauthorizedTTL time.Duration
	ConfigFile                  string

	// legacyFlagsSet says whether --authorization-mode or one of the
	// --authorization-webhook-* flags was given, which
	// --authorization-config excludes. Set by AddFlags.
	legacyFlagsSet func() bool
}

func newAuthorizationOptions(d *app.Config) AuthorizationOptions {
	return AuthorizationOptions{
		PolicyFile:                  d.Authorization.PolicyFile,
		WebhookConfigFile:           d.Authorization.WebhookConfigFile,
		WebhookVersion:              d.Authorization.WebhookVersion,
		WebhookCacheAuthorizedTTL:   d.Authorization.WebhookCacheAuthorizedTTL,
		WebhookCacheUnauthorizedTTL: d.Authorization.WebhookCacheUnauthorizedTTL,
		ConfigFile:                  d.Authorization.ConfigFile,
	}
}

// AddFlags registers the flags.
func (o *AuthorizationOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.PolicyFile, "authorization-policy-file", o.PolicyFile, "File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port.")
	fs.StringVar(&o.WebhookConfigFile, "authorization-webhook-config-file", o.WebhookConfigFile, "File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook. The API server will query the remote service to determine access on the API server's secure port.")
	fs.StringVar(&o.WebhookVersion, "authorization-webhook-version", o.WebhookVersion, "The API version of the authorization.k8s.io SubjectAccessReview to send to and expect from the webhook.")
	fs.DurationVar(&o.WebhookCacheAuthorizedTTL, "authorization-webhook-cache-authorized-ttl", o.WebhookCacheAuthorizedTTL, "The duration to cache 'authorized' responses from the webhook authorizer.")
	fs.DurationVar(&o.WebhookCacheUnauthorizedTTL, "authorization-webhook-cache-unauthorized-ttl", o.WebhookCacheUnauthorizedTTL, "The duration to cache 'unauthorized' responses from the webhook authorizer.")
	fs.StringVar(&o.ConfigFile, "authorization-config", o.ConfigFile, "File with Authorization Configuration to configure the authorizer chain. This flag is mutually exclusive with the other --authorization-mode and --authorization-webhook-* flags.")
	o.legacyFlagsSet = func() bool {
		for _, name := range []string{"authorization-mode", "authorization-webhook-config-file", "authorization-webhook-version",
			"authorization-webhook-cache-authorized-ttl", "authorization-webhook-cache-unauthorized-ttl"} {
			if fs.Changed(name) {
				return true
			}
		}
		return false
	}
}

// Validate checks what can be checked without reading the files; the
// modes and the files are checked when the authorizer is built.
func (o *AuthorizationOptions) Validate() []error {
	if o.ConfigFile != "" && o.legacyFlagsSet != nil && o.legacyFlagsSet() {
		return []error{errors.New("--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined")}
	}
	return nil
}

func (o *AuthorizationOptions) config() authorization.Config {
	return authorization.Config{
		PolicyFile:                  o.PolicyFile,
		WebhookConfigFile:           o.WebhookConfigFile,
		WebhookVersion:              o.WebhookVersion,
		WebhookCacheAuthorizedTTL:   o.WebhookCacheAuthorizedTTL,
		WebhookCacheUnauthorizedTTL: o.WebhookCacheUnauthorizedTTL,
		ConfigFile:                  o.ConfigFile,
	}
}
