// Command record runs the audit script against a kube-apiserver (the
// oracle, started with auditscript.Policy as its --audit-policy-file) so
// that its audit log can be recorded as the test's expected events:
//
//	go run ./test/e2e/auditscript/record -admin admin.kubeconfig -alice user.kubeconfig
package main

import (
	"context"
	"flag"
	"log"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/test/e2e/auditscript"
)

func main() {
	admin := flag.String("admin", "", "kubeconfig of a system:masters user")
	alice := flag.String("alice", "", "kubeconfig of the user alice")
	flag.Parse()
	a, err := clientcmd.BuildConfigFromFlags("", *admin)
	if err != nil {
		log.Fatal(err)
	}
	u, err := clientcmd.BuildConfigFromFlags("", *alice)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := auditscript.Run(ctx, a, u); err != nil {
		log.Fatal(err)
	}
}
