package websocket

import (
	"context"
	"encoding/base64"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

type known map[string]string

func (k known) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	if name, ok := k[token]; ok {
		return &authenticator.Response{User: &user.DefaultInfo{Name: name}}, true, nil
	}
	return nil, false, nil
}

func TestSubprotocolTokens(t *testing.T) {
	a := New(known{"s3cret": "alice"})
	enc := func(s string) string { return tokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		name      string
		websocket bool
		protocols string
		wantUser  string
		wantErr   string
	}{
		{"a known token", true, "v5.channel.k8s.io, " + enc("s3cret"), "alice", ""},
		{"not a websocket request", false, "v5.channel.k8s.io, " + enc("s3cret"), "", ""},
		{"no token subprotocol", true, "v5.channel.k8s.io", "", ""},
		{"an unknown token", true, "v5.channel.k8s.io," + enc("nope"), "", "invalid bearer token"},
		{"two tokens", true, enc("a") + "," + enc("b") + ",x", "", "multiple base64.bearer.authorization tokens specified"},
		{"bad encoding", true, tokenPrefix + "!!!,x", "", "invalid base64.bearer.authorization token encoding"},
		{"no other subprotocol", true, enc("s3cret"), "", "missing additional subprotocol"},
	} {
		r := httptest.NewRequest("GET", "/api/v1/namespaces/default/pods/p/exec", nil)
		if tc.websocket {
			r.Header.Set("Connection", "keep-alive, Upgrade")
			r.Header.Set("Upgrade", "websocket")
		}
		r.Header.Set("Sec-WebSocket-Protocol", tc.protocols)
		resp, ok, err := a.AuthenticateRequest(r)
		switch {
		case tc.wantErr != "":
			if ok || err == nil || err.Error() != tc.wantErr {
				t.Errorf("%s: ok=%v err=%v, want %q", tc.name, ok, err, tc.wantErr)
			}
		case tc.wantUser != "":
			if !ok || resp.User.GetName() != tc.wantUser {
				t.Errorf("%s: ok=%v err=%v", tc.name, ok, err)
			}
			if got := r.Header.Get("Sec-WebSocket-Protocol"); got != "v5.channel.k8s.io" {
				t.Errorf("%s: protocols left %q, want the token removed", tc.name, got)
			}
		default:
			if ok || err != nil {
				t.Errorf("%s: ok=%v err=%v, want no credential", tc.name, ok, err)
			}
		}
	}
}
