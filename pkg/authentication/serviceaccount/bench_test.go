package serviceaccount

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/token/cache"
	"github.com/kapi-dev/kapi/pkg/authentication/token/union"
	sa "github.com/kapi-dev/kapi/pkg/serviceaccount"
)

// BenchmarkAuthenticateToken measures full verification of pod-bound
// tokens: parse, signature (uncached: every token new; cached: tokens seen
// in the last 10s skip it), time and audience checks, and the lookups of
// the account and the bound pod (from an in-memory getter, as the informers'
// listers serve them); token-cache: the same tokens through the token
// cache of the authentication chain, which answers them from memory. It reports tokens/s per core; kube-apiserver is
// held to 5,000 verifications per second.
//
//	go test -run x -bench AuthenticateToken ./pkg/authentication/serviceaccount/
func BenchmarkAuthenticateToken(b *testing.B) {
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, k := range []struct {
		name string
		key  crypto.Signer
	}{{"ES256", ecKey}, {"RS256", rsaKey}} {
		for _, mode := range []string{"uncached", "cached", "token-cache"} {
			name := k.name + "/pod-bound/" + mode
			b.Run(name, func(b *testing.B) {
				signer, err := sa.NewSigner(k.key)
				if err != nil {
					b.Fatal(err)
				}
				v, _ := sa.NewVerifier([]crypto.PublicKey{k.key.Public()})
				objs := &objects{
					accounts: map[string]*corev1.ServiceAccount{"ns/robot": {ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "robot", UID: "sa-uid"}}},
					pods:     map[string]*corev1.Pod{"ns/p": {ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "p-uid"}}},
				}
				now := time.Now()
				r := sa.BoundRequest{Issuer: "https://kubernetes.default.svc", Audiences: []string{"https://kubernetes.default.svc"},
					Namespace: "ns", ServiceAccount: sa.Ref{Name: "robot", UID: "sa-uid"}, IssuedAt: now.Unix(), ExpirationSeconds: 3600}
				r.Pod = &sa.Ref{Name: "p", UID: "p-uid"}
				// Distinct tokens; the cached runs see each again every 1,024
				// requests, as a client reusing its token would.
				tokens := make([]string, 1024)
				for i := range tokens {
					r.ID = fmt.Sprint(i)
					if tokens[i], err = signer.Sign(sa.BoundClaims(r)); err != nil {
						b.Fatal(err)
					}
				}
				a := New(Config{Issuers: []string{r.Issuer}, Verifier: v, APIAudiences: r.Audiences, Lookup: true, Getter: objs,
					Now: func() time.Time { return now }})
				var tokenAuth authenticator.Token = a
				switch mode {
				case "uncached":
					// Every token is new to the authenticator: each is
					// parsed and its signature checked.
					a.verified = newVerifiedCache(1, verifiedCacheTTL)
				case "token-cache":
					// What a request pays: the token cache of kapi's
					// chain, around the union of the token
					// authenticators, remembering successes.
					tokenAuth = cache.New(union.New(a), cache.Options{SuccessTTL: cache.SuccessTTL, CacheErrors: true,
						DefaultAudiences: r.Audiences, Now: func() time.Time { return now }})
				}
				measure(b, func(i int) {
					if _, ok, err := tokenAuth.AuthenticateToken(context.Background(), tokens[i%len(tokens)]); !ok || err != nil {
						b.Fatal(ok, err)
					}
				})
			})
		}
		b.Run(k.name+"/signature-only", func(b *testing.B) {
			signer, _ := sa.NewSigner(k.key)
			v, _ := sa.NewVerifier([]crypto.PublicKey{k.key.Public()})
			tok, _ := signer.Sign(&sa.Claims{Issuer: "i"})
			parsed, err := sa.Parse(tok)
			if err != nil {
				b.Fatal(err)
			}
			measure(b, func(int) {
				if err := v.Verify(parsed); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// measure runs op b.N times and reports tokens/s and tokens/cpu-s.
func measure(b *testing.B, op func(i int)) {
	b.ReportAllocs()
	b.ResetTimer()
	start, cpuStart := time.Now(), cpuTime()
	for i := 0; i < b.N; i++ {
		op(i)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "tokens/s")
	b.ReportMetric(float64(b.N)/(cpuTime()-cpuStart).Seconds(), "tokens/cpu-s")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
