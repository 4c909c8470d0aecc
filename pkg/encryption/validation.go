package encryption

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// kube-apiserver's messages, word for word (testdata/oracle has them as
// the oracle printed them).
const (
	moreThanOneProvider   = "more than one provider specified in a single element, should split into different list elements"
	noProvider            = "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity"
	keyLenFmt             = "secret is not of the expected length, got %d, expected one of %v"
	unsupportedSchemeFmt  = "unsupported scheme %q for KMS provider, only unix is supported"
	unsupportedKMSVersion = "unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported"
	atLeastOneFmt         = "at least one %s is required"
	invalidURLFmt         = "invalid endpoint for kms provider, error: %v"
	mandatoryFmt          = "%s is a mandatory field for a %s"
	notBase64             = "secrets must be base64 encoded"
	notPositiveFmt        = "%s should be a positive value"
	kmsNameColonFmt       = "invalid KMS provider name %s, must not contain ':'"
	kmsNameDupFmt         = "duplicate KMS provider name %s, names must be unique"
	eventsGroup           = "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file"
	extensionsGroup       = "'extensions' group has been removed and cannot be used for encryption"
	starResource          = "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources"
	overlap               = "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked"
	nonREST               = "resources which do not have REST API/s cannot be encrypted"
	capitalLetters        = "resource name should not contain capital letters"
	acrossGroups          = "encrypting the same resource across groups is not supported"
	duplicateResource     = "the same resource cannot be specified multiple times"
	redacted              = "REDACTED"
)

var (
	aesKeySizes       = []int{16, 24, 32}
	secretboxKeySizes = []int{32}
	anyResource       = schema.GroupResource{Group: "*", Resource: "*"}
)

// Validate checks c as kube-apiserver does before it builds anything.
// reload: KMS v1 names must be unique too (they always must be for v2).
func Validate(c *EncryptionConfiguration, reload bool) field.ErrorList {
	root := field.NewPath("resources")
	if len(c.Resources) == 0 {
		return field.ErrorList{field.Required(root, fmt.Sprintf(atLeastOneFmt, root))}
	}
	var errs field.ErrorList
	kmsNames := map[string]bool{}
	for i, rc := range c.Resources {
		r := root.Index(i).Child("resources")
		p := root.Index(i).Child("providers")
		if len(rc.Resources) == 0 {
			errs = append(errs, field.Required(r, fmt.Sprintf(atLeastOneFmt, r)))
		}
		errs = append(errs, validateOverlap(rc.Resources, r)...)
		errs = append(errs, validateResourceNames(rc.Resources, r)...)
		if len(rc.Providers) == 0 {
			errs = append(errs, field.Required(p, fmt.Sprintf(atLeastOneFmt, p)))
		}
		for j, pc := range rc.Providers {
			pp := p.Index(j)
			if n := pc.count(); n != 1 {
				msg := noProvider
				if n > 1 {
					msg = moreThanOneProvider
				}
				errs = append(errs, field.Invalid(pp, pc.goValue(), msg))
				// kube-apiserver goes on with the first it finds.
			}
			switch {
			case pc.KMS != nil:
				errs = append(errs, validateKMS(pc.KMS, pp.Child("kms"), kmsNames, reload)...)
				kmsNames[pc.KMS.Name] = true
			case pc.AESGCM != nil:
				errs = append(errs, validateKeys(pc.AESGCM.Keys, pp.Child("aesgcm", "keys"), aesKeySizes)...)
			case pc.AESCBC != nil:
				errs = append(errs, validateKeys(pc.AESCBC.Keys, pp.Child("aescbc", "keys"), aesKeySizes)...)
			case pc.Secretbox != nil:
				errs = append(errs, validateKeys(pc.Secretbox.Keys, pp.Child("secretbox", "keys"), secretboxKeySizes)...)
			}
		}
	}
	return errs
}

// validateOverlap reports, once each, a resource named twice and a
// wildcard that covers another entry of the same list.
func validateOverlap(resources []string, path *field.Path) field.ErrorList {
	if len(resources) < 2 {
		return nil
	}
	grs := make([]schema.GroupResource, len(resources))
	for i, r := range resources {
		grs[i] = schema.ParseGroupResource(r)
	}
	var dup, over bool
	for i, a := range grs {
		for j, b := range grs {
			switch {
			case i == j:
			case a == b:
				dup = true
			case a == anyResource:
				over = true
			case a.Group == b.Group && (a.Resource == "*" || b.Resource == "*"):
				over = true
			}
		}
	}
	var errs field.ErrorList
	if dup {
		errs = append(errs, field.Invalid(path, resources, duplicateResource))
	}
	if over {
		errs = append(errs, field.Invalid(path, resources, overlap))
	}
	return errs
}

func validateResourceNames(resources []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, res := range resources {
		msg := ""
		gr := schema.ParseGroupResource(res)
		switch {
		case strings.ToLower(res) != res:
			msg = capitalLetters
		case res == "*":
			msg = starResource
		case res == "apiserveripinfo" || res == "serviceipallocations" || res == "servicenodeportallocations":
			msg = nonREST
		case gr.Group == "events.k8s.io":
			msg = eventsGroup
		case gr.Group == "extensions":
			msg = extensionsGroup
		case gr.Group == "*" && gr.Resource != "*":
			msg = acrossGroups
		default:
			continue
		}
		errs = append(errs, field.Invalid(path.Index(i), res, msg))
	}
	return errs
}

func validateKeys(keys []Key, path *field.Path, sizes []int) field.ErrorList {
	if len(keys) == 0 {
		return field.ErrorList{field.Required(path, fmt.Sprintf(atLeastOneFmt, "keys"))}
	}
	var errs field.ErrorList
	for i, k := range keys {
		kp := path.Index(i)
		if k.Name == "" {
			errs = append(errs, field.Required(kp.Child("name"), fmt.Sprintf(mandatoryFmt, "name", "key")))
		}
		if k.Secret == "" {
			errs = append(errs, field.Required(kp.Child("secret"), fmt.Sprintf(mandatoryFmt, "secret", "key")))
			continue
		}
		// The key is never shown, not even in part.
		secret, err := base64.StdEncoding.DecodeString(k.Secret)
		if err != nil {
			errs = append(errs, field.Invalid(kp.Child("secret"), redacted, notBase64))
			continue
		}
		ok := false
		for _, n := range sizes {
			ok = ok || len(secret) == n
		}
		if !ok {
			errs = append(errs, field.Invalid(kp.Child("secret"), redacted, fmt.Sprintf(keyLenFmt, len(secret), sizes)))
		}
	}
	return errs
}

func validateKMS(c *KMSConfiguration, path *field.Path, names map[string]bool, reload bool) field.ErrorList {
	var errs field.ErrorList
	np := path.Child("name")
	if c.Name == "" {
		errs = append(errs, field.Required(np, fmt.Sprintf(mandatoryFmt, "name", "provider")))
	}
	// The name is part of the stored prefix, which ':' ends.
	if c.APIVersion != "v1" && strings.Contains(c.Name, ":") {
		errs = append(errs, field.Invalid(np, c.Name, fmt.Sprintf(kmsNameColonFmt, c.Name)))
	}
	if (reload || c.APIVersion != "v1") && names[c.Name] {
		errs = append(errs, field.Invalid(np, c.Name, fmt.Sprintf(kmsNameDupFmt, c.Name)))
	}
	if c.Timeout == nil || c.Timeout.Duration <= 0 {
		var v any
		if c.Timeout != nil {
			v = c.Timeout.Duration.String()
		}
		errs = append(errs, field.Invalid(path.Child("timeout"), v, fmt.Sprintf(notPositiveFmt, "timeout")))
	}
	ep := path.Child("endpoint")
	if c.Endpoint == "" {
		errs = append(errs, field.Invalid(ep, "", fmt.Sprintf(mandatoryFmt, "endpoint", "kms")))
	} else if u, err := url.Parse(c.Endpoint); err != nil {
		errs = append(errs, field.Invalid(ep, c.Endpoint, fmt.Sprintf(invalidURLFmt, err)))
	} else if u.Scheme != "unix" {
		errs = append(errs, field.Invalid(ep, c.Endpoint, fmt.Sprintf(unsupportedSchemeFmt, u.Scheme)))
	}
	cp := path.Child("cachesize")
	if c.APIVersion != "v1" && c.CacheSize != nil {
		errs = append(errs, field.Invalid(cp, *c.CacheSize, "cachesize is not supported in v2"))
	}
	if c.APIVersion == "v1" && c.CacheSize != nil && *c.CacheSize == 0 {
		errs = append(errs, field.Invalid(cp, *c.CacheSize, "cachesize should be a positive value, or negative to disable"))
	}
	if c.APIVersion != "v1" && c.APIVersion != "v2" {
		errs = append(errs, field.Invalid(path.Child("apiVersion"), c.APIVersion, unsupportedKMSVersion))
	}
	return errs
}

func (p *ProviderConfiguration) count() int {
	n := 0
	for _, set := range []bool{p.KMS != nil, p.AESGCM != nil, p.AESCBC != nil, p.Secretbox != nil, p.Identity != nil} {
		if set {
			n++
		}
	}
	return n
}

// The value kube-apiserver shows for an invalid provider is its internal
// type, whose fields have no JSON names: these mirror it.
type (
	goProvider struct {
		AESGCM    *goKeys
		AESCBC    *goKeys
		Secretbox *goKeys
		Identity  *struct{}
		KMS       *goKMS
	}
	goKeys struct{ Keys []goKey }
	goKey  struct{ Name, Secret string }
	goKMS  struct {
		APIVersion string
		Name       string
		CacheSize  *int32
		Endpoint   string
		Timeout    any
	}
)

func (p *ProviderConfiguration) goValue() goProvider {
	keys := func(ks []Key) *goKeys {
		g := &goKeys{Keys: []goKey{}}
		for _, k := range ks {
			g.Keys = append(g.Keys, goKey{k.Name, k.Secret})
		}
		return g
	}
	var g goProvider
	if p.AESGCM != nil {
		g.AESGCM = keys(p.AESGCM.Keys)
	}
	if p.AESCBC != nil {
		g.AESCBC = keys(p.AESCBC.Keys)
	}
	if p.Secretbox != nil {
		g.Secretbox = keys(p.Secretbox.Keys)
	}
	if p.Identity != nil {
		g.Identity = &struct{}{}
	}
	if k := p.KMS; k != nil {
		g.KMS = &goKMS{APIVersion: k.APIVersion, Name: k.Name, CacheSize: k.CacheSize, Endpoint: k.Endpoint, Timeout: k.Timeout}
	}
	return g
}
