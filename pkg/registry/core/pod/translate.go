package pod

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	gwebsocket "github.com/gorilla/websocket"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream/wsstream"
	constants "k8s.io/apimachinery/pkg/util/portforward"
	"k8s.io/apimachinery/pkg/util/proxy"
	rc "k8s.io/apimachinery/pkg/util/remotecommand"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	clientspdy "k8s.io/client-go/transport/spdy"
	"k8s.io/client-go/util/exec"
	"k8s.io/streaming/pkg/httpstream/spdy"

	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// The upgrades of exec, attach and portforward.
//
// kubectl 1.37 speaks WebSockets first: the v5 channel protocol for exec
// and attach, and SPDY tunnelled through a WebSocket for portforward,
// falling back to SPDY when the upgrade fails. Kubelets speak SPDY. As
// kube-apiserver does, kapi passes SPDY upgrades through to the kubelet
// untouched, translates v5 WebSocket streams to a SPDY connection to the
// kubelet (each channel to its stream, the error channel carrying the
// command's Status, exit code included), and unwraps the tunnelled SPDY
// of portforward onto a SPDY upgrade of the kubelet.

// streamOptions are the streams an exec or attach asked for.
type streamOptions struct{ stdin, stdout, stderr, tty bool }

// streamHandler serves an exec or attach: a v5 WebSocket is translated,
// any other upgrade is passed through, a request that does not upgrade is
// refused (400 "Upgrade request required").
func streamHandler(location *url.URL, transport http.RoundTripper, responder rest.Responder, opts streamOptions) http.Handler {
	upgrade := proxy.NewUpgradeAwareHandler(location, transport, false, true, responder)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if wsstream.IsWebSocketRequestWithStreamCloseProtocol(req) {
			translateStreams(w, req, location, transport, opts)
			return
		}
		upgrade.ServeHTTP(w, req)
	})
}

// idleStreamTimeout closes a translated connection nothing has crossed
// for this long, as kube-apiserver does.
const idleStreamTimeout = 4 * time.Hour

// translateStreams accepts the client's v5 WebSocket and runs the
// command's streams over SPDY to the kubelet. The outcome is written to
// the error channel as a Status: Success, NonZeroExitCode with the exit
// code as a cause, or the failure.
func translateStreams(w http.ResponseWriter, req *http.Request, location *url.URL, transport http.RoundTripper, opts streamOptions) {
	channel := func(on bool, t wsstream.ChannelType) wsstream.ChannelType {
		if on {
			return t
		}
		return wsstream.IgnoreChannel
	}
	channels := make([]wsstream.ChannelType, 5)
	channels[rc.StreamStdIn] = channel(opts.stdin, wsstream.ReadChannel)
	channels[rc.StreamStdOut] = channel(opts.stdout, wsstream.WriteChannel)
	channels[rc.StreamStdErr] = channel(opts.stderr, wsstream.WriteChannel)
	channels[rc.StreamErr] = wsstream.WriteChannel
	channels[rc.StreamResize] = wsstream.ReadChannel
	conn := wsstream.NewConn(map[string]wsstream.ChannelProtocolConfig{
		rc.StreamProtocolV5Name: {Binary: true, Channels: channels},
	})
	conn.SetIdleTimeout(idleStreamTimeout)
	_, streams, err := conn.Open(w, req)
	if err != nil {
		return
	}
	defer conn.Close()
	// The first write tells the client the streams are open.
	first := rc.StreamErr
	switch {
	case opts.stdout:
		first = rc.StreamStdOut
	case opts.stderr:
		first = rc.StreamStdErr
	}
	if _, err := streams[first].Write(nil); err != nil {
		return
	}
	writeStatus := func(err *apierrors.StatusError) {
		b, mErr := json.Marshal(err.Status())
		if mErr != nil {
			return
		}
		conn.SetWriteDeadline(10 * time.Second)
		_, _ = streams[rc.StreamErr].Write(b)
	}

	rt, err := spdy.NewRoundTripperWithConfig(spdy.RoundTripperConfig{UpgradeTransport: transport, PingPeriod: 5 * time.Second})
	if err != nil {
		writeStatus(apierrors.NewInternalError(err))
		return
	}
	executor, err := remotecommand.NewSPDYExecutorRejectRedirects(rt, clientspdy.NewUpgraderForStreaming(rt), http.MethodPost, location)
	if err != nil {
		writeStatus(apierrors.NewInternalError(err))
		return
	}
	sopts := remotecommand.StreamOptions{Tty: opts.tty}
	if opts.stdin {
		sopts.Stdin = streams[rc.StreamStdIn]
	}
	if opts.stdout {
		sopts.Stdout = streams[rc.StreamStdOut]
	}
	if opts.stderr {
		sopts.Stderr = streams[rc.StreamStdErr]
	}
	if opts.tty {
		sizes := make(chan remotecommand.TerminalSize)
		go readResizes(req, streams[rc.StreamResize], sizes)
		sopts.TerminalSizeQueue = sizeQueue(sizes)
	}
	err = executor.StreamWithContext(req.Context(), sopts)
	var statusErr *apierrors.StatusError
	var exitErr exec.CodeExitError
	switch {
	case err == nil:
		writeStatus(&apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusSuccess}})
	case errors.As(err, &statusErr):
		writeStatus(statusErr)
	case errors.As(err, &exitErr) && exitErr.Exited():
		writeStatus(&apierrors.StatusError{ErrStatus: metav1.Status{
			Status:  metav1.StatusFailure,
			Reason:  rc.NonZeroExitCodeReason,
			Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: rc.ExitCodeCauseType, Message: fmt.Sprintf("%d", exitErr.ExitStatus())}}},
			Message: fmt.Sprintf("command terminated with non-zero exit code: %v", exitErr),
		}})
	default:
		writeStatus(apierrors.NewInternalError(err))
	}
}

// readResizes passes the terminal sizes the client sends on, until the
// stream or the request ends.
func readResizes(req *http.Request, stream io.Reader, sizes chan<- remotecommand.TerminalSize) {
	defer close(sizes)
	dec := json.NewDecoder(stream)
	for {
		var size remotecommand.TerminalSize
		if err := dec.Decode(&size); err != nil {
			return
		}
		select {
		case sizes <- size:
		case <-req.Context().Done():
			return
		}
	}
}

// sizeQueue hands the executor the terminal sizes read from the client.
type sizeQueue chan remotecommand.TerminalSize

func (q sizeQueue) Next() *remotecommand.TerminalSize {
	size, ok := <-q
	if !ok {
		return nil
	}
	return &size
}

// maxUpgradeResponseBytes bounds the kubelet's answer to an upgrade.
const maxUpgradeResponseBytes = 1 << 20

// tunnelPortForward serves a portforward whose SPDY comes tunnelled in a
// WebSocket ("SPDY/3.1+portforward.k8s.io"): it asks the kubelet for a
// SPDY upgrade in the protocols the client offers, accepts the client's
// WebSocket in the protocol the kubelet chose, and copies the SPDY bytes
// between the two. A kubelet that refuses the upgrade has its answer
// passed on, so that the client falls back to plain SPDY.
func tunnelPortForward(w http.ResponseWriter, req *http.Request, location *url.URL, transport http.RoundTripper, responder rest.Responder) {
	var protocols []string
	for _, p := range gwebsocket.Subprotocols(req) {
		if strings.HasPrefix(p, constants.WebsocketsSPDYTunnelingPrefix) && strings.HasSuffix(p, constants.KubernetesSuffix) {
			protocols = append(protocols, strings.TrimPrefix(p, constants.WebsocketsSPDYTunnelingPrefix))
		}
	}
	if len(protocols) == 0 {
		http.Error(w, "unable to upgrade: no tunneling spdy protocols provided", http.StatusBadRequest)
		return
	}
	backend, err := proxy.DialURL(req.Context(), location, transport)
	if err != nil {
		responder.Error(w, req, fmt.Errorf("error dialing backend: %v", err))
		return
	}
	defer backend.Close()
	upgradeReq, err := http.NewRequestWithContext(req.Context(), http.MethodPost, location.String(), nil)
	if err != nil {
		responder.Error(w, req, err)
		return
	}
	upgradeReq.Header.Set("Connection", "Upgrade")
	upgradeReq.Header.Set("Upgrade", spdy.HeaderSpdy31)
	for _, p := range protocols {
		upgradeReq.Header.Add("X-Stream-Protocol-Version", p)
	}
	if err := upgradeReq.Write(backend); err != nil {
		responder.Error(w, req, fmt.Errorf("error sending request: %v", err))
		return
	}
	fromBackend := bufio.NewReader(io.LimitReader(backend, maxUpgradeResponseBytes))
	resp, err := http.ReadResponse(fromBackend, upgradeReq)
	if err != nil {
		responder.Error(w, req, fmt.Errorf("error reading backend response: %v", err))
		return
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		return
	}
	var accepted []string
	if p := strings.TrimSpace(resp.Header.Get("X-Stream-Protocol-Version")); p != "" {
		accepted = []string{constants.WebsocketsSPDYTunnelingPrefix + p}
	}
	upgrader := gwebsocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }, Subprotocols: accepted}
	ws, err := upgrader.Upgrade(w, req, nil)
	if err != nil {
		return // the upgrader answered the client
	}
	tunnel := portforward.NewTunnelingConnection("server", ws)
	defer tunnel.Close()
	// Bytes the kubelet sent after its 101 are already buffered; the
	// rest is read from the connection itself, without the limit.
	buffered, _ := fromBackend.Peek(fromBackend.Buffered())
	var once sync.Once
	done := make(chan struct{})
	finish := func() { once.Do(func() { close(done) }) }
	go func() {
		_, _ = io.Copy(backend, tunnel)
		finish()
	}()
	go func() {
		if _, err := tunnel.Write(buffered); err == nil {
			_, _ = io.Copy(tunnel, backend)
		}
		finish()
	}()
	select {
	case <-done:
	case <-req.Context().Done():
	}
}
