package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

const (
	mediaJSON     = "application/json"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// listKind is one way of listing all configmaps of a namespace.
type listKind struct {
	media string // Accept header
	rv0   bool   // resourceVersion=0: any cached state will do
	paged bool   // limit=pageSize and continue tokens
}

// key is the kind's key prefix in the baseline's naming, e.g.
// "list_json_rv_consistent", "list_proto_rv0",
// "list_json_paged500_consistent".
func (k listKind) key(pageSize int) string {
	enc := "json"
	if k.media == mediaProtobuf {
		enc = "proto"
	}
	switch {
	case k.paged && k.rv0:
		return fmt.Sprintf("list_%s_paged%d_rv0", enc, pageSize)
	case k.paged:
		return fmt.Sprintf("list_%s_paged%d_consistent", enc, pageSize)
	case k.rv0:
		return "list_" + enc + "_rv0"
	default:
		return "list_" + enc + "_rv_consistent"
	}
}

// listKinds are measured in this order, the baseline's.
var listKinds = []listKind{
	{media: mediaJSON},
	{media: mediaJSON, rv0: true},
	{media: mediaProtobuf},
	{media: mediaProtobuf, rv0: true},
	{media: mediaJSON, paged: true},
	{media: mediaProtobuf, paged: true},
}

// lister makes raw list requests. Lists bypass the typed client so that the
// bench controls the Accept header and sees the bytes on the wire, and can
// time the server's answer without the client's decoding.
type lister struct {
	http     *http.Client
	rest     rest.Interface // builds the request URLs
	pageSize int
	buf      bytes.Buffer // reused: growing a 7 MB buffer per list is client work
}

// listOutcome is what one list (all its pages) measured.
type listOutcome struct {
	elapsed    time.Duration // sum over pages of request to last byte
	bytes      int64         // body bytes, after any transport decompression
	pages      int
	items      int
	compressed bool // the server gzip-compressed at least one page
}

// measureAll runs every list kind once in ns and records its time, bytes and
// pages. want is the number of configmaps that should be listed; a list
// that returns another number is reported, since its time would not be
// comparable.
func (l *lister) measureAll(ctx context.Context, ns string, want int, r *result, p *printer) {
	var listErrors int64
	var compressed []string
	first := true
	for _, kind := range listKinds {
		key := kind.key(l.pageSize)
		out, err := l.list(ctx, ns, kind)
		if err == nil && out.items != want {
			err = fmt.Errorf("listed %d items, want %d", out.items, want)
		}
		if err != nil {
			listErrors++
			p.comment("%s: %v", key, err)
			continue
		}
		if first {
			r.addInt("list_items", int64(out.items))
			first = false
		}
		r.addDuration(key+"_ms", out.elapsed)
		r.addInt(key+"_bytes", out.bytes)
		if kind.paged {
			r.addInt(key+"_pages", int64(out.pages))
		}
		if out.compressed {
			compressed = append(compressed, key)
		}
	}
	r.addInt("list_errors", listErrors)
	if len(compressed) > 0 {
		p.comment("gzip-compressed by the server (bytes are uncompressed, times include compression): %s",
			strings.Join(compressed, " "))
	}
}

// list lists all configmaps of ns in one way, following continue tokens.
func (l *lister) list(ctx context.Context, ns string, kind listKind) (listOutcome, error) {
	var out listOutcome
	cont := ""
	// A server that hands out continue tokens forever must not keep the
	// bench busy forever either.
	maxPages := 1_000_000
	for out.pages < maxPages {
		req := l.rest.Get().Namespace(ns).Resource("configmaps")
		if kind.rv0 {
			req = req.Param("resourceVersion", "0")
		}
		if kind.paged {
			req = req.Param("limit", strconv.Itoa(l.pageSize))
			if cont != "" {
				req = req.Param("continue", cont)
			}
		}
		page, err := l.fetch(ctx, req.URL().String(), kind.media)
		if err != nil {
			return out, fmt.Errorf("page %d: %w", out.pages+1, err)
		}
		out.elapsed += page.elapsed
		out.bytes += page.bytes
		out.pages++
		out.compressed = out.compressed || page.compressed

		// Decoding is outside the timed part: it measures the client.
		var list corev1.ConfigMapList
		if _, _, err := scheme.Codecs.UniversalDeserializer().Decode(l.buf.Bytes(), nil, &list); err != nil {
			return out, fmt.Errorf("page %d: decoding: %w", out.pages, err)
		}
		out.items += len(list.Items)
		cont = list.Continue
		if !kind.paged || cont == "" {
			return out, nil
		}
		if out.pages == 1 {
			// Bound the number of pages by what the first page says
			// remains, with slack for objects created meanwhile.
			if rem := list.RemainingItemCount; rem != nil {
				maxPages = int(*rem)/l.pageSize + 10
			}
		}
	}
	return out, fmt.Errorf("still a continue token after %d pages", out.pages)
}

// pageOutcome is one response body read into l.buf.
type pageOutcome struct {
	elapsed    time.Duration
	bytes      int64
	compressed bool
}

// fetch GETs url accepting media, reads the body into l.buf and times the
// request from send to the last byte read.
func (l *lister) fetch(ctx context.Context, url, media string) (pageOutcome, error) {
	var pg pageOutcome
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return pg, err
	}
	req.Header.Set("Accept", media)
	l.buf.Reset()
	t0 := time.Now()
	resp, err := l.http.Do(req)
	if err != nil {
		return pg, err
	}
	defer resp.Body.Close()
	pg.bytes, err = io.Copy(&l.buf, resp.Body)
	pg.elapsed = time.Since(t0)
	if err != nil {
		return pg, fmt.Errorf("reading body: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return pg, fmt.Errorf("status %d: %s", resp.StatusCode, truncate(l.buf.String(), 300))
	}
	// A server that answers a protobuf request with JSON would make the
	// proto figures JSON figures under the wrong name.
	if got, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); got != media {
		return pg, fmt.Errorf("asked for %s, got Content-Type %q", media, resp.Header.Get("Content-Type"))
	}
	// The transport asks for gzip itself and, when the server used it,
	// decompresses and marks the response Uncompressed.
	pg.compressed = resp.Uncompressed
	return pg, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
