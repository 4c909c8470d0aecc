package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// recordedCase is one request to a config map, with what kube-apiserver
// 1.37.1 answered to it (recorded by hack/oracle/options.py against the
// oracle).
type recordedCase struct {
	Name    string `json:"name"`
	Objects []struct {
		Name       string            `json:"name"`
		Finalizers []string          `json:"finalizers"`
		Labels     map[string]string `json:"labels"`
		Data       map[string]string `json:"data"`
	} `json:"objects"`
	// Before are requests sent first, whatever they answer.
	Before []struct {
		Method string `json:"method"`
		Path   string `json:"path"`
	} `json:"before"`
	Request struct {
		Method      string  `json:"method"`
		Path        string  `json:"path"`
		Query       string  `json:"query"`
		Body        *string `json:"body"`
		ContentType string  `json:"contentType"`
	} `json:"request"`
	// Watch names the config maps whose state after the request counts.
	Watch []string       `json:"watch"`
	Want  recordedAnswer `json:"want"`
}

// optionsAnswer is what the matrix compares: the status code, what the
// response is (a Status's reason, or a summary of the objects it holds)
// and the state of the watched objects afterwards.
type recordedAnswer struct {
	Code     int            `json:"code"`
	Response map[string]any `json:"response"`
	After    []string       `json:"after"`
}

// TestOptionsAreReadWhereKubeAPIServerReadsThem checks every write verb's
// options (dryRun, fieldManager, fieldValidation, propagationPolicy,
// orphanDependents, gracePeriodSeconds, preconditions) sent in the body,
// in the query and in both, against kube-apiserver's recorded answers.
// DeleteOptions come from the body when there is one and only otherwise
// from the query; create, update and patch take theirs from the query.
// A dry-run delete leaves its object in place, whatever the query says.
func TestOptionsAreReadWhereKubeAPIServerReadsThem(t *testing.T) {
	replayRecorded(t, "options-by-location.json")
}

// TestDeletionFollowsKubeAPIServer checks each propagationPolicy on
// objects with no finalizers, other finalizers, or the orphan or
// foregroundDeletion finalizer already, deleted once or again, and the
// updates of an object that is being deleted, against kube-apiserver's
// recorded answers.
func TestDeletionFollowsKubeAPIServer(t *testing.T) {
	replayRecorded(t, "deletion.json")
}

// replayRecorded sends kapi each recorded case of a file, each in a
// namespace of its own, and compares its answers with kube-apiserver's.
func replayRecorded(t *testing.T, file string) {
	data, err := os.ReadFile(filepath.Join("testdata", "kube-apiserver", file))
	if err != nil {
		t.Fatal(err)
	}
	var cases []recordedCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no recorded cases")
	}
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	client, err := rest.HTTPClientFor(s.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			// Each case has a namespace of its own: nothing it leaves
			// (finalizers hold objects) reaches the next.
			ns := fmt.Sprintf("recorded-%d", i)
			if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			h := &rawClient{t: t, client: client, base: s.URL}
			for _, o := range tc.Objects {
				cm := corev1.ConfigMap{
					TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
					ObjectMeta: metav1.ObjectMeta{Name: o.Name, Labels: o.Labels, Finalizers: o.Finalizers},
					Data:       o.Data,
				}
				body, _ := json.Marshal(cm)
				if code, out := h.do("POST", "/api/v1/namespaces/"+ns+"/configmaps", "application/json", body); code != http.StatusCreated {
					t.Fatalf("creating %s: %d %s", o.Name, code, out)
				}
			}
			for _, b := range tc.Before {
				h.do(b.Method, strings.ReplaceAll(b.Path, "{ns}", ns), "", nil)
			}
			path := strings.ReplaceAll(tc.Request.Path, "{ns}", ns)
			if tc.Request.Query != "" {
				path += "?" + tc.Request.Query
			}
			var body []byte
			if tc.Request.Body != nil {
				body = []byte(strings.ReplaceAll(*tc.Request.Body, "{ns}", ns))
			}
			code, out := h.do(tc.Request.Method, path, tc.Request.ContentType, body)
			got := recordedAnswer{Code: code, Response: summarizeResponse(out), After: []string{}}
			for _, name := range tc.Watch {
				code, out := h.do("GET", "/api/v1/namespaces/"+ns+"/configmaps/"+name, "", nil)
				if code != http.StatusOK {
					got.After = append(got.After, fmt.Sprintf("%s absent (%d)", name, code))
					continue
				}
				var obj map[string]any
				if err := json.Unmarshal(out, &obj); err != nil {
					t.Fatal(err)
				}
				got.After = append(got.After, summarizeObject(obj))
			}
			wantJSON, _ := json.Marshal(tc.Want)
			gotJSON, _ := json.Marshal(got)
			if !bytes.Equal(wantJSON, gotJSON) {
				t.Errorf("%s %s\n got  %s\n want %s (kube-apiserver)", tc.Request.Method, path, gotJSON, wantJSON)
			}
		})
	}
}

// rawClient sends requests as they are, without client-go's opinions.
type rawClient struct {
	t      *testing.T
	client *http.Client
	base   string
}

func (h *rawClient) do(method, path, contentType string, body []byte) (int, []byte) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, h.base+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	// No User-Agent: the recorded answers' managedFields name the
	// manager "unknown", as for a client that sends none.
	req.Header.Set("User-Agent", "")
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, out
}

// summarizeResponse is the part of a response the matrix compares: the
// kind, and a Status's reason or the summary of the objects.
func summarizeResponse(body []byte) map[string]any {
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return map[string]any{"body": "not JSON"}
	}
	kind, _ := obj["kind"].(string)
	if kind == "Status" {
		reason, _ := obj["reason"].(string)
		status, _ := obj["status"].(string)
		return map[string]any{"kind": kind, "reason": reason, "status": status}
	}
	if strings.HasSuffix(kind, "List") {
		items := []any{}
		list, _ := obj["items"].([]any)
		summaries := make([]string, 0, len(list))
		for _, it := range list {
			m, _ := it.(map[string]any)
			summaries = append(summaries, summarizeObject(m))
		}
		sort.Strings(summaries)
		for _, s := range summaries {
			items = append(items, s)
		}
		return map[string]any{"kind": kind, "items": items}
	}
	return map[string]any{"kind": kind, "object": summarizeObject(obj)}
}

// summarizeObject describes a config map by what options change: its
// finalizers, whether it is being deleted, its field managers and data.
func summarizeObject(obj map[string]any) string {
	m, _ := obj["metadata"].(map[string]any)
	name, _ := m["name"].(string)
	var finalizers []string
	if fs, ok := m["finalizers"].([]any); ok {
		for _, f := range fs {
			finalizers = append(finalizers, f.(string))
		}
	}
	_, deleting := m["deletionTimestamp"]
	managerSet := map[string]bool{}
	if mfs, ok := m["managedFields"].([]any); ok {
		for _, e := range mfs {
			entry, _ := e.(map[string]any)
			manager, _ := entry["manager"].(string)
			managerSet[manager] = true
		}
	}
	managers := make([]string, 0, len(managerSet))
	for k := range managerSet {
		managers = append(managers, k)
	}
	sort.Strings(managers)
	var data []string
	if d, ok := obj["data"].(map[string]any); ok {
		for k, v := range d {
			data = append(data, fmt.Sprintf("%s:%v", k, v))
		}
	}
	sort.Strings(data)
	return fmt.Sprintf("%s finalizers=%s deleting=%t managers=%s data=%s",
		name, strings.Join(finalizers, ","), deleting, strings.Join(managers, ","), strings.Join(data, ","))
}
