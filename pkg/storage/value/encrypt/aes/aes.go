// Package aes holds the aescbc and aesgcm providers, in the formats
// kube-apiserver writes after its "k8s:enc:aes{cbc,gcm}:v1:<key>:" prefix.
//
//   - aesgcm: a random 12-byte nonce, then AES-GCM's ciphertext and tag.
//     The etcd key is the authenticated data: a value copied to another
//     key (another object's name or namespace) does not decrypt there, so
//     a writer to etcd cannot swap one secret for another.
//   - aescbc: a random 16-byte IV, then AES-CBC over the value padded as
//     PKCS#7. kube-apiserver binds nothing to the key here (CBC has no
//     authenticated data), and neither may we, or values would not move
//     between the two servers. A wrong key is still an error almost
//     always: the padding of garbage rarely checks out.
//
// Keys are 16, 24 or 32 bytes (AES-128, -192, -256), as kube-apiserver
// accepts.
package aes

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/kapi-dev/kapi/pkg/storage/value"
)

// NewGCM returns the aesgcm transformer of key.
func NewGCM(key []byte) (value.Transformer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	// The stored format has a 12-byte nonce; a library that changed it
	// would make every stored value unreadable.
	if aead.NonceSize() != 12 {
		return nil, fmt.Errorf("AES-GCM nonce size is %d, not 12", aead.NonceSize())
	}
	return &gcm{aead: aead}, nil
}

type gcm struct{ aead cipher.AEAD }

func (t *gcm) FromStorage(_ context.Context, data, authData []byte) ([]byte, bool, error) {
	n := t.aead.NonceSize()
	if len(data) < n {
		return nil, false, errors.New("the stored data was shorter than the required size")
	}
	out, err := t.aead.Open(nil, data[:n], data[n:], authData)
	return out, false, err
}

// ToStorage uses a random nonce per value: with 96 random bits the chance
// of a repeat stays negligible for far more writes than one key should
// see (kube-apiserver recommends rotating aesgcm keys every 200,000
// writes).
func (t *gcm) ToStorage(_ context.Context, data, authData []byte) ([]byte, error) {
	n := t.aead.NonceSize()
	out := make([]byte, n, n+len(data)+t.aead.Overhead())
	if _, err := rand.Read(out); err != nil {
		return nil, fmt.Errorf("failed to write nonce for AES-GCM: %w", err)
	}
	return t.aead.Seal(out, out[:n], data, authData), nil
}

// NewCBC returns the aescbc transformer of key.
func NewCBC(key []byte) (value.Transformer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return &cbc{block: block}, nil
}

type cbc struct{ block cipher.Block }

var (
	errShort   = errors.New("the stored data was shorter than the required size")
	errBlocks  = errors.New("the stored data is not a multiple of the block size")
	errPadding = errors.New("invalid PKCS7 data (empty or not padded)")
	errPadByte = errors.New("invalid padding on input")
)

func (t *cbc) FromStorage(_ context.Context, data, _ []byte) ([]byte, bool, error) {
	const bs = aes.BlockSize
	if len(data) < bs {
		return nil, false, errShort
	}
	iv, body := data[:bs], data[bs:]
	if len(body)%bs != 0 {
		return nil, false, errBlocks
	}
	out := make([]byte, len(body))
	cipher.NewCBCDecrypter(t.block, iv).CryptBlocks(out, body)
	if len(out) == 0 {
		return nil, false, errPadding
	}
	pad := int(out[len(out)-1])
	if pad == 0 || pad > len(out) || pad > bs {
		return nil, false, errPadding
	}
	for _, b := range out[len(out)-pad:] {
		if int(b) != pad {
			return nil, false, errPadByte
		}
	}
	return out[:len(out)-pad], false, nil
}

func (t *cbc) ToStorage(_ context.Context, data, _ []byte) ([]byte, error) {
	const bs = aes.BlockSize
	pad := bs - len(data)%bs
	out := make([]byte, bs+len(data)+pad)
	if _, err := rand.Read(out[:bs]); err != nil {
		return nil, errors.New("unable to read sufficient random bytes")
	}
	copy(out[bs:], data)
	for i := bs + len(data); i < len(out); i++ {
		out[i] = byte(pad)
	}
	cipher.NewCBCEncrypter(t.block, out[:bs]).CryptBlocks(out[bs:], out[bs:])
	return out, nil
}
