// Package identity is the provider that stores values as they are. It
// refuses to read an encrypted value as if it were plain, so that a value
// whose provider is not configured is an error and not a decoding failure
// with a misleading message.
package identity

import (
	"bytes"
	"context"
	"errors"

	"github.com/kapi-dev/kapi/pkg/storage/value"
)

// ErrEncrypted is kube-apiserver's error for an encrypted value read by
// the identity provider.
var ErrEncrypted = errors.New("identity transformer tried to read encrypted data")

// Transformer is the identity provider; its prefix is empty.
var Transformer value.Transformer = identity{}

type identity struct{}

func (identity) FromStorage(_ context.Context, data, _ []byte) ([]byte, bool, error) {
	if bytes.HasPrefix(data, value.EncryptedPrefix) {
		return nil, false, ErrEncrypted
	}
	return data, false, nil
}

func (identity) ToStorage(_ context.Context, data, _ []byte) ([]byte, error) {
	return data, nil
}
