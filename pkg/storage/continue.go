package storage

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// A continue token is what a paged list hands the client to fetch the
// next page. Its format is kube-apiserver's, byte for byte, because clients
// may carry a token from one server to another behind a load balancer: the
// unpadded base64url encoding of
//
//	{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key>"}
//
// where start is the key to resume from (the last key returned followed by
// "\x00") relative to the listed prefix, and rv the revision every page is
// read at. An rv below zero means "the latest revision": it is only handed
// out when the first page's revision was compacted and the client may
// choose an inconsistent continuation.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

const continueTokenVersion = "meta.k8s.io/v1"

// EncodeContinue returns the token that resumes a list of keyPrefix at key
// and revision rv. key must lie below keyPrefix.
func EncodeContinue(key, keyPrefix string, rv int64) (string, error) {
	next, ok := strings.CutPrefix(key, keyPrefix)
	if !ok || next == "" {
		return "", fmt.Errorf("cannot encode continue token: key %q is not below prefix %q", key, keyPrefix)
	}
	data, err := json.Marshal(continueToken{APIVersion: continueTokenVersion, ResourceVersion: rv, StartKey: next})
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(data), nil
}

// DecodeContinue returns the key to resume a list of keyPrefix from, and
// the revision to read it at, from a token made by EncodeContinue (by this
// server or by kube-apiserver). A token that does not decode, is of
// another version, or whose key would escape keyPrefix is a 400 BadRequest
// with kube-apiserver's message.
func DecodeContinue(token, keyPrefix string) (fromKey string, rv int64, err error) {
	fromKey, rv, err = decodeContinue(token, keyPrefix)
	if err != nil {
		return "", 0, apierrors.NewBadRequest("invalid continue token: " + err.Error())
	}
	return fromKey, rv, nil
}

func decodeContinue(token, keyPrefix string) (string, int64, error) {
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", 0, fmt.Errorf("continue key is not valid: %v", err)
	}
	var c continueToken
	if err := json.Unmarshal(data, &c); err != nil {
		return "", 0, fmt.Errorf("continue key is not valid: %v", err)
	}
	if c.APIVersion != continueTokenVersion {
		return "", 0, fmt.Errorf("continue key is not valid: server does not recognize this encoded version %s", c.APIVersion)
	}
	if c.ResourceVersion == 0 {
		return "", 0, fmt.Errorf("continue key is not valid: incorrect encoded start resourceVersion (version %s)", continueTokenVersion)
	}
	if c.StartKey == "" {
		return "", 0, fmt.Errorf("continue key is not valid: encoded start key empty (version %s)", continueTokenVersion)
	}
	// The start key is appended to the prefix being listed, so it must not
	// be able to climb out of it: "../secrets/x" would otherwise list
	// another resource. A key that path.Clean would change is refused.
	// kube-apiserver hands out start keys both with and without a leading
	// slash ("cm1\x00", "/cm1\x00"); both name the same key.
	start := c.StartKey
	if !strings.HasPrefix(start, "/") {
		start = "/" + start
	}
	if path.Clean(start) != start {
		return "", 0, fmt.Errorf("continue key is not valid: %s", c.StartKey)
	}
	return keyPrefix + start[1:], c.ResourceVersion, nil
}
