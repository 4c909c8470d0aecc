package apidiff

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Server is an API server to send requests to, as the user its client
// config authenticates.
type Server struct {
	Name   string
	host   *url.URL
	client *http.Client
}

// NewServer connects to the server of a client config.
func NewServer(name string, cfg *rest.Config) (*Server, error) {
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	host, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	if host.Scheme == "" {
		host, err = url.Parse("https://" + cfg.Host)
		if err != nil {
			return nil, err
		}
	}
	return &Server{Name: name, host: host, client: client}, nil
}

// NewServerFromKubeconfig connects to the current context of a kubeconfig.
func NewServerFromKubeconfig(name, kubeconfig string) (*Server, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	return NewServer(name, cfg)
}

// requestTimeout bounds one request. Watches in a list must end by
// themselves (timeoutSeconds=1) well before it.
const requestTimeout = 30 * time.Second

// maxBody bounds what is read of a body; the rest is discarded (OpenAPI
// documents are megabytes and only their status and type matter here).
const maxBody = 1 << 20

// waitTimeout bounds how long a request with WaitFor is resent.
const waitTimeout = 30 * time.Second

// Send sends one request and summarizes the answer. The path is sent as
// written, not cleaned: double slashes and ".." segments reach the server.
func (s *Server) Send(ctx context.Context, r Request, keepBody bool) Answer {
	if r.WaitFor == 0 {
		return s.send(ctx, r, keepBody)
	}
	deadline := time.Now().Add(waitTimeout)
	for {
		a := s.send(ctx, r, keepBody)
		if a.Code == r.WaitFor || time.Now().After(deadline) || ctx.Err() != nil {
			return a
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *Server) send(ctx context.Context, r Request, keepBody bool) Answer {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	path, query, _ := strings.Cut(r.Path, "?")
	u := *s.host
	u.Path, u.RawPath, u.RawQuery = path, path, query
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), body)
	if err != nil {
		return Answer{Request: r.Key(), Error: err.Error()}
	}
	// u.String() may have cleaned what the list wants sent as is.
	req.URL.Path, req.URL.RawPath = path, path
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	if r.Body != nil && req.Header.Get("Content-Type") == "" {
		ct := "application/json"
		if r.Method == http.MethodPatch {
			ct = "application/merge-patch+json"
		}
		req.Header.Set("Content-Type", ct)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return Answer{Request: r.Key(), Error: err.Error()}
	}
	defer resp.Body.Close()
	if r.Stream && resp.StatusCode == http.StatusOK {
		return newAnswer(r.Key(), resp.StatusCode, resp.Header.Get("Content-Type"), nil, false)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return Answer{Request: r.Key(), Code: resp.StatusCode, Error: "reading body: " + err.Error()}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return newAnswer(r.Key(), resp.StatusCode, resp.Header.Get("Content-Type"), data, keepBody)
}

// Run sends a list to the server: teardown (what an interrupted run may
// have left), setup, the requests, teardown. It returns the answers to
// the requests. Failed setup requests go to log, and failed teardown
// requests too unless they found nothing to remove (404).
func (s *Server) Run(ctx context.Context, l *List, keepBodies bool, log func(format string, args ...any)) []Answer {
	prepare := func(phase string, reqs []Request) {
		for _, r := range reqs {
			a := s.Send(ctx, r, false)
			if a.Error == "" && (a.Code < 400 || phase == "teardown" && a.Code == http.StatusNotFound) {
				continue
			}
			detail := a.Error
			if a.Status != nil {
				detail = a.Status.Message
			}
			log("%s: %s %s: %d %s", s.Name, phase, r.Key(), a.Code, detail)
		}
	}
	prepare("teardown", l.Teardown)
	prepare("setup", l.Setup)
	answers := make([]Answer, 0, len(l.Requests))
	for _, r := range l.Requests {
		answers = append(answers, s.Send(ctx, r, keepBodies))
	}
	prepare("teardown", l.Teardown)
	return answers
}

// Difference is how one request's answers differ.
type Difference struct {
	Request string
	Lines   []string
}

// Diff compares two servers' answers to the same list, request by
// request.
func Diff(want, got []Answer) ([]Difference, error) {
	if len(want) != len(got) {
		return nil, fmt.Errorf("%d answers against %d", len(want), len(got))
	}
	var out []Difference
	for i := range want {
		if want[i].Request != got[i].Request {
			return nil, fmt.Errorf("answer %d is to %q against %q", i, want[i].Request, got[i].Request)
		}
		if d := Compare(want[i], got[i]); len(d) > 0 {
			out = append(out, Difference{Request: want[i].Request, Lines: d})
		}
	}
	return out, nil
}
