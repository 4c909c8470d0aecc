package serviceaccount

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	sa "github.com/kapi-dev/kapi/pkg/serviceaccount"
)

const oracleDir = "../../serviceaccount/testdata/oracle/"

// recorded is testdata/oracle/tokens.json of pkg/serviceaccount: tokens
// kube-apiserver issued, the objects they name, and kube-apiserver's
// TokenReview of each.
type recorded struct {
	Issuer  string `json:"issuer"`
	Objects struct {
		Namespace      string `json:"namespace"`
		ServiceAccount sa.Ref `json:"serviceAccount"`
		Pod            struct {
			sa.Ref
			ServiceAccountName string `json:"serviceAccountName"`
			NodeName           string `json:"nodeName"`
		} `json:"pod"`
		Node         sa.Ref `json:"node"`
		Secret       sa.Ref `json:"secret"`
		LegacySecret sa.Ref `json:"legacySecret"`
	} `json:"objects"`
	Tokens []struct {
		Name            string                             `json:"name"`
		Token           string                             `json:"token"`
		ReviewAudiences []string                           `json:"reviewAudiences"`
		Status          authenticationv1.TokenReviewStatus `json:"status"`
	} `json:"tokens"`
}

func load(t *testing.T) (*recorded, *sa.Verifier) {
	t.Helper()
	data, err := os.ReadFile(oracleDir + "tokens.json")
	if err != nil {
		t.Fatal(err)
	}
	var r recorded
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	keys, err := sa.ReadPublicKeys(oracleDir + "sa.pub")
	if err != nil {
		t.Fatal(err)
	}
	v, err := sa.NewVerifier(keys)
	if err != nil {
		t.Fatal(err)
	}
	return &r, v
}

func (r *recorded) token(t *testing.T, name string) string {
	t.Helper()
	for _, tok := range r.Tokens {
		if tok.Name == name {
			return tok.Token
		}
	}
	t.Fatalf("no recorded token %q", name)
	return ""
}

// objects is a Getter over a fixed set of objects.
type objects struct {
	mu       sync.Mutex
	accounts map[string]*corev1.ServiceAccount
	pods     map[string]*corev1.Pod
	secrets  map[string]*corev1.Secret
	nodes    map[string]*corev1.Node
	marked   []string
}

func get[T any](mu *sync.Mutex, m map[string]*T, resource, key string) (*T, error) {
	mu.Lock()
	defer mu.Unlock()
	if o, ok := m[key]; ok {
		return o, nil
	}
	_, name, _ := strings.Cut(key, "/")
	return nil, apierrors.NewNotFound(corev1.Resource(resource), name)
}

func (o *objects) GetServiceAccount(ns, name string) (*corev1.ServiceAccount, error) {
	return get(&o.mu, o.accounts, "serviceaccounts", ns+"/"+name)
}
func (o *objects) GetPod(ns, name string) (*corev1.Pod, error) {
	return get(&o.mu, o.pods, "pods", ns+"/"+name)
}
func (o *objects) GetSecret(ns, name string) (*corev1.Secret, error) {
	return get(&o.mu, o.secrets, "secrets", ns+"/"+name)
}
func (o *objects) GetNode(name string) (*corev1.Node, error) {
	return get(&o.mu, o.nodes, "nodes", "/"+name)
}
func (o *objects) MarkLegacyTokenUsed(ns, name, date string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.marked = append(o.marked, ns+"/"+name+"@"+date)
	return nil
}

func meta(ns string, r sa.Ref) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: r.Name, UID: types.UID(r.UID)}
}

// cluster holds the objects the recorded tokens name, as they were when
// kube-apiserver reviewed them.
func cluster(t *testing.T, r *recorded) *objects {
	o := r.Objects
	ns := o.Namespace
	return &objects{
		accounts: map[string]*corev1.ServiceAccount{ns + "/" + o.ServiceAccount.Name: {ObjectMeta: meta(ns, o.ServiceAccount)}},
		pods: map[string]*corev1.Pod{ns + "/" + o.Pod.Name: {ObjectMeta: meta(ns, o.Pod.Ref),
			Spec: corev1.PodSpec{ServiceAccountName: o.Pod.ServiceAccountName, NodeName: o.Pod.NodeName}}},
		secrets: map[string]*corev1.Secret{
			ns + "/" + o.Secret.Name: {ObjectMeta: meta(ns, o.Secret)},
			ns + "/" + o.LegacySecret.Name: {ObjectMeta: meta(ns, o.LegacySecret), Type: corev1.SecretTypeServiceAccountToken,
				Data: map[string][]byte{corev1.ServiceAccountTokenKey: []byte(r.token(t, "legacy"))}},
		},
		nodes: map[string]*corev1.Node{"/" + o.Node.Name: {ObjectMeta: meta("", o.Node)}},
	}
}

// issuedAt is when a recorded token was issued.
func issuedAt(t *testing.T, token string) time.Time {
	t.Helper()
	p, err := sa.Parse(token)
	if err != nil {
		t.Fatal(err)
	}
	if p.Claims.IssuedAt == 0 {
		// A legacy token has no time; the review was recorded in 2026.
		return time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	}
	return time.Unix(p.Claims.IssuedAt, 0)
}

func newAuthenticator(r *recorded, v *sa.Verifier, objs *objects, now time.Time) *Authenticator {
	return New(Config{
		Issuers:      []string{r.Issuer},
		Verifier:     v,
		APIAudiences: []string{r.Issuer},
		Lookup:       true,
		Legacy:       true,
		Getter:       objs,
		Tracker:      objs,
		Now:          func() time.Time { return now },
	})
}

// TestKubeAPIServerTokensReviewAsKubeAPIServerSays: every token
// kube-apiserver issued authenticates in kapi as the user, uid, groups,
// extra and audiences kube-apiserver's TokenReview gave, or fails with
// its error. (system:authenticated is added by the chain, not here.)
func TestKubeAPIServerTokensReviewAsKubeAPIServerSays(t *testing.T) {
	r, v := load(t)
	for _, tok := range r.Tokens {
		t.Run(tok.Name, func(t *testing.T) {
			a := newAuthenticator(r, v, cluster(t, r), issuedAt(t, tok.Token).Add(time.Minute))
			auds := tok.ReviewAudiences
			if auds == nil {
				auds = []string{r.Issuer}
			}
			resp, ok, err := a.AuthenticateToken(authenticator.WithAudiences(context.Background(), auds), tok.Token)
			want := tok.Status
			if !want.Authenticated {
				// kube-apiserver's error lists every authenticator's:
				// "[invalid bearer token, <this one's>]".
				wantErr := strings.TrimSuffix(strings.TrimPrefix(want.Error, "[invalid bearer token, "), "]")
				if ok || err == nil || err.Error() != wantErr {
					t.Fatalf("ok=%v err=%v, want the error %q", ok, err, wantErr)
				}
				return
			}
			if !ok || err != nil {
				t.Fatalf("ok=%v err=%v", ok, err)
			}
			u := resp.User
			got := authenticationv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: append(u.GetGroups(), "system:authenticated")}
			for k, vals := range u.GetExtra() {
				if got.Extra == nil {
					got.Extra = map[string]authenticationv1.ExtraValue{}
				}
				got.Extra[k] = vals
			}
			if diff := cmp.Diff(want.User, got); diff != "" {
				t.Errorf("user (-kube-apiserver +kapi):\n%s", diff)
			}
			if diff := cmp.Diff(want.Audiences, resp.Audiences); diff != "" {
				t.Errorf("audiences (-kube-apiserver +kapi):\n%s", diff)
			}
		})
	}
}

// TestTokensStopWorking: a token fails, with an error (a 401, never
// anonymous), once what it names is gone or replaced, or its time is up.
func TestTokensStopWorking(t *testing.T) {
	r, v := load(t)
	ns := r.Objects.Namespace
	for _, tc := range []struct {
		name, token string
		change      func(o *objects)
		later       time.Duration
		wantErr     string
	}{
		{name: "service account deleted", token: "plain", change: func(o *objects) { clear(o.accounts) },
			wantErr: `serviceaccounts "robot" not found`},
		{name: "service account recreated", token: "plain", change: func(o *objects) {
			o.accounts[ns+"/robot"] = &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "robot", UID: "new"}}
		}, wantErr: "service account UID (new) does not match claim (" + r.Objects.ServiceAccount.UID + ")"},
		{name: "bound pod deleted", token: "pod-bound-extended", change: func(o *objects) { clear(o.pods) },
			wantErr: "service account token has been invalidated"},
		{name: "bound pod recreated", token: "pod-bound-extended", change: func(o *objects) {
			o.pods[ns+"/p2"] = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p2", UID: "new"}}
		}, wantErr: "pod UID (new) does not match claim (" + r.Objects.Pod.UID + ")"},
		{name: "bound pod being deleted for over a minute", token: "pod-bound-extended", change: func(o *objects) {
			p := o.pods[ns+"/p2"].DeepCopy()
			p.DeletionTimestamp = &metav1.Time{Time: time.Unix(0, 0)}
			o.pods[ns+"/p2"] = p
		}, wantErr: "service account token has been invalidated"},
		{name: "bound secret deleted", token: "secret-bound", change: func(o *objects) { delete(o.secrets, ns+"/s1") },
			wantErr: "service account token has been invalidated"},
		{name: "bound node deleted", token: "node-bound", change: func(o *objects) { clear(o.nodes) },
			wantErr: "service account token has been invalidated"},
		{name: "expired", token: "plain", later: 2 * time.Hour, wantErr: "service account token has expired"},
		{name: "not valid yet", token: "plain", later: -2 * time.Minute, wantErr: "service account token is not valid yet"},
		{name: "legacy secret deleted", token: "legacy", change: func(o *objects) { delete(o.secrets, ns+"/robot-token") },
			wantErr: "Token has been invalidated"},
		{name: "legacy secret holds another token", token: "legacy", change: func(o *objects) {
			s := o.secrets[ns+"/robot-token"].DeepCopy()
			s.Data[corev1.ServiceAccountTokenKey] = []byte("other")
			o.secrets[ns+"/robot-token"] = s
		}, wantErr: "Token does not match server's copy"},
		{name: "legacy secret marked invalid", token: "legacy", change: func(o *objects) {
			s := o.secrets[ns+"/robot-token"].DeepCopy()
			s.Labels = map[string]string{LegacyTokenInvalidSinceLabel: "2026-01-01"}
			o.secrets[ns+"/robot-token"] = s
		}, wantErr: "the token in secret " + ns + "/robot-token for service account " + ns + "/robot has been marked invalid. " +
			"Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the 'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token"},
		{name: "legacy service account recreated", token: "legacy", change: func(o *objects) {
			o.accounts[ns+"/robot"] = &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "robot", UID: "new"}}
		}, wantErr: "ServiceAccount UID (new) does not match claim (" + r.Objects.ServiceAccount.UID + ")"},
		{name: "legacy service account deleted", token: "legacy", change: func(o *objects) { clear(o.accounts) },
			wantErr: `serviceaccounts "robot" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := cluster(t, r)
			if tc.change != nil {
				tc.change(objs)
			}
			token := r.token(t, tc.token)
			a := newAuthenticator(r, v, objs, issuedAt(t, token).Add(tc.later))
			resp, ok, err := a.AuthenticateToken(context.Background(), token)
			if ok || resp != nil || err == nil || err.Error() != tc.wantErr {
				t.Fatalf("ok=%v resp=%v err=%v, want the error %q", ok, resp, err, tc.wantErr)
			}
		})
	}
}

// TestOtherTokensAreNotServiceAccountTokens: what is not a JWT, or is one
// of another issuer, is left to the other authenticators (no error), so
// that static, bootstrap and OIDC tokens get their turn.
func TestOtherTokensAreNotServiceAccountTokens(t *testing.T) {
	r, v := load(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	s, _ := sa.NewSigner(key)
	foreign, _ := s.Sign(&sa.Claims{Issuer: "https://accounts.example.com", Subject: "alice", Audience: sa.Audience{r.Issuer}})
	a := newAuthenticator(r, v, cluster(t, r), time.Now())
	for _, token := range []string{"static-token", "abcdef.0123456789abcdef", "a.b.c", foreign} {
		if resp, ok, err := a.AuthenticateToken(context.Background(), token); ok || resp != nil || err != nil {
			t.Errorf("%q: ok=%v err=%v, want not this authenticator's", token, ok, err)
		}
	}
	// Legacy tokens are someone else's when not accepted.
	a.c.Legacy = false
	if _, ok, err := a.AuthenticateToken(context.Background(), r.token(t, "legacy")); ok || err != nil {
		t.Errorf("legacy token with legacy tokens off: ok=%v err=%v", ok, err)
	}
}

// TestWrongSignatureFails: a token of an accepted issuer signed by a key
// the server does not trust is an error.
func TestWrongSignatureFails(t *testing.T) {
	r, _ := load(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	v, _ := sa.NewVerifier([]crypto.PublicKey{key.Public()})
	token := r.token(t, "plain")
	a := newAuthenticator(r, v, cluster(t, r), issuedAt(t, token))
	if _, ok, err := a.AuthenticateToken(context.Background(), token); ok || err == nil {
		t.Fatalf("ok=%v err=%v, want an error", ok, err)
	}
}

// TestLegacyTokenUseIsTrackedDaily: the Secret of a legacy token is
// labelled with the day of use, and not again that day.
func TestLegacyTokenUseIsTrackedDaily(t *testing.T) {
	r, v := load(t)
	objs := cluster(t, r)
	now := time.Date(2026, 11, 25, 23, 0, 0, 0, time.UTC)
	a := newAuthenticator(r, v, objs, now)
	token := r.token(t, "legacy")
	if _, ok, err := a.AuthenticateToken(context.Background(), token); !ok || err != nil {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	if want := []string{"h-satokens/robot-token@2026-11-25"}; !slices.Equal(objs.marked, want) {
		t.Fatalf("marked %v, want %v", objs.marked, want)
	}
	s := objs.secrets["h-satokens/robot-token"]
	s.Labels = map[string]string{LegacyTokenLastUsedLabel: "2026-11-25"}
	if _, ok, _ := a.AuthenticateToken(context.Background(), token); !ok || len(objs.marked) != 1 {
		t.Fatalf("marked again the same day: %v", objs.marked)
	}
	// Without lookup, the Secret is neither read nor labelled.
	a.c.Lookup = false
	clear(objs.secrets)
	if _, ok, err := a.AuthenticateToken(context.Background(), token); !ok || err != nil {
		t.Fatalf("without lookup: ok=%v err=%v", ok, err)
	}
}

// TestRequestAudiences: a request's audiences come from its context
// (a TokenReview's) or are the API's.
func TestRequestAudiences(t *testing.T) {
	r, v := load(t)
	token := r.token(t, "pod-bound") // audiences a1, a2
	a := newAuthenticator(r, v, cluster(t, r), issuedAt(t, token).Add(time.Minute))
	if _, ok, err := a.AuthenticateToken(context.Background(), token); ok || err == nil {
		t.Fatalf("a token for a1,a2 was accepted for the API: ok=%v err=%v", ok, err)
	}
	resp, ok, err := a.AuthenticateToken(authenticator.WithAudiences(context.Background(), []string{"a1", "x"}), token)
	if !ok || err != nil || !slices.Equal(resp.Audiences, []string{"a1"}) {
		t.Fatalf("ok=%v err=%v resp=%+v", ok, err, resp)
	}
}

// TestVerifiedTokensAreStillChecked: a token whose signature was verified
// before is remembered, but its expiry and its objects are checked on
// every use.
func TestVerifiedTokensAreStillChecked(t *testing.T) {
	r, v := load(t)
	objs := cluster(t, r)
	token := r.token(t, "plain")
	now := issuedAt(t, token).Add(time.Minute)
	a := New(Config{Issuers: []string{r.Issuer}, Verifier: v, APIAudiences: []string{r.Issuer}, Lookup: true, Getter: objs,
		Now: func() time.Time { return now }})
	if _, ok, err := a.AuthenticateToken(context.Background(), token); !ok || err != nil {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	clear(objs.accounts)
	if _, ok, err := a.AuthenticateToken(context.Background(), token); ok || err == nil {
		t.Fatalf("after the account was deleted: ok=%v err=%v", ok, err)
	}
	objs = cluster(t, r)
	a.c.Getter = objs
	now = now.Add(2 * time.Hour)
	if _, ok, err := a.AuthenticateToken(context.Background(), token); ok || err == nil || err.Error() != "service account token has expired" {
		t.Fatalf("after expiry: ok=%v err=%v", ok, err)
	}
}
