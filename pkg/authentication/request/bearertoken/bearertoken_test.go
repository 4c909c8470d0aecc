package bearertoken

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// tokens is a token authenticator that knows one good token, fails with
// errExpired on "expired", and records the tokens it is asked about.
type tokens struct{ asked []string }

var errExpired = errors.New("token has expired")

func (f *tokens) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	f.asked = append(f.asked, token)
	switch token {
	case "good":
		return &authenticator.Response{User: &user.DefaultInfo{Name: "alice"}}, true, nil
	case "expired":
		return nil, false, errExpired
	}
	return nil, false, nil
}

func TestAuthenticateRequest(t *testing.T) {
	tests := []struct {
		name       string
		header     []string // Authorization header values; nil for none
		wantAsked  string   // token handed to the token authenticator, if any
		wantUser   string
		wantErr    error
		wantHeader bool // whether the Authorization header must remain
	}{
		{name: "no header"},
		{name: "empty header", header: []string{""}, wantHeader: true},
		{name: "other scheme", header: []string{"Basic YWxpY2U6cHc="}, wantHeader: true},
		{name: "scheme without token", header: []string{"Bearer"}, wantHeader: true},
		{name: "scheme with blank token", header: []string{"Bearer   "}, wantHeader: true},
		{name: "space before the token", header: []string{"Bearer  good"}, wantHeader: true},
		{name: "valid token", header: []string{"Bearer good"}, wantAsked: "good", wantUser: "alice"},
		{name: "scheme is case-insensitive", header: []string{"bEaReR good"}, wantAsked: "good", wantUser: "alice"},
		{name: "surrounding space is trimmed", header: []string{"  Bearer good  "}, wantAsked: "good", wantUser: "alice"},
		{name: "words after the token are ignored", header: []string{"Bearer good extra"}, wantAsked: "good", wantUser: "alice"},
		{
			name: "unknown token is a default error", header: []string{"Bearer wrong"},
			wantAsked: "wrong", wantErr: errInvalidToken, wantHeader: true,
		},
		{
			name: "the token authenticator's error is kept", header: []string{"Bearer expired"},
			wantAsked: "expired", wantErr: errExpired, wantHeader: true,
		},
		{
			name: "only the first header value is read", header: []string{"Bearer good", "Bearer other"},
			wantAsked: "good", wantUser: "alice",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/api", nil)
			for _, v := range tt.header {
				req.Header.Add("Authorization", v)
			}
			ta := &tokens{}

			resp, ok, err := New(ta).AuthenticateRequest(req)

			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantUser == "" && (ok || resp != nil) {
				t.Errorf("authenticated as %v, want not authenticated", resp)
			}
			if tt.wantUser != "" && (!ok || resp.User.GetName() != tt.wantUser) {
				t.Errorf("ok=%v resp=%v, want user %q", ok, resp, tt.wantUser)
			}
			switch {
			case tt.wantAsked == "" && len(ta.asked) > 0:
				t.Errorf("token authenticator asked about %q, want not asked", ta.asked)
			case tt.wantAsked != "" && (len(ta.asked) != 1 || ta.asked[0] != tt.wantAsked):
				t.Errorf("token authenticator asked about %q, want [%q]", ta.asked, tt.wantAsked)
			}
			if _, present := req.Header["Authorization"]; present != tt.wantHeader {
				t.Errorf("Authorization header present = %v, want %v", present, tt.wantHeader)
			}
		})
	}
}
