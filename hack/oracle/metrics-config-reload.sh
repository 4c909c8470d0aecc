#!/usr/bin/env bash
# Records the metric families kube-apiserver shows with --authentication-config,
# --authorization-config (instead of --authorization-mode=Node,RBAC: the same
# authorizers), a KMS v2 provider and --encryption-provider-config-automatic-reload,
# after a JWT is verified, a secret written and read, each file made invalid and
# then valid again, and the plugin naming an empty key ID
# (test/e2e/testdata/kube-apiserver/metrics-config-reload.txt: the # HELP and
# # TYPE lines of the families the shared reference lacks, and a # LABELS line
# per label-name set seen). Starts and stops a private oracle; takes ~3 minutes
# because kube-apiserver looks at the files once a minute.
set -euo pipefail
cd "$(dirname "$0")/../.."
export ORACLE_DIR=${ORACLE_DIR:-$HOME/.cache/kapi-oracle-node}
export ORACLE_PORT=${ORACLE_PORT:-16943} ORACLE_ETCD_PORT=${ORACLE_ETCD_PORT:-12979}
ISSUER=127.0.0.1:${ISSUER_PORT:-16950}
REF=${REF:-/work/shared/reference/kube-apiserver-v1.37.1/health/metrics-names-and-help.txt}
W=$(mktemp -d)
mkdir -p "$ORACLE_DIR" && ln -sfn "$HOME/.cache/kapi-oracle/bin" "$ORACLE_DIR/bin"
go build -o "$W/issuer-kms" ./hack/oracle/issuer-kms
"$W/issuer-kms" -addr "$ISSUER" -dir "$W" > "$W/issuer.log" 2>&1 &
HELPER=$!
trap '/work/shared/oracle/stop.sh >/dev/null 2>&1 || true; kill $HELPER; rm -rf "$W"' EXIT
sleep 1

authn() { # extra line
  cat > "$W/authn.yaml.new" <<A
apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: https://$ISSUER
    audiences: [kapi]
    certificateAuthority: |
$(sed 's/^/      /' "$W/ca.pem")
  claimMappings:
    username: {claim: sub, prefix: "oidc:"}
$1
A
  mv "$W/authn.yaml.new" "$W/authn.yaml"
}
enc() { # extra line
  printf 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - kms: {apiVersion: v2, name: fake, endpoint: "unix://%s/kms.sock", timeout: 3s}\n  - identity: {}\n%s\n' "$W" "$1" > "$W/enc.yaml.new"
  mv "$W/enc.yaml.new" "$W/enc.yaml"
}
authz() { # extra line
  printf 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: Node, name: node}\n- {type: RBAC, name: rbac}\n%s\n' "$1" > "$W/authz.yaml.new"
  mv "$W/authz.yaml.new" "$W/authz.yaml"
}
authn ""
enc ""
authz ""
# The shared start script, with the authorizers of a file.
sed "s|--authorization-mode=Node,RBAC|--authorization-config=$W/authz.yaml|" /work/shared/oracle/start.sh > "$W/start.sh"
ORACLE_FLAGS="--authentication-config=$W/authn.yaml --encryption-provider-config=$W/enc.yaml --encryption-provider-config-automatic-reload=true" \
  bash "$W/start.sh"
K="$ORACLE_DIR/bin/kubectl --kubeconfig $ORACLE_DIR/run/admin.kubeconfig"
$K create secret generic s1 --from-literal=a=b
$K get secret s1 -o name
curl -sk -H "Authorization: Bearer $(curl -sk "https://$ISSUER/token")" "https://127.0.0.1:$ORACLE_PORT/version" >/dev/null

# Invalid files, and a plugin whose key ID is empty.
echo "garbage: [" > "$W/authn.yaml.new" && mv "$W/authn.yaml.new" "$W/authn.yaml"
echo "garbage: [" > "$W/authz.yaml.new" && mv "$W/authz.yaml.new" "$W/authz.yaml"
printf 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources: nope\n' > "$W/enc.yaml.new" && mv "$W/enc.yaml.new" "$W/enc.yaml"
curl -sk "https://$ISSUER/rotate?id="
sleep 70
# Valid files again, and a key.
authn "# changed"
enc "# changed"
authz "# changed"
curl -sk "https://$ISSUER/rotate?id=key-2"
sleep 70
$K get --raw /metrics > "$W/metrics.txt"

python3 - "$REF" "$W/metrics.txt" test/e2e/testdata/kube-apiserver/metrics-config-reload.txt <<'PY'
import re, sys
ref = set()
for l in open(sys.argv[1]):
    p = l.split(' ', 3)
    if len(p) >= 3 and p[0] == '#':
        ref.add(p[2])
help, typ, labels = {}, {}, {}
for l in open(sys.argv[2]):
    l = l.rstrip('\n')
    p = l.split(' ', 3)
    if p[0] == '#':
        if p[1] == 'HELP': help[p[2]] = l
        if p[1] == 'TYPE': typ[p[2]] = l
        continue
    m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? ', l)
    name = m.group(1)
    for suf in ('_bucket', '_sum', '_count'):
        base = name[:-len(suf)]
        if name.endswith(suf) and base in typ and typ[base].endswith('histogram'):
            name = base
    ls = sorted(k for k in re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="', m.group(3) or '') if k != 'le')
    labels.setdefault(name, set()).add(','.join(ls))
prefixes = ('apiserver_authentication_', 'apiserver_authorization_config_controller_', 'apiserver_encryption_config_controller_', 'apiserver_envelope_encryption_')
with open(sys.argv[3], 'w') as f:
    for n in sorted(n for n in help if n not in ref and n.startswith(prefixes)):
        f.write(help[n] + '\n' + typ[n] + '\n')
        for ls in sorted(labels.get(n, [])):
            f.write('# LABELS %s %s\n' % (n, ls))
PY
