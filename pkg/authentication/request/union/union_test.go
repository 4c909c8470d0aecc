package union

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// fake is an authenticator with a fixed outcome that counts its calls.
type fake struct {
	name  string // user name returned on success
	ok    bool
	err   error
	calls int
}

func (f *fake) AuthenticateRequest(*http.Request) (*authenticator.Response, bool, error) {
	f.calls++
	if !f.ok {
		return nil, false, f.err
	}
	return &authenticator.Response{User: &user.DefaultInfo{Name: f.name}}, true, f.err
}

var (
	errBadToken = errors.New("bad token")
	errBadCert  = errors.New("bad certificate")
)

func succeeds(name string) *fake { return &fake{name: name, ok: true} }
func fails(err error) *fake      { return &fake{err: err} }
func abstains() *fake            { return &fake{} }

func TestUnion(t *testing.T) {
	tests := []struct {
		name        string
		failOnError bool
		chain       []*fake
		wantUser    string // "" when the union must not authenticate
		wantErrs    []error
		wantCalls   []int
	}{
		{
			name:      "empty union does not authenticate",
			wantCalls: []int{},
		},
		{
			name:      "first success wins and later authenticators are not asked",
			chain:     []*fake{abstains(), succeeds("alice"), succeeds("bob")},
			wantUser:  "alice",
			wantCalls: []int{1, 1, 0},
		},
		{
			name:      "nobody found a credential: not ok, no error",
			chain:     []*fake{abstains(), abstains()},
			wantCalls: []int{1, 1},
		},
		{
			name:      "an error does not stop the search",
			chain:     []*fake{fails(errBadCert), succeeds("alice")},
			wantUser:  "alice",
			wantCalls: []int{1, 1},
		},
		{
			name:      "every error is reported when nobody succeeds",
			chain:     []*fake{fails(errBadCert), abstains(), fails(errBadToken)},
			wantErrs:  []error{errBadCert, errBadToken},
			wantCalls: []int{1, 1, 1},
		},
		{
			name:        "fail on error: the first error ends the search",
			failOnError: true,
			chain:       []*fake{fails(errBadToken), succeeds("system:anonymous")},
			wantErrs:    []error{errBadToken},
			wantCalls:   []int{1, 0},
		},
		{
			name:        "fail on error: abstaining still passes on",
			failOnError: true,
			chain:       []*fake{abstains(), succeeds("system:anonymous")},
			wantUser:    "system:anonymous",
			wantCalls:   []int{1, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var chain []authenticator.Request
			for _, f := range tt.chain {
				chain = append(chain, f)
			}
			u := New(chain...)
			if tt.failOnError {
				u = NewFailOnError(chain...)
			}

			resp, ok, err := u.AuthenticateRequest(httptest.NewRequest("GET", "/", nil))

			if tt.wantUser == "" {
				if ok || resp != nil {
					t.Errorf("authenticated (ok=%v, resp=%v), want not authenticated", ok, resp)
				}
			} else if !ok || resp.User.GetName() != tt.wantUser {
				t.Errorf("got ok=%v resp=%v, want user %q", ok, resp, tt.wantUser)
			}
			if len(tt.wantErrs) == 0 && err != nil {
				t.Errorf("unexpected error: %v", err)
			}
			if len(tt.wantErrs) > 0 && err == nil {
				t.Errorf("no error, want %v", tt.wantErrs)
			}
			for _, want := range tt.wantErrs {
				if !errors.Is(err, want) {
					t.Errorf("error %v does not include %v", err, want)
				}
			}
			for i, f := range tt.chain {
				if f.calls != tt.wantCalls[i] {
					t.Errorf("authenticator %d called %d times, want %d", i, f.calls, tt.wantCalls[i])
				}
			}
		})
	}
}
