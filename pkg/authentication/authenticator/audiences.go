package authenticator

import "context"

type audiencesKey struct{}

// WithAudiences returns a context asking the authenticators that know
// audiences (service-account tokens) to accept a credential only for
// these, instead of the API server's own: a TokenReview's spec.audiences.
func WithAudiences(ctx context.Context, auds []string) context.Context {
	return context.WithValue(ctx, audiencesKey{}, auds)
}

// AudiencesFrom returns the audiences of WithAudiences, or false when the
// request is for the API server's own audiences.
func AudiencesFrom(ctx context.Context) ([]string, bool) {
	auds, ok := ctx.Value(audiencesKey{}).([]string)
	return auds, ok
}
