package group

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

func returning(resp *authenticator.Response, ok bool, err error) authenticator.Request {
	return authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
		return resp, ok, err
	})
}

func TestAuthenticatedGroupAdder(t *testing.T) {
	extra := map[string][]string{user.CredentialIDKey: {"X509SHA256=ab"}}
	tests := []struct {
		name       string
		user       *user.DefaultInfo
		wantGroups []string
	}{
		{
			name:       "user without groups gets system:authenticated",
			user:       &user.DefaultInfo{Name: "alice", UID: "42", Extra: extra},
			wantGroups: []string{"system:authenticated"},
		},
		{
			name:       "system:authenticated is appended after the user's groups",
			user:       &user.DefaultInfo{Name: "kubernetes-admin", Groups: []string{"system:masters"}},
			wantGroups: []string{"system:masters", "system:authenticated"},
		},
		{
			name:       "user already in system:authenticated is unchanged",
			user:       &user.DefaultInfo{Name: "bob", Groups: []string{"system:authenticated", "dev"}},
			wantGroups: []string{"system:authenticated", "dev"},
		},
		{
			name:       "user marked unauthenticated is unchanged",
			user:       &user.DefaultInfo{Name: "guest", Groups: []string{"system:unauthenticated"}},
			wantGroups: []string{"system:unauthenticated"},
		},
		{
			name:       "anonymous is never authenticated",
			user:       &user.DefaultInfo{Name: "system:anonymous"},
			wantGroups: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			origGroups := append([]string(nil), tt.user.Groups...)
			in := &authenticator.Response{User: tt.user, Audiences: []string{"api"}}

			resp, ok, err := NewAuthenticatedGroupAdder(returning(in, true, nil)).
				AuthenticateRequest(httptest.NewRequest("GET", "/", nil))
			if err != nil || !ok {
				t.Fatalf("ok=%v err=%v, want ok", ok, err)
			}

			got := resp.User
			if !reflect.DeepEqual(got.GetGroups(), tt.wantGroups) {
				t.Errorf("groups = %q, want %q", got.GetGroups(), tt.wantGroups)
			}
			if got.GetName() != tt.user.Name || got.GetUID() != tt.user.UID || !reflect.DeepEqual(got.GetExtra(), tt.user.Extra) {
				t.Errorf("identity changed: got %#v from %#v", got, tt.user)
			}
			if !reflect.DeepEqual(resp.Audiences, []string{"api"}) {
				t.Errorf("audiences = %v, want them kept", resp.Audiences)
			}
			if !reflect.DeepEqual(tt.user.Groups, origGroups) {
				t.Errorf("delegate's user was modified: groups %q, were %q", tt.user.Groups, origGroups)
			}
		})
	}
}

func TestAuthenticatedGroupAdderPassesFailuresThrough(t *testing.T) {
	errBad := errors.New("bad token")
	someone := &authenticator.Response{User: &user.DefaultInfo{Name: "alice"}}
	tests := []struct {
		name    string
		resp    *authenticator.Response
		ok      bool
		err     error
		wantErr error
	}{
		{name: "no credential", ok: false},
		{name: "invalid credential", ok: false, err: errBad, wantErr: errBad},
		{name: "error wins over a response", resp: someone, ok: true, err: errBad, wantErr: errBad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, ok, err := NewAuthenticatedGroupAdder(returning(tt.resp, tt.ok, tt.err)).
				AuthenticateRequest(httptest.NewRequest("GET", "/", nil))
			if ok || resp != nil {
				t.Errorf("ok=%v resp=%v, want not authenticated", ok, resp)
			}
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}
