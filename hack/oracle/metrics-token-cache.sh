#!/usr/bin/env bash
# Records what kube-apiserver's token cache counts for a known sequence of bearer-token requests
# (test/e2e/testdata/kube-apiserver/metrics-token-cache.txt: the lines of the
# authentication_token_cache_* families of /metrics, sums left out). The sequence, replayed by
# TestTokenCacheMetricsAreKubeAPIServers:
#   a service-account token (kubectl create token) twice,
#   a JWT of the service-account issuer signed by another key twice,
#   a --token-auth-file token three times,
#   a token nobody knows twice.
# Starts and stops a private oracle (ports 16843/12779 unless ORACLE_PORT/ORACLE_ETCD_PORT say).
set -euo pipefail
cd "$(dirname "$0")/../.."
export ORACLE_DIR=${ORACLE_DIR:-$HOME/.cache/kapi-oracle-tokencache}
export ORACLE_PORT=${ORACLE_PORT:-16843} ORACLE_ETCD_PORT=${ORACLE_ETCD_PORT:-12779}
OUT=test/e2e/testdata/kube-apiserver/metrics-token-cache.txt
W=$(mktemp -d)
mkdir -p "$ORACLE_DIR" && ln -sfn "$HOME/.cache/kapi-oracle/bin" "$ORACLE_DIR/bin"
trap '/work/shared/oracle/stop.sh >/dev/null 2>&1 || true; rm -rf "$W"' EXIT
echo 'static-token-1,tokenuser,uid-1,"g1"' > "$W/tokens.csv"
ORACLE_FLAGS="--token-auth-file=$W/tokens.csv" /work/shared/oracle/start.sh
K="$ORACLE_DIR/bin/kubectl --kubeconfig $ORACLE_DIR/run/admin.kubeconfig"
get() { curl -sk -o /dev/null -w '%{http_code} ' -H "Authorization: Bearer $1" "https://127.0.0.1:$ORACLE_PORT/api"; }

$K create serviceaccount robot >/dev/null
sa=$($K create token robot)
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
openssl genrsa -out "$W/other.key" 2048 2>/dev/null
now=$(date +%s)
unsigned="$(printf '{"alg":"RS256","kid":"other"}' | b64url).$(printf '{"iss":"https://kubernetes.default.svc","aud":["https://kubernetes.default.svc"],"sub":"system:serviceaccount:default:robot","iat":%d,"nbf":%d,"exp":%d}' "$now" "$now" $((now + 3600)) | b64url)"
forged="$unsigned.$(printf '%s' "$unsigned" | openssl dgst -sha256 -sign "$W/other.key" | b64url)"

for t in "$sa" "$sa" "$forged" "$forged" static-token-1 static-token-1 static-token-1 not-a-token not-a-token; do get "$t"; done
echo
$K get --raw /metrics | grep -E '^(# (HELP|TYPE) )?authentication_token_cache_' | grep -v '_sum{' > "$OUT"
cat "$OUT"
