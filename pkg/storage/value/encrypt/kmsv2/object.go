package kmsv2

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The kinds of DEK source, kube-apiserver's EncryptedDEKSourceType.
const (
	// sourceAESGCMKey: the DEK source is the AES-GCM key itself (what
	// kube-apiserver wrote before 1.29).
	sourceAESGCMKey = 0
	// sourceHKDFSeed: the DEK source is a seed; each value's key is
	// HKDF-SHA256-Expand(seed, info), info being the value's first 32
	// bytes. What kube-apiserver writes, and kapi too.
	sourceHKDFSeed = 1
)

// Limits of an EncryptedObject, kube-apiserver's.
const (
	maxKeyID           = 1024
	maxDEKSource       = 1024
	maxAnnotationsSize = 32 * 1024
)

// encryptedObject is kube-apiserver's EncryptedObject message
// (k8s.io/apiserver/.../kmsv2/v2/api.proto), the value stored after
// "k8s:enc:kms:v2:<provider>:":
//
//	1 encryptedData bytes, 2 keyID string, 3 encryptedDEKSource bytes,
//	4 annotations map<string, bytes>, 5 encryptedDEKSourceType enum.
//
// It is encoded here with protowire rather than generated code: five
// fields do not need a generator.
type encryptedObject struct {
	data        []byte
	keyID       string
	dekSource   []byte
	annotations map[string][]byte
	sourceType  uint64
}

func (o *encryptedObject) marshal() []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, o.data)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendString(b, o.keyID)
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	b = protowire.AppendBytes(b, o.dekSource)
	for k, v := range o.annotations {
		var e []byte
		e = protowire.AppendTag(e, 1, protowire.BytesType)
		e = protowire.AppendString(e, k)
		e = protowire.AppendTag(e, 2, protowire.BytesType)
		e = protowire.AppendBytes(e, v)
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendBytes(b, e)
	}
	if o.sourceType != 0 {
		b = protowire.AppendTag(b, 5, protowire.VarintType)
		b = protowire.AppendVarint(b, o.sourceType)
	}
	return b
}

var errMalformed = errors.New("malformed EncryptedObject")

func unmarshal(b []byte) (*encryptedObject, error) {
	o := &encryptedObject{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, errMalformed
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.BytesType:
			o.data, n = protowire.ConsumeBytes(b)
		case num == 2 && typ == protowire.BytesType:
			var s []byte
			s, n = protowire.ConsumeBytes(b)
			o.keyID = string(s)
		case num == 3 && typ == protowire.BytesType:
			o.dekSource, n = protowire.ConsumeBytes(b)
		case num == 4 && typ == protowire.BytesType:
			var e []byte
			e, n = protowire.ConsumeBytes(b)
			if n >= 0 {
				k, v, err := mapEntry(e)
				if err != nil {
					return nil, err
				}
				if o.annotations == nil {
					o.annotations = map[string][]byte{}
				}
				o.annotations[k] = v
			}
		case num == 5 && typ == protowire.VarintType:
			o.sourceType, n = protowire.ConsumeVarint(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return nil, errMalformed
		}
		b = b[n:]
	}
	return o, o.validate()
}

func mapEntry(b []byte) (string, []byte, error) {
	var k string
	v := []byte{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", nil, errMalformed
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.BytesType:
			var s []byte
			s, n = protowire.ConsumeBytes(b)
			k = string(s)
		case num == 2 && typ == protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return "", nil, errMalformed
		}
		b = b[n:]
	}
	return k, v, nil
}

// validate checks what kube-apiserver checks of an EncryptedObject, read
// or written.
func (o *encryptedObject) validate() error {
	if o.sourceType != sourceAESGCMKey && o.sourceType != sourceHKDFSeed {
		return fmt.Errorf("unknown encryptedDEKSourceType: %d", o.sourceType)
	}
	if len(o.data) == 0 {
		return errors.New("encrypted data is empty")
	}
	if len(o.dekSource) == 0 {
		return errors.New("failed to validate encrypted DEK source: encrypted DEK source is empty")
	}
	if len(o.dekSource) > maxDEKSource {
		return fmt.Errorf("failed to validate encrypted DEK source: encrypted DEK source is %d bytes, which exceeds the max size of %d", len(o.dekSource), maxDEKSource)
	}
	if err := validateKeyID(o.keyID); err != nil {
		return fmt.Errorf("failed to validate key id: %w", err)
	}
	if err := validateAnnotations(o.annotations); err != nil {
		return fmt.Errorf("failed to validate annotations: %w", err)
	}
	return nil
}

// invalidKeyIDCode is kube-apiserver's name of what is wrong with an
// invalid key ID, the error label of
// apiserver_envelope_encryption_invalid_key_id_from_status_total.
func invalidKeyIDCode(id string) string {
	if id == "" {
		return "empty"
	}
	return "too_long"
}

func validateKeyID(id string) error {
	if id == "" {
		return errors.New("keyID is empty")
	}
	if len(id) > maxKeyID {
		return fmt.Errorf("keyID is %d bytes, which exceeds the max size of %d", len(id), maxKeyID)
	}
	return nil
}

// validateAnnotations: keys are DNS names (the plugin's own domain), and
// all of it fits in 32 KiB.
func validateAnnotations(a map[string][]byte) error {
	size := 0
	for k, v := range a {
		if msgs := validation.IsDNS1123Subdomain(k); len(msgs) > 0 || !containsDot(k) {
			return fmt.Errorf("annotations: Invalid value: %q: should be a domain with at least two segments separated by dots", k)
		}
		size += len(k) + len(v)
	}
	if size > maxAnnotationsSize {
		return fmt.Errorf("total size of annotations is %d, which exceeds the max size of %d", size, maxAnnotationsSize)
	}
	return nil
}

func containsDot(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return true
		}
	}
	return false
}
