package encryption

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/storage/value"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/aes"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/identity"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/secretbox"
)

// The stored prefixes of the providers, kube-apiserver's.
const (
	prefixAESCBC    = "k8s:enc:aescbc:v1:"
	prefixAESGCM    = "k8s:enc:aesgcm:v1:"
	prefixSecretbox = "k8s:enc:secretbox:v1:"
	prefixKMSv2     = "k8s:enc:kms:v2:"
)

var errKMSv1 = errors.New("KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.")

// A KMSDialer connects to a KMS v2 plugin and returns its transformer
// (which writes and reads what follows "k8s:enc:kms:v2:<name>:") and its
// health check. The plugin's connection lives as long as ctx.
type KMSDialer func(ctx context.Context, c *KMSConfiguration) (value.Transformer, func(context.Context) error, error)

// built is what one configuration makes: the transformer of each
// group-resource or wildcard it names, and the health checks of its KMS
// plugins, in order.
type built struct {
	byResource map[schema.GroupResource]value.Transformer
	kms        []namedCheck
}

// build makes the transformers of c, which Parse has validated.
func build(ctx context.Context, c *EncryptionConfiguration, dialKMS KMSDialer, m *value.Metrics) (*built, error) {
	b := &built{byResource: map[schema.GroupResource]value.Transformer{}}
	lists := map[schema.GroupResource][]value.Prefixed{}
	var order []schema.GroupResource
	for _, rc := range c.Resources {
		var providers []value.Prefixed
		for _, pc := range rc.Providers {
			p, check, err := buildProvider(ctx, pc, dialKMS, m)
			if err != nil {
				return nil, err
			}
			providers = append(providers, p)
			if check != nil {
				// kube-apiserver numbers its KMS checks from 0 in the
				// order of the file.
				b.kms = append(b.kms, namedCheck{fmt.Sprintf("kms-provider-%d", len(b.kms)), check})
			}
		}
		for _, r := range rc.Resources {
			gr := schema.ParseGroupResource(r)
			// An earlier wildcard already decides this resource: a later
			// rule would never apply, which kube-apiserver refuses.
			for _, w := range []schema.GroupResource{{Group: gr.Group, Resource: "*"}, anyResource} {
				if _, masked := lists[w]; masked {
					return nil, fmt.Errorf("resource %q is masked by earlier rule %q", yamlName(gr), yamlName(w))
				}
			}
			if _, ok := lists[gr]; !ok {
				order = append(order, gr)
			}
			lists[gr] = append(lists[gr], providers...)
		}
	}
	for _, gr := range order {
		b.byResource[gr] = value.NewRouter(errors.New("no matching prefix found"), lists[gr]...).Observed(m)
	}
	return b, nil
}

// yamlName is how a group-resource is written in the file.
func yamlName(gr schema.GroupResource) string {
	if gr.Group == "" && gr.Resource == "*" {
		return "*."
	}
	return gr.String()
}

func buildProvider(ctx context.Context, pc ProviderConfiguration, dialKMS KMSDialer, m *value.Metrics) (value.Prefixed, func(context.Context) error, error) {
	switch {
	case pc.AESGCM != nil:
		p, err := keyed(prefixAESGCM, pc.AESGCM.Keys, aes.NewGCM, "AES", m)
		return p, nil, err
	case pc.AESCBC != nil:
		p, err := keyed(prefixAESCBC, pc.AESCBC.Keys, aes.NewCBC, "AES", m)
		return p, nil, err
	case pc.Secretbox != nil:
		p, err := keyed(prefixSecretbox, pc.Secretbox.Keys, secretbox.New, "Secretbox", m)
		return p, nil, err
	case pc.Identity != nil:
		return value.Prefixed{Prefix: []byte{}, Transformer: identity.Transformer}, nil, nil
	case pc.KMS != nil:
		if pc.KMS.APIVersion == "v1" {
			return value.Prefixed{}, nil, errKMSv1
		}
		if dialKMS == nil {
			return value.Prefixed{}, nil, fmt.Errorf("could not configure KMS plugin %q: no KMS v2 client", pc.KMS.Name)
		}
		t, check, err := dialKMS(ctx, pc.KMS)
		if err != nil {
			return value.Prefixed{}, nil, fmt.Errorf("could not configure KMSv2-Plugin's probe %q, error: %w", pc.KMS.Name, err)
		}
		return value.Prefixed{Prefix: []byte(prefixKMSv2 + pc.KMS.Name + ":"), Transformer: t}, check, nil
	}
	return value.Prefixed{}, nil, errors.New(noProvider)
}

// keyed is a provider of several named keys: "<prefix><key name>:" picks
// the key; the first key encrypts.
func keyed(prefix string, keys []Key, newKey func([]byte) (value.Transformer, error), kind string, m *value.Metrics) (value.Prefixed, error) {
	var all []value.Prefixed
	for _, k := range keys {
		secret, err := base64.StdEncoding.DecodeString(k.Secret)
		if err != nil {
			return value.Prefixed{}, fmt.Errorf("could not obtain secret for named key %s: %w", k.Name, err)
		}
		t, err := newKey(secret)
		if err != nil {
			return value.Prefixed{}, fmt.Errorf("error while creating cipher for named key %s: %w", k.Name, err)
		}
		all = append(all, value.Prefixed{Prefix: []byte(k.Name + ":"), Transformer: t})
	}
	noKey := fmt.Errorf("no matching key was found for the provided %s transformer", kind)
	return value.Prefixed{Prefix: []byte(prefix), Transformer: value.NewRouter(noKey, all...).Observed(m)}, nil
}
