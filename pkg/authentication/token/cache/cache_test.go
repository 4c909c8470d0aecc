package cache

import (
	"errors"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// counting answers like the webhook recorded against kube-apiserver:
// "good" is a user, "error" an explained refusal, anything else unknown.
type counting struct{ calls map[string]int }

func (c *counting) AuthenticateToken(token string) (*authenticator.Response, bool, error) {
	c.calls[token]++
	switch token {
	case "good":
		return &authenticator.Response{User: &user.DefaultInfo{Name: "wh-user"}}, true, nil
	case "error":
		return nil, false, errors.New("token is revoked")
	}
	return nil, false, nil
}

// kube-apiserver 1.37.1 with --authentication-token-webhook-cache-ttl=1h
// called the webhook once for two requests with an accepted token, once
// for two with an unknown one, and twice for two refused with an error.
func TestWhatIsCached(t *testing.T) {
	d := &counting{calls: map[string]int{}}
	now := time.Unix(1000, 0)
	c := New(d, time.Hour, time.Hour)
	c.now = func() time.Time { return now }
	for range 2 {
		if resp, ok, err := c.AuthenticateToken("good"); !ok || err != nil || resp.User.GetName() != "wh-user" {
			t.Fatalf("good: ok=%v err=%v", ok, err)
		}
		if _, ok, err := c.AuthenticateToken("unknown"); ok || err != nil {
			t.Fatalf("unknown: ok=%v err=%v", ok, err)
		}
		if _, ok, err := c.AuthenticateToken("error"); ok || err == nil {
			t.Fatalf("error: ok=%v err=%v", ok, err)
		}
	}
	want := map[string]int{"good": 1, "unknown": 1, "error": 2}
	for tok, n := range want {
		if d.calls[tok] != n {
			t.Errorf("%s: %d calls, want %d", tok, d.calls[tok], n)
		}
	}
	now = now.Add(time.Hour)
	c.AuthenticateToken("good")
	if d.calls["good"] != 2 {
		t.Errorf("after the TTL the delegate was asked %d times, want 2", d.calls["good"])
	}
}

func TestZeroTTLDoesNotCache(t *testing.T) {
	d := &counting{calls: map[string]int{}}
	c := New(d, 0, 0)
	c.AuthenticateToken("good")
	c.AuthenticateToken("good")
	if d.calls["good"] != 2 {
		t.Errorf("%d calls, want 2", d.calls["good"])
	}
}
