package e2e

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// The hostile-input suite: requests that are small, malformed, endless or
// slow, sent to a real kapi binary. For each, kapi must answer what
// kube-apiserver 1.37.1 answers (code, Status reason and message, as
// recorded from it in testdata/hostile/kube-apiserver-1.37.1.txt), stay
// ready, and keep its memory (VmHWM, the peak of its resident set, which
// includes the embedded etcd) under maxRSS throughout.

const maxRSS = 200 << 20

func TestHostileInput(t *testing.T) {
	p := startKapiBinary(t, t.TempDir())
	h := newHostile(t, p)
	h.do(t, http.MethodPost, "/api/v1/namespaces", "application/json",
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"hostile"}}`).expect(t, http.StatusCreated, "", "")
	h.do(t, http.MethodPost, configMaps, "application/json",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"data":{"a":"b"}}`).expect(t, http.StatusCreated, "", "")

	for _, c := range hostileRequests {
		t.Run(c.name, func(t *testing.T) {
			h.do(t, c.method, c.path, c.contentType, c.body()).expect(t, c.code, c.reason, c.message)
			h.checkHealthy(t)
		})
	}
	t.Run("body streamed without end", func(t *testing.T) {
		h.streamedWithoutEnd(t)
		h.checkHealthy(t)
	})
	t.Run("slowloris", func(t *testing.T) {
		h.slowloris(t)
		h.checkHealthy(t)
	})
	t.Run("watchers that never read", func(t *testing.T) {
		h.watchersThatNeverRead(t)
		h.checkHealthy(t)
	})
	t.Run("HTTP/2 rapid reset", func(t *testing.T) {
		h.rapidReset(t)
		h.checkHealthy(t)
	})
}

const configMaps = "/api/v1/namespaces/hostile/configmaps"

// invalidPatch is kube-apiserver's message for a JSON patch that cannot
// be applied, copy bombs included: it names neither resource nor cause.
const invalidPatch = "the server rejected our request due to an error in our request"

var hostileRequests = []struct {
	name            string
	method, path    string
	contentType     string
	body            func() string
	code            int
	reason, message string // "" for a success
}{
	{"JSON patch copy bomb", http.MethodPatch, configMaps + "/target", "application/json-patch+json",
		func() string { return copyBomb(18) }, 422, "Invalid", invalidPatch},
	{"JSON patch copy bomb of 40 copies", http.MethodPatch, configMaps + "/target", "application/json-patch+json",
		func() string { return copyBomb(40) }, 422, "Invalid", invalidPatch},
	{"JSON patch copies of 3 MiB", http.MethodPatch, configMaps + "/target", "application/json-patch+json",
		func() string {
			return `[{"op":"add","path":"/z","value":"` + strings.Repeat("x", 1<<20) + `"},` +
				`{"op":"copy","from":"/z","path":"/y0"},{"op":"copy","from":"/z","path":"/y1"},{"op":"copy","from":"/z","path":"/y2"}]`
		}, 422, "Invalid", invalidPatch},
	{"JSON patch of 10001 operations", http.MethodPatch, configMaps + "/target", "application/json-patch+json",
		func() string {
			return "[" + strings.TrimSuffix(strings.Repeat(`{"op":"test","path":"/metadata/name","value":"target"},`, 10001), ",") + "]"
		}, 413, "RequestEntityTooLarge", "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001"},
	{"JSON nested 10001 deep", http.MethodPost, configMaps, "application/json",
		func() string { return configMapWith("deep", nestedArrays(10001)) }, 400, "BadRequest",
		`the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth ({"apiVersion":"v1","kind":"Con ...)`},
	{"JSON nested a million deep", http.MethodPost, configMaps, "application/json",
		func() string { return configMapWith("deep", nestedArrays(1000000)) }, 400, "BadRequest",
		`the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth ({"apiVersion":"v1","kind":"Con ...)`},
	{"JSON nested 9990 deep in an unknown field", http.MethodPost, configMaps, "application/json",
		func() string { return configMapWith("deep", nestedArrays(9990)) }, 201, "", ""},
	{"YAML nested a million deep", http.MethodPost, configMaps, "application/yaml",
		func() string {
			return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deepy}\nx: " + nestedArrays(1000000) + "\n"
		}, 400, "BadRequest",
		"the object provided is unrecognized (must be of type ConfigMap): yaml: line 4: exceeded max depth of 10000 (61706956657273696f6e3a2076310a6b696e643a20436f6e6669674d6170 ...)"},
	{"YAML alias bomb", http.MethodPost, configMaps, "application/yaml",
		func() string { return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\n" + billionLaughs() }, 400, "BadRequest",
		"the object provided is unrecognized (must be of type ConfigMap): yaml: document contains excessive aliasing (61706956657273696f6e3a2076310a6b696e643a20436f6e6669674d6170 ...)"},
	{"apply patch YAML alias bomb", http.MethodPatch, configMaps + "/target?fieldManager=hostile", "application/apply-patch+yaml",
		func() string { return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: target}\n" + billionLaughs() }, 400, "BadRequest",
		"error encoding patch: yaml: document contains excessive aliasing"},
	{"apply patch nested 10001 deep", http.MethodPatch, configMaps + "/target?fieldManager=hostile", "application/apply-patch+yaml",
		func() string {
			return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"x":` + nestedObjects(10001) + "}"
		}, 400, "BadRequest", "error decoding patch: error converting YAML to JSON: yaml: exceeded max depth of 10000"},
	{"merge patch nested 10001 deep", http.MethodPatch, configMaps + "/target", "application/merge-patch+json",
		func() string { return `{"x":` + nestedObjects(10001) + "}" }, 400, "BadRequest", "invalid JSON patch"},
	// kube-apiserver's merge patch library parses every level again: this
	// patch costs it 2 GB and a 504 after a minute. kapi applies it in
	// linear time (the unknown field is dropped).
	{"merge patch nested 9000 deep", http.MethodPatch, configMaps + "/target", "application/merge-patch+json",
		func() string { return `{"x":` + nestedObjects(9000) + "}" }, 200, "", ""},
	{"strategic merge patch nested 9000 deep", http.MethodPatch, configMaps + "/target", "application/strategic-merge-patch+json",
		func() string { return `{"x":` + nestedObjects(9000) + "}" }, 200, "", ""},
	{"strategic merge patch nested 10001 deep", http.MethodPatch, configMaps + "/target", "application/strategic-merge-patch+json",
		func() string { return `{"x":` + nestedObjects(10001) + "}" }, 400, "BadRequest", "invalid JSON patch"},
	{"body over the limit", http.MethodPost, configMaps, "application/json",
		func() string { return configMapWith("big", `"`+strings.Repeat("x", 3<<20)+`"`) }, 413, "RequestEntityTooLarge",
		"Request entity too large: limit is 3145728"},
	{"protobuf with a huge length", http.MethodPost, configMaps, "application/vnd.kubernetes.protobuf",
		func() string {
			// The envelope's raw field claims 2^62 bytes.
			return "k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap\x12\x80\x80\x80\x80\x80\x80\x80\x80\x40abc"
		}, 400, "BadRequest",
		"the object provided is unrecognized (must be of type ConfigMap): unexpected EOF (6b3873000a0f0a0276311209436f6e6669674d6170128080808080808080 ...)"},
	{"protobuf ConfigMap with a huge length", http.MethodPost, configMaps, "application/vnd.kubernetes.protobuf",
		func() string {
			return "k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap\x12\x08\x0a\x80\x80\x80\x80\x80\x20x"
		}, 400, "BadRequest",
		`ConfigMap in version "v1" cannot be handled as a ConfigMap: unexpected EOF`},
	{"label selector of 20000 requirements", http.MethodGet, configMaps + "?labelSelector=" + labelRequirements(20000), "",
		func() string { return "" }, 200, "", ""},
	{"field selector of 20000 requirements", http.MethodGet, configMaps + "?fieldSelector=" + fieldRequirements(20000), "",
		func() string { return "" }, 200, "", ""},
}

func copyBomb(copies int) string {
	ops := []map[string]any{{"op": "add", "path": "/z", "value": map[string]any{"a": strings.Repeat("x", 1024)}}}
	for i := range copies {
		ops = append(ops, map[string]any{"op": "copy", "from": "/z", "path": fmt.Sprintf("/z/c%d", i)})
	}
	data, _ := json.Marshal(ops)
	return string(data)
}

func configMapWith(name, x string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q},"x":%s}`, name, x)
}

func nestedArrays(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

func nestedObjects(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
}

// billionLaughs is YAML whose aliases would expand to 9^9 strings.
func billionLaughs() string {
	y := "a0: &a0 [" + strings.TrimSuffix(strings.Repeat(`"lol",`, 9), ",") + "]\n"
	for i := 1; i < 9; i++ {
		y += fmt.Sprintf("a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d,", i-1), 9), ","))
	}
	return y
}

func labelRequirements(n int) string {
	r := make([]string, n)
	for i := range r {
		r[i] = fmt.Sprintf("k%d=v", i)
	}
	return strings.Join(r, ",")
}

func fieldRequirements(n int) string {
	r := make([]string, n)
	for i := range r {
		r[i] = fmt.Sprintf("metadata.name!=n%d", i)
	}
	return strings.Join(r, ",")
}

// hostile drives one kapi process with hand-made requests.
type hostile struct {
	p      *kapiProcess
	addr   string
	tls    *tls.Config // the admin's client certificate
	client *http.Client
}

func newHostile(t *testing.T, p *kapiProcess) *hostile {
	cfg := p.restConfig(t)
	tlsCfg, err := rest.TLSConfigFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	client.Timeout = time.Minute
	h := &hostile{p: p, addr: fmt.Sprintf("127.0.0.1:%d", p.port), tls: tlsCfg, client: client}
	t.Cleanup(func() {
		// VmHWM is the peak since the process started: the bound held
		// throughout, not only at the end.
		if peak := h.memory(t, "VmHWM"); peak > maxRSS {
			t.Errorf("kapi's resident set peaked at %d MiB, over %d MiB", peak>>20, maxRSS>>20)
		} else {
			t.Logf("kapi's resident set peaked at %d MiB", peak>>20)
		}
	})
	return h
}

// answer is a response: its code and, when it is a Status, the Status.
type answer struct {
	code                    int
	reason, message, sample string
}

func (h *hostile) do(t *testing.T, method, path, contentType, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, "https://"+h.addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatalf("%s %.80s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{code: resp.StatusCode, sample: string(data[:min(len(data), 300)])}
	var status struct {
		Kind, Reason, Message string
	}
	if json.Unmarshal(data, &status) == nil && status.Kind == "Status" {
		a.reason, a.message = status.Reason, status.Message
	}
	return a
}

func (a answer) expect(t *testing.T, code int, reason, message string) {
	t.Helper()
	if a.code != code || a.reason != reason || a.message != message {
		t.Errorf("got %d %s %q; want kube-apiserver's %d %s %q\n%s", a.code, a.reason, a.message, code, reason, message, a.sample)
	}
}

// checkHealthy checks that kapi is ready and its memory within bounds.
func (h *hostile) checkHealthy(t *testing.T) {
	t.Helper()
	if a := h.do(t, http.MethodGet, "/readyz", "", ""); a.code != http.StatusOK {
		t.Errorf("/readyz answered %d: %s", a.code, a.sample)
	}
	if peak := h.memory(t, "VmHWM"); peak > maxRSS {
		t.Errorf("kapi's resident set peaked at %d MiB, over %d MiB", peak>>20, maxRSS>>20)
	}
}

// memory reads a field of kapi's /proc/<pid>/status, in bytes.
func (h *hostile) memory(t *testing.T, field string) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", h.p.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/<pid>/status", field)
	return 0
}

// dial opens a TLS connection as the admin, speaking proto.
func (h *hostile) dial(t *testing.T, proto string) *tls.Conn {
	t.Helper()
	cfg := h.tls.Clone()
	cfg.NextProtos = []string{proto}
	conn, err := tls.Dial("tcp", h.addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := conn.ConnectionState().NegotiatedProtocol; got != proto && !(proto == "http/1.1" && got == "") {
		t.Fatalf("negotiated %q, want %s", got, proto)
	}
	return conn
}

// streamedWithoutEnd sends a chunked body that would never end: kapi
// answers 413 once the body passes the limit, without waiting for the end.
func (h *hostile) streamedWithoutEnd(t *testing.T) {
	conn := h.dial(t, "http/1.1")
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: kapi\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", configMaps); err != nil {
		t.Fatal(err)
	}
	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			close(answered)
			return
		}
		answered <- resp
	}()
	chunk := append(fmt.Appendf(nil, "%x\r\n", 64<<10), append(bytes.Repeat([]byte("x"), 64<<10), "\r\n"...)...)
	// A client that sends forever: here, until it has its answer, or 256
	// MiB (far past any limit), or the server stops reading.
	if err := conn.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	for sent := 0; sent < 256<<20; sent += 64 << 10 {
		if len(answered) > 0 {
			break
		}
		if _, err := conn.Write(chunk); err != nil {
			break
		}
	}
	select {
	case resp, ok := <-answered:
		if !ok {
			t.Fatal("no answer to an endless body")
		}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		var status struct{ Reason, Message string }
		_ = json.Unmarshal(data, &status)
		a := answer{code: resp.StatusCode, reason: status.Reason, message: status.Message, sample: string(data)}
		a.expect(t, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", "Request entity too large: limit is 3145728")
	case <-time.After(time.Minute):
		t.Fatal("no answer to an endless body within a minute")
	}
}

// slowloris opens many connections that send their request headers a
// few bytes at a time and never finish them. kapi gives each 32 s to
// finish (as kube-apiserver); meanwhile it serves others and its memory
// stays bounded.
func (h *hostile) slowloris(t *testing.T) {
	const conns = 200
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range conns {
		conn := h.dial(t, "http/1.1")
		wg.Go(func() {
			defer conn.Close()
			header := "GET " + configMaps + " HTTP/1.1\r\nHost: kapi\r\n"
			for i := 0; ; i++ {
				if i < len(header) {
					if _, err := io.WriteString(conn, header[i:i+1]); err != nil {
						return
					}
				} else if _, err := fmt.Fprintf(conn, "X-%d: y\r\n", i); err != nil {
					return
				}
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		})
	}
	for range 20 {
		h.checkHealthy(t)
		time.Sleep(100 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
}

// watchersThatNeverRead open watches and never read them while a
// ConfigMap of 100 KiB is written again and again: what kapi buffers for
// them is bounded (held for every watcher, the events would take 200 MB).
func (h *hostile) watchersThatNeverRead(t *testing.T) {
	const watchers, writes = 50, 40
	var conns []net.Conn
	for range watchers {
		conn := h.dial(t, "http/1.1")
		defer conn.Close()
		if _, err := fmt.Fprintf(conn, "GET %s?watch=true HTTP/1.1\r\nHost: kapi\r\n\r\n", configMaps); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
	}
	value := strings.Repeat("v", 100<<10)
	h.do(t, http.MethodPost, configMaps, "application/json",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"churn"}}`).expect(t, http.StatusCreated, "", "")
	for i := range writes {
		patch := fmt.Sprintf(`{"data":{"v":"%d%s"}}`, i, value)
		h.do(t, http.MethodPatch, configMaps+"/churn", "application/merge-patch+json", patch).expect(t, http.StatusOK, "", "")
	}
	h.checkHealthy(t)
}

// rapidReset opens HTTP/2 streams and resets each at once (CVE-2023-44487),
// many thousand times on one connection. kapi stays ready, within its
// memory; Go's server closes such a connection when the handlers of reset
// streams pile up.
func (h *hostile) rapidReset(t *testing.T) {
	const streams = 20000
	conn := h.dial(t, "h2")
	defer conn.Close()
	// The server's frames are read and dropped, so that its writes never
	// block; done is closed when it closes the connection.
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(io.Discard, conn)
	}()
	w := bufio.NewWriter(conn)
	w.WriteString("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
	writeFrame(w, 0x4, 0, 0, nil) // SETTINGS, empty
	headers := hpackLiterals(
		":method", "GET", ":scheme", "https", ":authority", h.addr, ":path", configMaps)
	if err := conn.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	sent := 0
	for ; sent < streams; sent++ {
		id := uint32(2*sent + 1)
		writeFrame(w, 0x1, 0x5, id, headers)                             // HEADERS, END_STREAM|END_HEADERS
		writeFrame(w, 0x3, 0, id, binary.BigEndian.AppendUint32(nil, 8)) // RST_STREAM, CANCEL
		if w.Flush() != nil {
			break // the server closed the connection
		}
	}
	select {
	case <-done:
		t.Logf("kapi closed the connection after %d opened and reset streams", sent)
	case <-time.After(2 * time.Second):
		// Still open: the handlers kept up. Either way is fine; what
		// matters is that kapi is well.
		t.Logf("the connection took %d opened and reset streams and is open", sent)
	}
}

func writeFrame(w *bufio.Writer, typ, flags byte, stream uint32, payload []byte) {
	var head [9]byte
	head[0], head[1], head[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
	head[3], head[4] = typ, flags
	binary.BigEndian.PutUint32(head[5:], stream)
	w.Write(head[:])
	w.Write(payload)
}

// hpackLiterals encodes header fields as HPACK literals without indexing
// and without Huffman coding (RFC 7541 6.2.2); every name and value here
// is shorter than 127 bytes.
func hpackLiterals(fields ...string) []byte {
	var b []byte
	for i := 0; i < len(fields); i += 2 {
		b = append(b, 0x00, byte(len(fields[i])))
		b = append(b, fields[i]...)
		b = append(b, byte(len(fields[i+1])))
		b = append(b, fields[i+1]...)
	}
	return b
}
