// Command kapi-diff sends the same list of HTTP requests to two
// Kubernetes API servers and prints how their answers differ: status
// code, media type, a Status's status, reason, message, code and details,
// the text of plain-text answers and, with -bodies, the JSON bodies with
// resourceVersion, uid and timestamps taken out (see package apidiff).
//
// Compare two servers (typically kube-apiserver, the oracle, and kapi):
//
//	kapi-diff -requests test/compat/testdata/paths/requests.json \
//	    -a ~/.cache/kapi-oracle/run/admin.kubeconfig -b kapi-data/admin.kubeconfig
//
// Record one server's answers, for tests that compare without it:
//
//	kapi-diff -requests test/compat/testdata/paths/requests.json \
//	    -a ~/.cache/kapi-oracle/run/admin.kubeconfig -record test/compat/testdata/paths/kube-apiserver.json
//
// Compare a server with recorded answers (what the tests do), leaving
// out the differences listed, with their reasons, in a known-differences
// file:
//
//	kapi-diff -requests ... -b kapi-data/admin.kubeconfig \
//	    -recorded test/compat/testdata/paths/kube-apiserver.json -known test/compat/testdata/paths/known-differences.json
//
// Each server gets the list's teardown, setup, requests and teardown
// again, one server after the other. It exits 1 when answers differ.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/kapi-dev/kapi/test/compat/apidiff"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kapi-diff:", err)
		os.Exit(2)
	}
}

func run() error {
	var (
		requests   = flag.String("requests", "", "request list (JSON, see package apidiff)")
		a          = flag.String("a", "", "kubeconfig of the first server (the reference)")
		b          = flag.String("b", "", "kubeconfig of the second server")
		record     = flag.String("record", "", "write the first server's answers to this file instead of comparing")
		recorded   = flag.String("recorded", "", "compare the second server with these recorded answers instead of with -a")
		known      = flag.String("known", "", "known differences (JSON list of {request, reason}) not to report")
		serverName = flag.String("server-name", "kube-apiserver v1.37.1", "what -record says answered")
		bodies     = flag.Bool("bodies", false, "also record and compare normalized JSON bodies that are not a Status")
	)
	flag.Parse()
	if *requests == "" {
		return fmt.Errorf("-requests is required")
	}
	list, err := apidiff.Load(*requests)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

	answersOf := func(name, kubeconfig string) ([]apidiff.Answer, error) {
		srv, err := apidiff.NewServerFromKubeconfig(name, kubeconfig)
		if err != nil {
			return nil, err
		}
		return srv.Run(ctx, list, *bodies, logf), nil
	}

	if *record != "" {
		if *a == "" {
			return fmt.Errorf("-record needs -a")
		}
		answers, err := answersOf("a", *a)
		if err != nil {
			return err
		}
		return apidiff.WriteRecording(*record, &apidiff.Recording{Server: *serverName, Answers: answers})
	}

	var want []apidiff.Answer
	switch {
	case *recorded != "":
		rec, err := apidiff.ReadRecording(*recorded)
		if err != nil {
			return err
		}
		want = rec.Answers
	case *a != "":
		if want, err = answersOf("a", *a); err != nil {
			return err
		}
	default:
		return fmt.Errorf("give -a or -recorded")
	}
	if *b == "" {
		return fmt.Errorf("-b is required to compare")
	}
	got, err := answersOf("b", *b)
	if err != nil {
		return err
	}
	knownDiffs := map[string]string{}
	if *known != "" {
		if knownDiffs, err = apidiff.ReadKnownDifferences(*known); err != nil {
			return err
		}
	}
	diffs, err := apidiff.Diff(want, got)
	if err != nil {
		return err
	}
	reported := 0
	for _, d := range diffs {
		if reason, ok := knownDiffs[d.Request]; ok {
			fmt.Printf("%s (known: %s)\n", d.Request, reason)
			continue
		}
		reported++
		fmt.Println(d.Request)
		for _, l := range d.Lines {
			fmt.Println("    " + l)
		}
	}
	fmt.Printf("%d requests, %d differ (%d known)\n", len(want), reported, len(diffs)-reported)
	if reported > 0 {
		os.Exit(1)
	}
	return nil
}
