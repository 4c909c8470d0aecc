package anonymous

import (
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

func TestEveryRequestIsAnonymous(t *testing.T) {
	req := httptest.NewRequest("GET", "/api/v1/namespaces", nil)
	req.Header.Set("Authorization", "Bearer ignored")

	resp, ok, err := New().AuthenticateRequest(req)
	if err != nil || !ok {
		t.Fatalf("AuthenticateRequest() = ok %v, err %v; want ok, no error", ok, err)
	}
	want := &user.DefaultInfo{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}
	if !reflect.DeepEqual(resp.User, want) {
		t.Errorf("user = %#v, want %#v", resp.User, want)
	}
}

func TestUsersAreNotShared(t *testing.T) {
	a := New()
	first, _, _ := a.AuthenticateRequest(httptest.NewRequest("GET", "/", nil))
	first.User.(*user.DefaultInfo).Groups[0] = "mutated"

	second, _, _ := a.AuthenticateRequest(httptest.NewRequest("GET", "/", nil))
	if got := second.User.GetGroups(); !reflect.DeepEqual(got, []string{user.AllUnauthenticated}) {
		t.Errorf("second request's groups = %v: a caller's change leaked into it", got)
	}
}

func TestOnlyTheConditionsPaths(t *testing.T) {
	a := NewForPaths([]string{"/livez", "/readyz"})
	for path, want := range map[string]bool{"/livez": true, "/readyz": true, "/livez/ping": false, "/healthz": false, "/api": false} {
		_, ok, err := a.AuthenticateRequest(httptest.NewRequest("GET", path, nil))
		if ok != want || err != nil {
			t.Errorf("%s: ok=%v err=%v, want ok=%v", path, ok, err, want)
		}
	}
}
