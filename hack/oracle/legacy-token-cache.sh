#!/usr/bin/env bash
# Records what kube-apiserver answers to three requests with the same legacy token of an
# auto-generated Secret (one the service account lists), the first authenticated by the
# service-account authenticator and the next two by the token cache
# (test/e2e/testdata/kube-apiserver/legacy-token-cache.json): each response's status and Warning
# headers, and the serviceaccount_legacy_* and authentication_token_cache_request_total lines of
# /metrics after them. The token is signed here with the oracle's service-account key, as the
# token controller would. Starts and stops a private oracle (ports 16843/12779 unless
# ORACLE_PORT/ORACLE_ETCD_PORT say).
set -euo pipefail
cd "$(dirname "$0")/../.."
export ORACLE_DIR=${ORACLE_DIR:-$HOME/.cache/kapi-oracle-tokencache}
export ORACLE_PORT=${ORACLE_PORT:-16843} ORACLE_ETCD_PORT=${ORACLE_ETCD_PORT:-12779}
OUT=test/e2e/testdata/kube-apiserver/legacy-token-cache.json
W=$(mktemp -d)
mkdir -p "$ORACLE_DIR" && ln -sfn "$HOME/.cache/kapi-oracle/bin" "$ORACLE_DIR/bin"
trap '/work/shared/oracle/stop.sh >/dev/null 2>&1 || true; rm -rf "$W"' EXIT
/work/shared/oracle/start.sh
K="$ORACLE_DIR/bin/kubectl --kubeconfig $ORACLE_DIR/run/admin.kubeconfig"
$K create serviceaccount legacy-robot >/dev/null
uid=$($K get serviceaccount legacy-robot -o jsonpath='{.metadata.uid}')
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
unsigned="$(printf '{"alg":"RS256","kid":""}' | b64url).$(printf '{"iss":"kubernetes/serviceaccount","kubernetes.io/serviceaccount/namespace":"default","kubernetes.io/serviceaccount/secret.name":"legacy-robot-token","kubernetes.io/serviceaccount/service-account.name":"legacy-robot","kubernetes.io/serviceaccount/service-account.uid":"%s","sub":"system:serviceaccount:default:legacy-robot"}' "$uid" | b64url)"
tok="$unsigned.$(printf '%s' "$unsigned" | openssl dgst -sha256 -sign "$ORACLE_DIR/run/pki/sa.key" | b64url)"
$K apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Secret
metadata: {name: legacy-robot-token, namespace: default, annotations: {kubernetes.io/service-account.name: legacy-robot, kubernetes.io/service-account.uid: "$uid"}}
type: kubernetes.io/service-account-token
data: {token: $(printf '%s' "$tok" | base64 -w0)}
EOF
$K patch serviceaccount legacy-robot -p '{"secrets":[{"name":"legacy-robot-token"}]}' >/dev/null
for i in 1 2 3; do
  curl -sk -D "$W/headers.$i" -o /dev/null -H "Authorization: Bearer $tok" "https://127.0.0.1:$ORACLE_PORT/api"
done
$K get --raw /metrics | grep -E '^(serviceaccount_legacy_|authentication_token_cache_request_total)' > "$W/metrics.txt"
python3 - "$W" "$OUT" <<'PY'
import json, sys
w, out = sys.argv[1:]
responses = []
for i in (1, 2, 3):
    lines = open('%s/headers.%d' % (w, i)).read().splitlines()
    code = int(lines[0].split()[1])
    warnings = [l.split(':', 1)[1].strip() for l in lines if l.lower().startswith('warning:')]
    responses.append({'code': code, 'warnings': warnings})
json.dump({'responses': responses, 'metrics': open(w + '/metrics.txt').read().splitlines()}, open(out, 'w'), indent=2)
open(out, 'a').write('\n')
PY
cat "$OUT"
