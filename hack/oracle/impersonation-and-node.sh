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
# rights) and nemo (none).
cert() {
  openssl req -new -newkey rsa:2048 -nodes -keyout "$WORK/$1.key" -subj "$2" -out "$WORK/$1.csr" 2>/dev/null
  openssl x509 -req -in "$WORK/$1.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAserial "$WORK/ca.srl" -CAcreateserial -days 1 -out "$WORK/$1.crt" 2>/dev/null
}
cert cora /CN=cora
cert nemo /CN=nemo
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

hack/oracle/node.sh

$K delete -f pkg/server/filters/testdata/impersonation-rbac.yaml --wait=false
