package serviceaccount

import (
	"encoding/json"
	"slices"

	jose "github.com/go-jose/go-jose/v4"
)

// OpenIDConfiguration is the document kube-apiserver serves at
// /.well-known/openid-configuration, with its fields in its order.
type OpenIDConfiguration struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	ResponseTypes []string `json:"response_types_supported"`
	SubjectTypes  []string `json:"subject_types_supported"`
	SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
}

// DiscoveryDocuments returns the OpenID configuration of issuer (whose
// keys are at jwksURI) and the JSON Web Key Set of keys, as kube-apiserver
// writes them: every key with use "sig", its kid and algorithm; the
// algorithms of the configuration sorted and without repeats.
func DiscoveryDocuments(issuer, jwksURI string, keys []PublicKey) (config, jwks []byte, err error) {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{}}
	var algs []string
	for _, k := range keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.Key, KeyID: k.KeyID, Algorithm: string(k.Algorithm), Use: "sig"})
		algs = append(algs, string(k.Algorithm))
	}
	slices.Sort(algs)
	algs = slices.Compact(algs)
	config, err = json.Marshal(OpenIDConfiguration{
		Issuer:        issuer,
		JWKSURI:       jwksURI,
		ResponseTypes: []string{"id_token"},
		SubjectTypes:  []string{"public"},
		SigningAlgs:   algs,
	})
	if err != nil {
		return nil, nil, err
	}
	jwks, err = json.Marshal(set)
	return config, jwks, err
}
