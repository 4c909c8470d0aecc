package storage

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// The prefixes a list of configmaps is made under: etcd3 lists under the
// storage's path prefix, the watch cache under the resource's key alone.
// A token one hands out may be continued by the other.
const (
	etcdPrefix  = "/registry/configmaps/"
	cachePrefix = "/configmaps/"
)

// Whatever a client sends as a continue token, DecodeContinue either
// refuses it with a 400, or returns a key inside the listed prefix (no
// "..", "." or empty segment can climb out of it) and a revision, and
// encoding that key and revision again gives a token that decodes to the
// same.
func FuzzDecodeContinue(f *testing.F) {
	f.Fuzz(func(t *testing.T, token string) {
		key, rv, err := DecodeContinue(token, etcdPrefix)
		if err != nil {
			if !apierrors.IsBadRequest(err) || !strings.HasPrefix(err.Error(), "invalid continue token: continue key is not valid") {
				t.Fatalf("token %q: got %v, want a 400 invalid continue token", token, err)
			}
			return
		}
		rel, ok := strings.CutPrefix(key, etcdPrefix)
		if !ok || rel == "" {
			t.Fatalf("token %q: key %q is not below %q", token, key, etcdPrefix)
		}
		for _, seg := range strings.Split(rel, "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("token %q: key %q has segment %q", token, key, seg)
			}
		}
		if rv == 0 {
			t.Fatalf("token %q: revision 0 accepted", token)
		}
		again, err := EncodeContinue(key, etcdPrefix, rv)
		if err != nil {
			t.Fatalf("token %q: re-encoding %q at %d: %v", token, key, rv, err)
		}
		key2, rv2, err := DecodeContinue(again, etcdPrefix)
		if err != nil || key2 != key || rv2 != rv {
			t.Fatalf("token %q: re-encoded as %q, which decodes to %q, %d, %v; want %q, %d", token, again, key2, rv2, err, key, rv)
		}
	})
}

// A token kapi hands out (for the next key of a list, after an object's
// namespace and name, at the list's revision or -1 for an inconsistent
// continuation) decodes to exactly that key and revision, under either
// layer's prefix, and is kube-apiserver's JSON.
func FuzzEncodeContinue(f *testing.F) {
	f.Fuzz(func(t *testing.T, namespace, name string, rv int64) {
		// Only keys of objects kapi can store: names that are path
		// segments (generic.Store refuses the others) in UTF-8 (name
		// validation refuses the others long before, and JSON could not
		// carry them), at a revision that is not 0 (no read happens at 0).
		if !isKeySegment(name) || (namespace != "" && !isKeySegment(namespace)) || rv == 0 {
			return
		}
		rel := name + "\x00"
		if namespace != "" {
			rel = namespace + "/" + rel
		}
		token, err := EncodeContinue(etcdPrefix+rel, etcdPrefix, rv)
		if err != nil {
			t.Fatalf("encoding %q at %d: %v", rel, rv, err)
		}
		data, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil {
			t.Fatalf("token %q is not unpadded base64url: %v", token, err)
		}
		var fields map[string]any
		if err := json.Unmarshal(data, &fields); err != nil || len(fields) != 3 || fields["v"] != "meta.k8s.io/v1" || fields["start"] != rel {
			t.Fatalf("token %q is %s, want kube-apiserver's {v, rv, start}", token, data)
		}
		for _, prefix := range []string{etcdPrefix, cachePrefix} {
			key, rv2, err := DecodeContinue(token, prefix)
			if err != nil || key != prefix+rel || rv2 != rv {
				t.Fatalf("token %q under %q: got %q, %d, %v; want %q, %d", token, prefix, key, rv2, err, prefix+rel, rv)
			}
		}
	})
}

// isKeySegment reports whether s can be one segment of a storage key.
func isKeySegment(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/%") && utf8.ValidString(s)
}
