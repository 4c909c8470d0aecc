package generic

import (
	"context"
	"time"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

// schemeTyper names the kinds of built-in objects in errors.
var schemeTyper = scheme.Scheme

func addWarning(ctx context.Context, text string) { warning.AddWarning(ctx, text) }

func ctxWithNamespace(ctx context.Context, ns string) context.Context {
	return request.WithNamespace(ctx, ns)
}

func secondsDuration(s int64) time.Duration { return time.Duration(s) * time.Second }
