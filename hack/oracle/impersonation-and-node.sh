#!/usr/bin/env bash
# Records kube-apiserver's answers for impersonation and the Node
# authorizer (see README.md), against the shared oracle, in namespace
# h-node, and removes what it created.
set -euo pipefail
cd "$(dirname "$0")/../.."
ORACLE_DIR=${ORACLE_DIR:-$HOME/.cache/kapi-oracle}
P=$ORACLE_DIR/run/pki
K="$ORACLE_DIR/bin/kubectl --kubeconfig $ORACLE_DIR/run/admin.kubeconfig"
export WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Client certificates of the oracle's CA: cora (constrained impersonation
# rights), nemo (none), and a kubelet of node h-node-n1.
cert() {
  openssl req -new -newkey rsa:2048 -nodes -keyout "$WORK/$1.key" -subj "$2" -out "$WORK/$1.csr" 2>/dev/null
  openssl x509 -req -in "$WORK/$1.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAserial "$WORK/ca.srl" -CAcreateserial -days 1 -out "$WORK/$1.crt" 2>/dev/null
}
cert cora /CN=cora
cert nemo /CN=nemo
cert node1 "/O=system:nodes/CN=system:node:h-node-n1"
cat > "$WORK/nemo.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: o, cluster: {server: "https://127.0.0.1:16443", certificate-authority: $P/ca.crt}}]
users: [{name: nemo, user: {client-certificate: $WORK/nemo.crt, client-key: $WORK/nemo.key}}]
contexts: [{name: o, context: {cluster: o, user: nemo}}]
current-context: o
KC

$K apply -f pkg/server/filters/testdata/impersonation-rbac.yaml
python3 hack/oracle/impersonation_filter.py pkg/server/filters/testdata/impersonation-oracle.json
python3 hack/oracle/impersonation_kubectl.py test/e2e/testdata/impersonation-kubectl-oracle.json

$K apply -f hack/oracle/node-objects.yaml
# A mirror pod may reference no secret: created apart, so that apply does
# not fail on it.
$K create -f - <<'POD'
apiVersion: v1
kind: Pod
metadata: {name: p-mirror, namespace: h-node, annotations: {kubernetes.io/config.mirror: "x"}}
spec:
  nodeName: h-node-n1
  automountServiceAccountToken: false
  containers: [{name: c, image: busybox}]
POD
python3 - <<'PY'
import json, os, subprocess
k = os.environ.get("ORACLE_DIR", os.path.expanduser("~/.cache/kapi-oracle"))
def get(*args):
    return json.loads(subprocess.check_output([k + "/bin/kubectl", "--kubeconfig", k + "/run/admin.kubeconfig", "get", "-o", "json", *args]))
out = {"apiVersion": "v1", "kind": "List", "items": []}
for d in (get("pods", "-n", "h-node"), get("pv", "h-node-pv1", "h-node-pv2"), get("volumeattachments", "h-node-va1", "h-node-va2")):
    for o in d["items"]:
        for f in ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation"):
            o["metadata"].pop(f, None)
        o.pop("status", None)
        if o["kind"] == "Pod":
            o["status"] = {}
        out["items"].append(o)
json.dump(out, open("pkg/authorization/node/testdata/oracle-objects.json", "w"), indent=1)
PY
python3 hack/oracle/node_sar.py pkg/authorization/node/testdata/oracle-sar.json
python3 hack/oracle/node_http.py test/e2e/testdata/node-authorizer-oracle.json

$K delete pod p-mirror -n h-node --wait=false
$K delete -f hack/oracle/node-objects.yaml --wait=false
$K delete -f pkg/server/filters/testdata/impersonation-rbac.yaml --wait=false
