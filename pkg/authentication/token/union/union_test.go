package union

import (
	"context"
	"errors"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

type fixed struct {
	name string
	err  error
}

func (f fixed) AuthenticateToken(context.Context, string) (*authenticator.Response, bool, error) {
	if f.err != nil || f.name == "" {
		return nil, false, f.err
	}
	return &authenticator.Response{User: &user.DefaultInfo{Name: f.name}}, true, nil
}

func TestFirstSuccessWinsAndErrorsDoNotStopTheSearch(t *testing.T) {
	u := New(fixed{}, fixed{err: errors.New("oidc: bad signature")}, fixed{name: "webhook-user"}, fixed{name: "never"})
	resp, ok, err := u.AuthenticateToken(context.Background(), "t")
	if !ok || err != nil || resp.User.GetName() != "webhook-user" {
		t.Fatalf("resp=%v ok=%v err=%v", resp, ok, err)
	}
}

func TestRefusalsAreErrorsOnlyWhenSomeoneExplained(t *testing.T) {
	if _, ok, err := New(fixed{}, fixed{}).AuthenticateToken(context.Background(), "t"); ok || err != nil {
		t.Errorf("unknown everywhere: ok=%v err=%v, want neither", ok, err)
	}
	_, ok, err := New(fixed{}, fixed{err: errors.New("token is revoked")}).AuthenticateToken(context.Background(), "t")
	if ok || err == nil || err.Error() != "token is revoked" {
		t.Errorf("ok=%v err=%v, want the explanation", ok, err)
	}
}
