#!/usr/bin/env bash
# Records kube-apiserver's Node authorizer answers (see README.md) against
# the shared oracle, in namespace h-node, and removes what it created.
set -euo pipefail
cd "$(dirname "$0")/../.."
ORACLE_DIR=${ORACLE_DIR:-$HOME/.cache/kapi-oracle}
P=$ORACLE_DIR/run/pki
K="$ORACLE_DIR/bin/kubectl --kubeconfig $ORACLE_DIR/run/admin.kubeconfig"
export WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# A kubelet of node h-node-n1: a client certificate of the oracle's CA.
openssl req -new -newkey rsa:2048 -nodes -keyout "$WORK/node1.key" -subj "/O=system:nodes/CN=system:node:h-node-n1" -out "$WORK/node1.csr" 2>/dev/null
openssl x509 -req -in "$WORK/node1.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAserial "$WORK/ca.srl" -CAcreateserial -days 1 -out "$WORK/node1.crt" 2>/dev/null

created_ns=
$K get namespace h-node >/dev/null 2>&1 || { $K create namespace h-node; created_ns=1; }
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
for d in (get("pods", "-n", "h-node"), get("pv", "h-node-pv1", "h-node-pv2"), get("volumeattachments", "h-node-va1", "h-node-va2"),
          get("resourceslices", "h-node-rs1", "h-node-rs2", "h-node-rs-all"), get("podcertificaterequests", "-n", "h-node")):
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

# The oracle runs no kubelet and no controllers: pods bound to a node are
# deleted at once, PVs lose the pv-protection finalizer admission gave
# them, and a namespace this script made is finalized by hand.
$K delete pods -n h-node --all --grace-period=0 --force
$K delete -f hack/oracle/node-objects.yaml --ignore-not-found --wait=false
$K delete resourceslice h-node-rs3 --ignore-not-found --wait=false
for pv in h-node-pv1 h-node-pv2; do
  $K patch pv $pv --type=merge -p '{"metadata":{"finalizers":null}}' 2>/dev/null || true
done
if [ -n "$created_ns" ]; then
  $K delete namespace h-node --wait=false
  $K get namespace h-node -o json | python3 -c 'import json,sys; o=json.load(sys.stdin); o["spec"]["finalizers"]=[]; print(json.dumps(o))' |
    $K replace --raw /api/v1/namespaces/h-node/finalize -f - >/dev/null
fi
