package cmd

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func parse(t *testing.T, args ...string) *Options {
	t.Helper()
	o := NewOptions()
	fs := pflag.NewFlagSet("kapi", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o
}

// kube-apiserver 1.37.1: "authentication-config file and oidc-* flags are
// mutually exclusive" (test/e2e/testdata/kube-apiserver/authn/jwt/
// conflict-oidc.txt).
func TestAuthenticationConfigExcludesOIDCFlags(t *testing.T) {
	o := parse(t, "--authentication-config=/x.yaml", "--oidc-issuer-url=https://x", "--oidc-client-id=c")
	errs := o.Validate()
	found := false
	for _, err := range errs {
		found = found || err.Error() == "authentication-config file and oidc-* flags are mutually exclusive"
	}
	if !found {
		t.Errorf("errors %v, want kube-apiserver's", errs)
	}
}

func TestAuthenticationFlagsReachTheConfig(t *testing.T) {
	o := parse(t, "--requestheader-client-ca-file=/p.crt", "--requestheader-allowed-names=a,b", "--requestheader-username-headers=X-U",
		"--requestheader-uid-headers=X-I", "--requestheader-group-headers=X-G", "--requestheader-extra-headers-prefix=X-E-",
		"--authentication-token-webhook-config-file=/w", "--authentication-token-webhook-cache-ttl=5m", "--authentication-token-webhook-version=v1",
		"--oidc-issuer-url=https://i", "--oidc-client-id=c", "--oidc-required-claim=a=b", "--anonymous-auth=false")
	c, err := o.Complete(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Authentication
	got := strings.Join([]string{a.RequestHeader.ClientCAFile, strings.Join(a.RequestHeader.AllowedNames, "+"), a.RequestHeader.UsernameHeaders[0], a.RequestHeader.UIDHeaders[0],
		a.RequestHeader.GroupHeaders[0], a.RequestHeader.ExtraHeadersPrefix[0], a.TokenWebhook.ConfigFile, a.TokenWebhook.CacheTTL.String(), a.TokenWebhook.Version,
		a.OIDC.IssuerURL, a.OIDC.ClientID, a.OIDC.RequiredClaims["a"], a.OIDC.UsernameClaim}, " ")
	if want := "/p.crt a+b X-U X-I X-G X-E- /w 5m0s v1 https://i c b sub"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if c.AnonymousAuth || !a.AnonymousAuthFlagSet {
		t.Errorf("--anonymous-auth=false: AnonymousAuth=%v set=%v", c.AnonymousAuth, a.AnonymousAuthFlagSet)
	}
	if d := parse(t); !d.AnonymousAuth || d.Authentication.AnonymousAuthFlagSet || d.Authentication.TokenWebhook.CacheTTL.String() != "2m0s" || d.Authentication.TokenWebhook.Version != "v1beta1" {
		t.Errorf("defaults: anonymous=%v set=%v ttl=%v version=%s", d.AnonymousAuth, d.Authentication.AnonymousAuthFlagSet, d.Authentication.TokenWebhook.CacheTTL, d.Authentication.TokenWebhook.Version)
	}
}
