package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/request/anonymous"
	"github.com/kapi-dev/kapi/pkg/authentication/token/jwt"
	tokenunion "github.com/kapi-dev/kapi/pkg/authentication/token/union"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// ErrAnonymousFlagConflict is kube-apiserver's refusal of --anonymous-auth
// next to a file with an anonymous section.
var ErrAnonymousFlagConflict = errors.New("anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file")

// ErrAnonymousChanged refuses a reloaded file whose anonymous section is
// not the one the server started with, in kube-apiserver's words (which
// it logs).
var ErrAnonymousChanged = errors.New("anonymous: Forbidden: changed from initial configuration file")

// Dynamic is the authentication a --authentication-config file describes,
// kept up to date with the file: as kube-apiserver, a changed file that is
// valid replaces the JWT authenticators, one that is not is logged and the
// previous configuration stays in force. The anonymous section may not
// change: a file whose section differs from the one the server started
// with is refused, as kube-apiserver refuses it.
//
// Each reload that looked at changed content is counted in the metrics,
// as kube-apiserver's automatic reloads are: a success when the new
// configuration is in force, a failure otherwise. A file that cannot be
// read is tried again at the next look (and counted again); a file that
// is invalid is not, until its content changes.
type Dynamic struct {
	path string
	// anonymousFlag is --anonymous-auth, in force when the file has no
	// anonymous section; anonymousFlagSet says it was given explicitly.
	anonymousFlag, anonymousFlagSet bool
	log                             *slog.Logger
	metrics                         Metrics
	// anonymous is the anonymous section of the file at start.
	anonymous *AnonymousConfig

	mu sync.Mutex // serializes reloads
	// content is the content last looked at that needs no second look:
	// the configuration in force, or an invalid one.
	content []byte
	state   atomic.Pointer[state]
}

// Metrics are what a Dynamic records; nil fields record nothing.
type Metrics struct {
	// Reloads are the apiserver_authentication_config_controller_*
	// families (NewReloadMetrics).
	Reloads *metrics.ConfigReloads
	// JWT records the JWT authenticators' verifications and key fetches.
	JWT *jwt.Metrics
}

// NewReloadMetrics returns the unregistered reload metrics of
// --authentication-config of the server named serverID, with
// kube-apiserver 1.37's names and help.
func NewReloadMetrics(serverID string) *metrics.ConfigReloads {
	return metrics.NewConfigReloads(metrics.ConfigReloadOpts{
		Prefix:        "apiserver_authentication_config_controller",
		ReloadsHelp:   "[BETA] Total number of automatic reloads of authentication configuration split by status and apiserver identity.",
		TimestampHelp: "[BETA] Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity.",
		InfoHelp:      "[ALPHA] Information about the last applied authentication configuration with hash as label, split by apiserver identity.",
	}, serverID)
}

type state struct {
	tokens    tokenunion.Authenticator
	anonymous authenticator.Request // nil: anonymous requests are refused
	issuers   []string
}

// NewDynamic loads path; an invalid file is an error, as at
// kube-apiserver's start.
func NewDynamic(path string, anonymousFlag, anonymousFlagSet bool, log *slog.Logger, m Metrics) (*Dynamic, error) {
	d := &Dynamic{path: path, anonymousFlag: anonymousFlag, anonymousFlagSet: anonymousFlagSet, log: log, metrics: m}
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	st, err := d.build(data, true)
	if err != nil {
		return nil, err
	}
	d.state.Store(st)
	d.content = data
	m.Reloads.InUse(metrics.Hash(string(data)))
	return d, nil
}

// Reload reads the file again and applies it if it changed.
func (d *Dynamic) Reload() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	data, err := readFile(d.path)
	if err != nil {
		d.metrics.Reloads.ReloadFailed()
		return err
	}
	if bytes.Equal(data, d.content) {
		return nil
	}
	// Whatever becomes of it, this content needs no second look.
	d.content = data
	st, err := d.build(data, false)
	if err != nil {
		d.metrics.Reloads.ReloadFailed()
		return err
	}
	old := d.state.Swap(st)
	for _, issuer := range old.issuers {
		if !slices.Contains(st.issuers, issuer) {
			d.metrics.JWT.Forget(issuer)
		}
	}
	d.metrics.Reloads.Reloaded(metrics.Hash(string(data)))
	d.log.Info("Loaded a new authentication configuration", "file", d.path)
	return nil
}

// build validates and compiles the content of the file, at start or on
// a reload.
func (d *Dynamic) build(data []byte, start bool) (*state, error) {
	decoded, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("failed to load authentication configuration from file %q: %w", d.path, err)
	}
	c, err := Compile(decoded)
	if err != nil {
		return nil, err
	}
	if start {
		d.anonymous = c.Anonymous
	} else if !reflect.DeepEqual(c.Anonymous, d.anonymous) {
		return nil, ErrAnonymousChanged
	}
	if c.Anonymous != nil && d.anonymousFlagSet {
		return nil, ErrAnonymousFlagConflict
	}
	st := &state{}
	for _, cfg := range c.JWT {
		cfg.Metrics = d.metrics.JWT
		a, err := jwt.New(cfg)
		if err != nil {
			return nil, err
		}
		st.tokens = append(st.tokens, a)
		st.issuers = append(st.issuers, cfg.IssuerURL)
	}
	switch {
	case c.Anonymous != nil && c.Anonymous.Enabled:
		var paths []string
		for _, cond := range c.Anonymous.Conditions {
			paths = append(paths, cond.Path)
		}
		st.anonymous = anonymous.NewForPaths(paths)
	case c.Anonymous == nil && d.anonymousFlag:
		st.anonymous = anonymous.New()
	}
	return st, nil
}

// Run reloads every interval until ctx ends.
func (d *Dynamic) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := d.Reload(); err != nil {
				d.log.Error("Keeping the previous authentication configuration", "file", d.path, "err", err)
			}
		}
	}
}

// AuthenticateToken asks the JWT authenticators in force.
func (d *Dynamic) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	return d.state.Load().tokens.AuthenticateToken(ctx, token)
}

// Anonymous is the anonymous authenticator in force, to end the chain.
func (d *Dynamic) Anonymous() authenticator.Request {
	return authenticator.RequestFunc(func(req *http.Request) (*authenticator.Response, bool, error) {
		a := d.state.Load().anonymous
		if a == nil {
			return nil, false, nil
		}
		return a.AuthenticateRequest(req)
	})
}
