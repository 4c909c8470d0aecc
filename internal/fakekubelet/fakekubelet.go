// Package fakekubelet is a kubelet for tests of the API server's
// subresources that reach into pods: it serves the kubelet's paths of
// those subresources over HTTPS on loopback, as a kubelet does, with
// containers whose logs, commands and ports the test decides.
//
//	GET  /containerLogs/<ns>/<pod>/<container>   a container's log (follow, tailLines, limitBytes, timestamps)
//	POST /exec/<ns>/<pod>/<container>?command=   a command, its streams over SPDY (v4.channel.k8s.io)
//	POST /attach/<ns>/<pod>/<container>          the container's main process, over SPDY
//	POST /portForward/<ns>/<pod>                 connections to the pod's ports, over SPDY (portforward.k8s.io)
//
// Like a kubelet, it speaks SPDY only: WebSockets are the API server's
// to translate. Every request is recorded, so that a test can check what
// the API server asked for.
package fakekubelet

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/httpstream/spdy"
	rc "k8s.io/apimachinery/pkg/util/remotecommand"
)

// Command runs an exec or attach: it gets the command and the streams
// the client asked for (nil when not asked), and returns the exit code.
type Command func(cmd []string, stdin io.Reader, stdout, stderr io.Writer) int

// Options configure a fake kubelet.
type Options struct {
	// ClientCAs, if set, are the authorities a client certificate must
	// be signed by; without, no client certificate is asked for.
	ClientCAs *x509.CertPool
	// Exec runs the commands of exec and attach; nil is Shell.
	Exec Command
	// Address is the IP to listen on; empty is 127.0.0.1. The serving
	// certificate is for this address.
	Address string
}

// Kubelet is a running fake kubelet.
type Kubelet struct {
	// Host and Port are where it listens (Options.Address, a free port).
	Host string
	Port int

	server *httptest.Server
	exec   Command

	mu       sync.Mutex
	logs     map[string][]string
	changed  chan struct{} // closed and replaced when a log grows
	ports    map[int32]string
	requests []Request
}

// Request is what the kubelet was asked.
type Request struct {
	Method string
	URL    *url.URL
	// ClientCertificate is the common name of the client's certificate.
	ClientCertificate string
}

// Start starts a fake kubelet, stopped when the test ends.
func Start(t testing.TB, opts Options) *Kubelet {
	t.Helper()
	k := &Kubelet{exec: opts.Exec, logs: map[string][]string{}, changed: make(chan struct{}), ports: map[int32]string{}}
	if k.exec == nil {
		k.exec = Shell
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{ns}/{pod}/{container}", k.serveLogs)
	mux.HandleFunc("POST /exec/{ns}/{pod}/{container}", k.serveExec)
	mux.HandleFunc("POST /attach/{ns}/{pod}/{container}", k.serveExec)
	mux.HandleFunc("POST /portForward/{ns}/{pod}", k.servePortForward)
	k.server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := Request{Method: r.Method, URL: r.URL}
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			req.ClientCertificate = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		k.mu.Lock()
		k.requests = append(k.requests, req)
		k.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	address := opts.Address
	if address == "" {
		address = "127.0.0.1"
	}
	cert, err := servingCertificate(address)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort(address, "0"))
	if err != nil {
		t.Fatal(err)
	}
	k.server.Listener.Close()
	k.server.Listener = l
	k.server.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	if opts.ClientCAs != nil {
		k.server.TLS.ClientAuth = tls.RequireAndVerifyClientCert
		k.server.TLS.ClientCAs = opts.ClientCAs
	}
	k.server.StartTLS()
	t.Cleanup(k.server.Close)
	host, port, _ := net.SplitHostPort(k.server.Listener.Addr().String())
	k.Host = host
	k.Port, _ = strconv.Atoi(port)
	return k
}

// CertificatePEM is the kubelet's self-signed serving certificate, for
// --kubelet-certificate-authority.
func (k *Kubelet) CertificatePEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: k.server.TLS.Certificates[0].Certificate[0]})
}

// servingCertificate is a self-signed certificate for the IP address.
func servingCertificate(address string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "fake-kubelet"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP(address)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// Requests returns what the kubelet has been asked so far.
func (k *Kubelet) Requests() []Request {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]Request(nil), k.requests...)
}

// AppendLog adds lines to a container's log; a client following it
// receives them.
func (k *Kubelet) AppendLog(namespace, pod, container string, lines ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	key := namespace + "/" + pod + "/" + container
	k.logs[key] = append(k.logs[key], lines...)
	close(k.changed)
	k.changed = make(chan struct{})
}

// ForwardPort makes the pod's port lead to address (a listener of the
// test's).
func (k *Kubelet) ForwardPort(port int32, address string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ports[port] = address
}

// serveLogs writes a container's log, one line after another; tailLines
// keeps the last lines, limitBytes cuts the output, timestamps prefixes
// each line with a fixed time, follow waits for more lines until the
// client goes. A container without a log is a 404, as a kubelet's
// unknown container.
func (k *Kubelet) serveLogs(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("ns") + "/" + r.PathValue("pod") + "/" + r.PathValue("container")
	q := r.URL.Query()
	k.mu.Lock()
	_, ok := k.logs[key]
	k.mu.Unlock()
	lines := k.logLines(key)
	if !ok {
		http.Error(w, fmt.Sprintf("container %q in pod %q is not found", r.PathValue("container"), r.PathValue("pod")), http.StatusNotFound)
		return
	}
	sent := len(lines)
	if n, err := strconv.Atoi(q.Get("tailLines")); err == nil && n < len(lines) {
		lines = lines[len(lines)-n:]
	}
	limit := int64(-1)
	if n, err := strconv.ParseInt(q.Get("limitBytes"), 10, 64); err == nil {
		limit = n
	}
	w.Header().Set("Content-Type", "text/plain")
	rcw := http.NewResponseController(w)
	write := func(line string) bool {
		if q.Get("timestamps") == "true" {
			line = "2026-01-02T03:04:05.000000000Z " + line
		}
		b := []byte(line + "\n")
		if limit >= 0 && int64(len(b)) > limit {
			b = b[:limit]
		}
		if _, err := w.Write(b); err != nil {
			return false
		}
		limit -= int64(len(b))
		_ = rcw.Flush()
		return limit != 0
	}
	for {
		for _, l := range lines {
			if !write(l) {
				return
			}
		}
		if q.Get("follow") != "true" {
			return
		}
		k.mu.Lock()
		changed := k.changed
		k.mu.Unlock()
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		}
		all := k.logLines(key)
		lines = all[min(sent, len(all)):]
		sent = len(all)
	}
}

// logLines is a copy of a container's log.
func (k *Kubelet) logLines(key string) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.logs[key]...)
}

// streamTimeout bounds the wait for a client's streams.
const streamTimeout = 30 * time.Second

// serveExec runs a command over SPDY, remotecommand protocol v4: the
// client opens an error stream and one stream for each of stdin, stdout,
// stderr and the terminal's resize it asked for; the outcome is written to
// the error stream as a Status.
func (k *Kubelet) serveExec(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if _, err := httpstream.Handshake(r, w, []string{rc.StreamProtocolV4Name}); err != nil {
		return
	}
	// The kubelet's names of the streams in the query.
	want := map[string]bool{"error": true}
	for param, stream := range map[string]string{"input": "stdin", "output": "stdout", "error": "stderr"} {
		if q.Get(param) == "1" {
			want[stream] = true
		}
	}
	if q.Get("tty") == "1" {
		want["resize"] = true
		delete(want, "stderr")
	}
	streams, conn, ok := acceptStreams(w, r, len(want))
	if !ok {
		return
	}
	defer conn.Close()
	byType := map[string]httpstream.Stream{}
	for _, s := range streams {
		byType[s.Headers().Get("streamType")] = s
	}
	var stdin io.Reader
	var stdout, stderr io.Writer
	if s, ok := byType["stdin"]; ok {
		stdin = s
	}
	if s, ok := byType["stdout"]; ok {
		stdout = s
	}
	if s, ok := byType["stderr"]; ok {
		stderr = s
	}
	cmd := q["command"]
	code := k.exec(cmd, stdin, stdout, stderr)
	status := metav1.Status{Status: metav1.StatusSuccess}
	if code != 0 {
		status = metav1.Status{
			Status:  metav1.StatusFailure,
			Reason:  rc.NonZeroExitCodeReason,
			Message: fmt.Sprintf("command terminated with non-zero exit code: exit status %d", code),
			Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: rc.ExitCodeCauseType, Message: strconv.Itoa(code)}}},
		}
	}
	b, _ := json.Marshal((&apierrors.StatusError{ErrStatus: status}).Status())
	if s, ok := byType["error"]; ok {
		_, _ = s.Write(b)
	}
	for _, s := range streams {
		_ = s.Close()
	}
	// The client closes the connection once it has the status. Closing it
	// first races the client's last frames (its stdin's end) through an
	// API server's proxy, which, on the reset they then meet, drops what
	// it had not yet relayed back: the output and the status.
	select {
	case <-conn.CloseChan():
	case <-r.Context().Done():
	case <-time.After(streamTimeout):
	}
}

// acceptStreams upgrades the request to SPDY and waits for n streams.
func acceptStreams(w http.ResponseWriter, r *http.Request, n int) ([]httpstream.Stream, httpstream.Connection, bool) {
	type accepted struct {
		stream    httpstream.Stream
		replySent <-chan struct{}
	}
	ch := make(chan accepted, n)
	conn := spdy.NewResponseUpgrader().UpgradeResponse(w, r, func(s httpstream.Stream, replySent <-chan struct{}) error {
		select {
		case ch <- accepted{s, replySent}:
			return nil
		default:
			return fmt.Errorf("unexpected stream %q", s.Headers().Get("streamType"))
		}
	})
	if conn == nil {
		return nil, nil, false
	}
	var streams []httpstream.Stream
	timeout := time.After(streamTimeout)
	for len(streams) < n {
		select {
		case a := <-ch:
			<-a.replySent
			streams = append(streams, a.stream)
		case <-timeout:
			conn.Close()
			return nil, nil, false
		}
	}
	return streams, conn, true
}

// servePortForward serves portforward.k8s.io: each connection of the
// client is a pair of streams with one requestID, an error stream and a
// data stream, for a port; the data goes to the address ForwardPort gave
// the port, and a failure is written to the error stream.
func (k *Kubelet) servePortForward(w http.ResponseWriter, r *http.Request) {
	if _, err := httpstream.Handshake(r, w, []string{"portforward.k8s.io"}); err != nil {
		return
	}
	var mu sync.Mutex
	errorStreams := map[string]httpstream.Stream{}
	conn := spdy.NewResponseUpgrader().UpgradeResponse(w, r, func(s httpstream.Stream, replySent <-chan struct{}) error {
		id := s.Headers().Get("requestID")
		switch s.Headers().Get("streamType") {
		case "error":
			mu.Lock()
			errorStreams[id] = s
			mu.Unlock()
		case "data":
			mu.Lock()
			errStream := errorStreams[id]
			delete(errorStreams, id)
			mu.Unlock()
			port, _ := strconv.ParseInt(s.Headers().Get("port"), 10, 32)
			go func() {
				<-replySent
				k.forward(int32(port), s, errStream)
			}()
		}
		return nil
	})
	if conn == nil {
		return
	}
	select {
	case <-conn.CloseChan():
	case <-r.Context().Done():
	}
	conn.Close()
}

// forward copies one connection between data and the port's address.
func (k *Kubelet) forward(port int32, data, errStream httpstream.Stream) {
	defer data.Close()
	if errStream != nil {
		defer errStream.Close()
	}
	k.mu.Lock()
	address, ok := k.ports[port]
	k.mu.Unlock()
	fail := func(msg string) {
		if errStream != nil {
			_, _ = errStream.Write([]byte(msg))
		}
	}
	if !ok {
		fail(fmt.Sprintf("error forwarding port %d: nothing listens on it", port))
		return
	}
	target, err := net.Dial("tcp", address)
	if err != nil {
		fail(fmt.Sprintf("error forwarding port %d: %v", port, err))
		return
	}
	defer target.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(target, data); done <- struct{}{} }()
	go func() { _, _ = io.Copy(data, target); done <- struct{}{} }()
	<-done
}

// Shell is the default Command, a tiny shell of a container:
//
//	echo <words>     writes the words and a newline to stdout
//	cat              copies stdin to stdout
//	warn <words>     writes the words and a newline to stderr
//	exit <code>      exits with the code
//	read-then-exit <code>  reads one line of stdin, writes it to stdout, exits with code
//
// An attach (no command) copies stdin to stdout, as cat. Anything else
// writes "command not found" to stderr and exits 127.
func Shell(cmd []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := func(w io.Writer, s string) {
		if w != nil {
			_, _ = io.WriteString(w, s)
		}
	}
	if len(cmd) == 0 {
		cmd = []string{"cat"}
	}
	switch cmd[0] {
	case "echo":
		out(stdout, strings.Join(cmd[1:], " ")+"\n")
		return 0
	case "warn":
		out(stderr, strings.Join(cmd[1:], " ")+"\n")
		return 0
	case "cat":
		if stdin != nil && stdout != nil {
			_, _ = io.Copy(stdout, stdin)
		}
		return 0
	case "exit":
		code := 0
		if len(cmd) > 1 {
			code, _ = strconv.Atoi(cmd[1])
		}
		return code
	case "read-then-exit":
		if stdin != nil {
			line, _ := bufio.NewReader(stdin).ReadString('\n')
			out(stdout, line)
		}
		code := 0
		if len(cmd) > 1 {
			code, _ = strconv.Atoi(cmd[1])
		}
		return code
	}
	out(stderr, cmd[0]+": command not found\n")
	return 127
}
