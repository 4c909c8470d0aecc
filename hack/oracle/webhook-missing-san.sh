#!/usr/bin/env bash
# Records what kube-apiserver does with a token webhook and an authorization webhook whose serving
# certificate has no subjectAltName (only CN=127.0.0.1), which Go refuses
# (test/e2e/testdata/kube-apiserver/webhook-missing-san.json): the status of a TokenReview and of a
# SubjectAccessReview that reach the webhooks, the code of a request with an unknown bearer token,
# and the apiserver_webhooks_x509_* lines of /metrics after these three requests; the webhook's
# port is written PORT. Starts and stops a private oracle (ports 16843/12779 unless
# ORACLE_PORT/ORACLE_ETCD_PORT say) with --authorization-mode=Node,RBAC,Webhook.
set -euo pipefail
cd "$(dirname "$0")/../.."
export ORACLE_DIR=${ORACLE_DIR:-$HOME/.cache/kapi-oracle-tokencache}
export ORACLE_PORT=${ORACLE_PORT:-16843} ORACLE_ETCD_PORT=${ORACLE_ETCD_PORT:-12779}
WH_PORT=${WH_PORT:-16871}
OUT=test/e2e/testdata/kube-apiserver/webhook-missing-san.json
W=$(mktemp -d)
mkdir -p "$ORACLE_DIR" && ln -sfn "$HOME/.cache/kapi-oracle/bin" "$ORACLE_DIR/bin"

cd "$W"
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj "/CN=webhook-ca" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj "/CN=127.0.0.1" 2>/dev/null
printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' > ext
openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt -days 30 -extfile ext 2>/dev/null
cat > srv.py <<'PY'
import http.server, ssl, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get('Content-Length', 0))))
        body['status'] = {'authenticated': False} if body.get('kind') == 'TokenReview' else {'allowed': False}
        out = json.dumps(body).encode()
        self.send_response(200); self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(out))); self.end_headers(); self.wfile.write(out)
s = http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain('srv.crt', 'srv.key')
s.socket = ctx.wrap_socket(s.socket, server_side=True)
s.serve_forever()
PY
python3 srv.py "$WH_PORT" > srv.log 2>&1 &
SRV=$!
trap '/work/shared/oracle/stop.sh >/dev/null 2>&1 || true; kill $SRV; rm -rf "$W"' EXIT
for p in authn authz; do
  printf 'apiVersion: v1\nkind: Config\nclusters:\n- name: wh\n  cluster:\n    server: https://127.0.0.1:%s/%s\n    certificate-authority: %s/ca.crt\nusers:\n- name: apiserver\n  user: {}\ncontexts:\n- name: wh\n  context: {cluster: wh, user: apiserver}\ncurrent-context: wh\n' "$WH_PORT" "$p" "$W" > "$p.kubeconfig"
done
sed "s|--authorization-mode=Node,RBAC|--authorization-mode=Node,RBAC,Webhook --authorization-webhook-config-file=$W/authz.kubeconfig --authorization-webhook-version=v1|" /work/shared/oracle/start.sh > start.sh
cd - >/dev/null
ORACLE_FLAGS="--authentication-token-webhook-config-file=$W/authn.kubeconfig --authentication-token-webhook-version=v1" bash "$W/start.sh"
K="$ORACLE_DIR/bin/kubectl --kubeconfig $ORACLE_DIR/run/admin.kubeconfig"

echo '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"some-token"}}' | $K create -f - -o json > "$W/tr.json"
echo '{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"verb":"get","resource":"secrets","namespace":"default"}}}' | $K create -f - -o json > "$W/sar.json"
code=$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer some-other-token" "https://127.0.0.1:$ORACLE_PORT/api")
$K get --raw /metrics | grep -E '^(# (HELP|TYPE) )?apiserver_webhooks_x509_' > "$W/metrics.txt"
python3 - "$W" "$WH_PORT" "$code" "$OUT" <<'PY'
import json, sys
w, port, code, out = sys.argv[1:]
fix = lambda s: s.replace('127.0.0.1:' + port, '127.0.0.1:PORT')
rec = {
    'tokenReviewStatus': json.loads(fix(json.dumps(json.load(open(w + '/tr.json'))['status']))),
    'subjectAccessReviewStatus': json.loads(fix(json.dumps(json.load(open(w + '/sar.json'))['status']))),
    'unknownBearerTokenCode': int(code),
    'metrics': open(w + '/metrics.txt').read().splitlines(),
}
json.dump(rec, open(out, 'w'), indent=2)
open(out, 'a').write('\n')
PY
cat "$OUT"
