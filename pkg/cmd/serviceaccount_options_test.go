package cmd

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestServiceAccountFlags: the --service-account-* flags, --api-audiences
// and --enable-bootstrap-token-auth reach the typed config with
// kube-apiserver's defaults (lookup and extension on), repeatable flags
// repeated.
func TestServiceAccountFlags(t *testing.T) {
	o := NewOptions()
	fs := pflag.NewFlagSet("kapi", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	c, err := o.Complete(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if sa := c.ServiceAccounts; !sa.Lookup || !sa.ExtendTokenExpiration || sa.MaxTokenExpiration != 0 || len(sa.Issuers) != 0 || c.EnableBootstrapTokenAuth {
		t.Errorf("defaults %+v bootstrap %v", sa, c.EnableBootstrapTokenAuth)
	}

	o = NewOptions()
	fs = pflag.NewFlagSet("kapi", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{
		"--service-account-issuer=https://a.example", "--service-account-issuer=https://b.example",
		"--service-account-key-file=/k1.pub", "--service-account-key-file=/k2.pub",
		"--service-account-signing-key-file=/k.key", "--service-account-lookup=false",
		"--service-account-max-token-expiration=2h", "--service-account-extend-token-expiration=false",
		"--service-account-jwks-uri=https://a.example/keys", "--api-audiences=x,y", "--enable-bootstrap-token-auth",
	}); err != nil {
		t.Fatal(err)
	}
	c, err = o.Complete(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	sa := c.ServiceAccounts
	if !slices.Equal(sa.Issuers, []string{"https://a.example", "https://b.example"}) || !slices.Equal(sa.KeyFiles, []string{"/k1.pub", "/k2.pub"}) ||
		sa.SigningKeyFile != "/k.key" || sa.Lookup || sa.ExtendTokenExpiration || sa.MaxTokenExpiration != 2*time.Hour ||
		sa.JWKSURI != "https://a.example/keys" || !slices.Equal(c.APIAudiences, []string{"x", "y"}) || !c.EnableBootstrapTokenAuth {
		t.Errorf("config %+v audiences %v bootstrap %v", sa, c.APIAudiences, c.EnableBootstrapTokenAuth)
	}
}

// TestServiceAccountFlagValidation: kube-apiserver's checks and messages.
func TestServiceAccountFlagValidation(t *testing.T) {
	for args, want := range map[string]string{
		"--service-account-issuer=": "service-account-issuer should not be an empty string",
		"--service-account-issuer=https://a --service-account-issuer=https://a": `service-account-issuer "https://a" is already specified`,
		"--service-account-issuer=http://[::1":                                  `service-account-issuer "http://[::1" contained a ':' but was not a valid URL`,
		"--service-account-jwks-uri=http://a/keys":                              "service-account-jwks-uri requires https scheme",
		"--service-account-max-token-expiration=30m":                            "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds",
	} {
		o := NewOptions()
		fs := pflag.NewFlagSet("kapi", pflag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse(strings.Fields(args)); err != nil {
			t.Fatal(err)
		}
		errs := o.Validate()
		if !slices.ContainsFunc(errs, func(e error) bool { return strings.HasPrefix(e.Error(), want) }) {
			t.Errorf("%s: errors %v, want %q", args, errs, want)
		}
	}
}
