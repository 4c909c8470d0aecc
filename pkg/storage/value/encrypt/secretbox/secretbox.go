// Package secretbox is the secretbox provider (XSalsa20 and Poly1305, NaCl's
// secretbox), in kube-apiserver's format after its
// "k8s:enc:secretbox:v1:<key>:" prefix: a random 24-byte nonce, then the
// sealed box. Keys are 32 bytes. kube-apiserver authenticates nothing but
// the value here (secretbox takes no additional data), so neither do we.
package secretbox

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"golang.org/x/crypto/nacl/secretbox"

	"github.com/kapi-dev/kapi/pkg/storage/value"
)

const nonceSize = 24

// New returns the secretbox transformer of key, which must be 32 bytes.
func New(key []byte) (value.Transformer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("expected key size 32 for secretbox provider, got %v", len(key))
	}
	t := &box{}
	copy(t.key[:], key)
	return t, nil
}

type box struct{ key [32]byte }

func (t *box) FromStorage(_ context.Context, data, _ []byte) ([]byte, bool, error) {
	if len(data) < nonceSize+secretbox.Overhead {
		return nil, false, errors.New("the stored data was shorter than the required size")
	}
	var nonce [nonceSize]byte
	copy(nonce[:], data)
	out, ok := secretbox.Open(nil, data[nonceSize:], &nonce, &t.key)
	if !ok {
		// kube-apiserver's words for any failure to open the box.
		return nil, false, errors.New("output array was not large enough for encryption")
	}
	return out, false, nil
}

func (t *box) ToStorage(_ context.Context, data, _ []byte) ([]byte, error) {
	var nonce [nonceSize]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, err
	}
	return secretbox.Seal(nonce[:], data, &nonce, &t.key), nil
}
