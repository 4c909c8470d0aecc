package storage

import (
	"encoding/base64"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func token(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }

func TestEncodeContinue(t *testing.T) {
	got, err := EncodeContinue("/registry/configmaps/defaulting/cm1\x00", "/registry/configmaps/defaulting/", 258)
	if err != nil {
		t.Fatal(err)
	}
	// The exact bytes kube-apiserver produces: field order v, rv, start;
	// NUL escaped by encoding/json; unpadded base64url.
	want := token(`{"v":"meta.k8s.io/v1","rv":258,"start":"cm1\u0000"}`)
	if got != want {
		t.Errorf("EncodeContinue = %q, want %q", got, want)
	}

	if _, err := EncodeContinue("/registry/secrets/x", "/registry/configmaps/", 1); err == nil {
		t.Error("a key outside the prefix: want an error")
	}
}

func TestDecodeContinue(t *testing.T) {
	const prefix = "/registry/configmaps/defaulting/"
	tests := []struct {
		name    string
		token   string
		wantKey string
		wantRV  int64
		wantErr string // message of the 400 Status, "" for success
	}{{
		name: "recorded from kube-apiserver 1.37 (errors/list-too-old-continue-token-after-compaction.txt)",
		// {"v":"meta.k8s.io/v1","rv":258,"start":"/cm1\u0000"}
		token:   "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjU4LCJzdGFydCI6Ii9jbTFcdTAwMDAifQ",
		wantKey: prefix + "cm1\x00",
		wantRV:  258,
	}, {
		name:    "relative start key",
		token:   token(`{"v":"meta.k8s.io/v1","rv":7,"start":"cm1\u0000"}`),
		wantKey: prefix + "cm1\x00",
		wantRV:  7,
	}, {
		name:    "negative revision continues at the latest revision",
		token:   token(`{"v":"meta.k8s.io/v1","rv":-1,"start":"cm1\u0000"}`),
		wantKey: prefix + "cm1\x00",
		wantRV:  -1,
	}, {
		name:    "path traversal",
		token:   token(`{"v":"meta.k8s.io/v1","rv":7,"start":"../secrets/x"}`),
		wantErr: "invalid continue token: continue key is not valid: ../secrets/x",
	}, {
		name:    "path traversal in the middle",
		token:   token(`{"v":"meta.k8s.io/v1","rv":7,"start":"a/../../secrets"}`),
		wantErr: "invalid continue token: continue key is not valid: a/../../secrets",
	}, {
		name:    "another version",
		token:   token(`{"v":"meta.k8s.io/v2","rv":7,"start":"cm1"}`),
		wantErr: "invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2",
	}, {
		name:    "zero revision",
		token:   token(`{"v":"meta.k8s.io/v1","rv":0,"start":"cm1"}`),
		wantErr: "invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
	}, {
		name:    "empty start key",
		token:   token(`{"v":"meta.k8s.io/v1","rv":7,"start":""}`),
		wantErr: "invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)",
	}, {
		name:    "not base64",
		token:   "!!!",
		wantErr: "invalid continue token: continue key is not valid: illegal base64 data at input byte 0",
	}, {
		name:    "not JSON",
		token:   token(`nope`),
		wantErr: "invalid continue token: continue key is not valid: invalid character 'o' in literal null (expecting 'u')",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, rv, err := DecodeContinue(tt.token, prefix)
			if tt.wantErr == "" {
				if err != nil || key != tt.wantKey || rv != tt.wantRV {
					t.Fatalf("DecodeContinue = %q, %d, %v; want %q, %d, nil", key, rv, err, tt.wantKey, tt.wantRV)
				}
				return
			}
			if !apierrors.IsBadRequest(err) {
				t.Fatalf("DecodeContinue error = %v; want a BadRequest", err)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("message = %q\nwant      %q", err.Error(), tt.wantErr)
			}
		})
	}
}

func TestContinueRoundTrip(t *testing.T) {
	const prefix = "/registry/pods/"
	for _, key := range []string{"/registry/pods/ns/a\x00", "/registry/pods/ns/<b>&c\x00"} {
		tok, err := EncodeContinue(key, prefix, 99)
		if err != nil {
			t.Fatal(err)
		}
		got, rv, err := DecodeContinue(tok, prefix)
		if err != nil || got != key || rv != 99 {
			t.Errorf("round trip of %q = %q, %d, %v", key, got, rv, err)
		}
	}
}
