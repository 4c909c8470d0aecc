// Package value is the contract between the storage and encryption at
// rest: a Transformer turns the bytes the codec made into the bytes kept
// in etcd and back. The etcd store knows only this interface; the
// providers (encrypt/aes, encrypt/secretbox, encrypt/kmsv2,
// encrypt/identity) and the configuration that picks them (pkg/encryption)
// live elsewhere.
//
// The format on disk is kube-apiserver's, so that an etcd written by one
// server is read by the other: an encrypted value is
// "k8s:enc:<provider>:v1:<key name>:" followed by the provider's
// ciphertext (KMS v2: "k8s:enc:kms:v2:<provider name>:" and an
// EncryptedObject protobuf). A value without such a prefix is plain.
package value

import (
	"bytes"
	"context"
	"time"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// A Transformer encrypts values on their way to storage and decrypts them
// on their way back.
type Transformer interface {
	// FromStorage returns the plain value of data, which was stored at
	// the etcd key authData. stale reports that data was not written by
	// the transformer that writes now (an older key or provider): writing
	// the object again, even unchanged, re-encrypts it with the current
	// one. A value that cannot be decrypted is an error, never garbage.
	FromStorage(ctx context.Context, data, authData []byte) (out []byte, stale bool, err error)
	// ToStorage returns what to store at the etcd key authData for the
	// plain value data.
	ToStorage(ctx context.Context, data, authData []byte) ([]byte, error)
}

// ResourceTransformers gives the Transformer of a resource; the storage
// asks it once, when it builds a resource's store.
type ResourceTransformers interface {
	// TransformerFor returns the transformer of the resource named by
	// group and resource ("" for the core group).
	TransformerFor(group, resource string) Transformer
}

// EncryptedPrefix starts every encrypted value; kube-apiserver reserves it
// (plain values start with "k8s\x00" for protobuf or "{" for JSON).
var EncryptedPrefix = []byte("k8s:enc:")

// A Prefixed is a transformer that handles the values that start with
// Prefix; Prefix is not part of what Transformer sees.
type Prefixed struct {
	Prefix      []byte
	Transformer Transformer
}

// Router picks, among several prefixed transformers, the one whose prefix
// a stored value carries. The first writes. A value read by any other is
// stale. It is how a provider chooses among its keys and how a resource
// chooses among its providers.
type Router struct {
	all []Prefixed
	// noMatch is the error for a value no prefix matches.
	noMatch error
	// metrics, if not nil, records each transformation by the prefix
	// that made it (see Observed).
	metrics *Metrics
}

// NewRouter returns a Router over all, in order (at least one). noMatch is
// the error when no transformer matches a value.
func NewRouter(noMatch error, all ...Prefixed) *Router {
	if len(all) == 0 {
		panic("value.NewRouter: no transformer")
	}
	return &Router{all: all, noMatch: noMatch}
}

// Observed returns a Router like r that records every transformation in
// m, by the prefix of the transformer that made it ("identity" for the
// empty prefix when reading), as kube-apiserver does at each level of
// prefixes.
func (r *Router) Observed(m *Metrics) *Router {
	observed := *r
	observed.metrics = m
	return &observed
}

// FromStorage implements Transformer. The transformers are tried in order
// on the values carrying their prefix; an empty prefix (identity) matches
// every value but its failure is not reported, so that an encrypted value
// whose provider is gone reads as "no matching prefix", as kube-apiserver
// says.
func (r *Router) FromStorage(ctx context.Context, data, authData []byte) ([]byte, bool, error) {
	start := time.Now()
	var errs []error
	for i, p := range r.all {
		if !bytes.HasPrefix(data, p.Prefix) {
			continue
		}
		out, stale, err := p.Transformer.FromStorage(ctx, data[len(p.Prefix):], authData)
		if len(p.Prefix) == 0 {
			if err != nil {
				// Identity refuses what is encrypted: not a failure,
				// another transformer may read it.
				continue
			}
			r.metrics.observe(ctx, fromStorage, "identity", time.Since(start), nil)
			return out, stale || i != 0, nil
		}
		r.metrics.observe(ctx, fromStorage, string(p.Prefix), time.Since(start), err)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		return out, stale || i != 0, nil
	}
	if len(errs) == 0 {
		r.metrics.observe(ctx, fromStorage, "unknown", time.Since(start), r.noMatch)
		return nil, false, r.noMatch
	}
	// One error as it is, several as "[a, b]", as kube-apiserver reports.
	return nil, false, utilerrors.Reduce(utilerrors.NewAggregate(errs))
}

// ToStorage implements Transformer: the first transformer writes, behind
// its prefix.
func (r *Router) ToStorage(ctx context.Context, data, authData []byte) ([]byte, error) {
	start := time.Now()
	first := r.all[0]
	out, err := first.Transformer.ToStorage(ctx, data, authData)
	r.metrics.observe(ctx, toStorage, string(first.Prefix), time.Since(start), err)
	if err != nil {
		return nil, err
	}
	res := make([]byte, 0, len(first.Prefix)+len(out))
	return append(append(res, first.Prefix...), out...), nil
}
