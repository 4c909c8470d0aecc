package config

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/request/anonymous"
	"github.com/kapi-dev/kapi/pkg/authentication/token/jwt"
	tokenunion "github.com/kapi-dev/kapi/pkg/authentication/token/union"
)

// ErrAnonymousFlagConflict is kube-apiserver's refusal of --anonymous-auth
// next to a file with an anonymous section.
var ErrAnonymousFlagConflict = errors.New("anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file")

// Dynamic is the authentication a --authentication-config file describes,
// kept up to date with the file: as kube-apiserver, a changed file that is
// valid replaces the JWT authenticators and the anonymous settings, one
// that is not is logged and the previous configuration stays in force.
type Dynamic struct {
	path string
	// anonymousFlag is --anonymous-auth, in force when the file has no
	// anonymous section; anonymousFlagSet says it was given explicitly.
	anonymousFlag, anonymousFlagSet bool
	log                             *slog.Logger

	mu      sync.Mutex // serializes reloads
	content []byte
	state   atomic.Pointer[state]
}

type state struct {
	tokens    tokenunion.Authenticator
	anonymous authenticator.Request // nil: anonymous requests are refused
}

// NewDynamic loads path; an invalid file is an error, as at
// kube-apiserver's start.
func NewDynamic(path string, anonymousFlag, anonymousFlagSet bool, log *slog.Logger) (*Dynamic, error) {
	d := &Dynamic{path: path, anonymousFlag: anonymousFlag, anonymousFlagSet: anonymousFlagSet, log: log}
	if err := d.Reload(); err != nil {
		return nil, err
	}
	return d, nil
}

// Reload reads the file again if it changed.
func (d *Dynamic) Reload() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	data, err := os.ReadFile(d.path)
	if err != nil {
		return err
	}
	if d.state.Load() != nil && bytes.Equal(data, d.content) {
		return nil
	}
	c, err := Load(d.path)
	if err != nil {
		return err
	}
	if c.Anonymous != nil && d.anonymousFlagSet {
		return ErrAnonymousFlagConflict
	}
	st := &state{}
	for _, cfg := range c.JWT {
		a, err := jwt.New(cfg)
		if err != nil {
			return err
		}
		st.tokens = append(st.tokens, a)
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
	if d.state.Swap(st) != nil {
		d.log.Info("Loaded a new authentication configuration", "file", d.path)
	}
	d.content = data
	return nil
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
func (d *Dynamic) AuthenticateToken(token string) (*authenticator.Response, bool, error) {
	return d.state.Load().tokens.AuthenticateToken(token)
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
