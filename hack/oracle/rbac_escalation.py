"""Records kube-apiserver's answers to RBAC escalation attempts by alice (a
user with no bindings but those the steps give her) in the namespace h-rbac:
    python3 hack/oracle/rbac_escalation.py > test/e2e/testdata/kube-apiserver/rbac-escalation.json
test/e2e/rbac_test.go replays the same steps against kapi, alice authenticated
by a static token, and compares status codes and Status bodies. The steps
clean up what they create."""
import json, os, ssl, http.client

PKI = os.path.expanduser("~/.cache/kapi-oracle/run/pki")
G = "/apis/rbac.authorization.k8s.io/v1"
NS = G + "/namespaces/h-rbac"

def send(who, method, path, body):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.load_cert_chain(f"{PKI}/{who}.crt", f"{PKI}/{who}.key")
    c = http.client.HTTPSConnection("127.0.0.1", 16443, context=ctx, timeout=30)
    ctype = "application/merge-patch+json" if method == "PATCH" else "application/json"
    h = {"Content-Type": ctype} if body is not None else {}
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=h)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, json.loads(data) if data else None

def role(name, rules):
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": name}, "rules": rules}

def binding(name, kind, ref, user):
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": ref},
            "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": user}]}

def rule(groups, resources, verbs, names=None):
    r = {"apiGroups": groups, "resources": resources, "verbs": verbs}
    if names:
        r["resourceNames"] = names
    return r

STEPS = [
    ("alice-without-bindings-lists-pods", "alice", "GET", NS.replace(G, "/api/v1") + "/pods", None),
    ("alice-without-bindings-creates-role", "alice", "POST", NS + "/roles", role("esc", [rule([""], ["pods"], ["get"])])),
    ("admin-creates-rbac-manager", "admin", "POST", NS + "/roles", role("rbac-manager", [rule(["rbac.authorization.k8s.io"], ["roles", "rolebindings"], ["create", "update", "patch", "get"])])),
    ("admin-creates-pod-reader", "admin", "POST", NS + "/roles", role("pod-reader", [rule([""], ["pods"], ["get", "list"])])),
    ("admin-creates-deployer", "admin", "POST", NS + "/roles", role("deployer", [rule(["apps"], ["deployments"], ["create", "delete"])])),
    ("admin-creates-binder", "admin", "POST", NS + "/roles", role("binder", [rule(["rbac.authorization.k8s.io"], ["roles"], ["bind"], ["deployer"])])),
    ("admin-creates-escalator", "admin", "POST", NS + "/roles", role("escalator", [rule(["rbac.authorization.k8s.io"], ["roles"], ["escalate"])])),
    ("admin-creates-clusterrole-secret-reader", "admin", "POST", G + "/clusterroles", {"metadata": {"name": "h-rbac-secret-reader"}, "rules": [rule([""], ["secrets"], ["get", "list"])]}),
    ("admin-binds-alice-manager", "admin", "POST", NS + "/rolebindings", binding("alice-manager", "Role", "rbac-manager", "alice")),
    ("admin-binds-alice-podreader", "admin", "POST", NS + "/rolebindings", binding("alice-podreader", "Role", "pod-reader", "alice")),
    ("alice-lists-pods", "alice", "GET", NS.replace(G, "/api/v1") + "/pods", None),
    ("alice-creates-role-beyond-her-rules", "alice", "POST", NS + "/roles", role("esc", [rule([""], ["pods"], ["get", "delete"]), rule(["apps"], ["deployments"], ["create"], ["x"])])),
    ("alice-creates-role-within-her-rules", "alice", "POST", NS + "/roles", role("mine", [rule([""], ["pods"], ["get"])])),
    ("alice-binds-bob-to-role-she-holds", "alice", "POST", NS + "/rolebindings", binding("bob-podreader", "Role", "pod-reader", "bob")),
    ("alice-binds-bob-to-deployer", "alice", "POST", NS + "/rolebindings", binding("bob-deployer", "Role", "deployer", "bob")),
    ("alice-binds-bob-to-clusterrole-secret-reader", "alice", "POST", NS + "/rolebindings", binding("bob-secrets", "ClusterRole", "h-rbac-secret-reader", "bob")),
    ("alice-binds-bob-to-missing-role", "alice", "POST", NS + "/rolebindings", binding("bob-missing", "Role", "nope", "bob")),
    ("admin-binds-alice-binder", "admin", "POST", NS + "/rolebindings", binding("alice-binder", "Role", "binder", "alice")),
    ("alice-with-bind-binds-bob-to-deployer", "alice", "POST", NS + "/rolebindings", binding("bob-deployer", "Role", "deployer", "bob")),
    ("alice-with-bind-on-deployer-binds-bob-to-clusterrole-secret-reader", "alice", "POST", NS + "/rolebindings", binding("bob-secrets", "ClusterRole", "h-rbac-secret-reader", "bob")),
    ("admin-binds-alice-escalator", "admin", "POST", NS + "/rolebindings", binding("alice-escalator", "Role", "escalator", "alice")),
    ("alice-with-escalate-creates-role-beyond-her-rules", "alice", "POST", NS + "/roles", role("esc", [rule([""], ["pods"], ["get", "delete"]), rule(["apps"], ["deployments"], ["create"], ["x"])])),
    ("admin-unbinds-alice-escalator", "admin", "DELETE", NS + "/rolebindings/alice-escalator", None),
    ("alice-updates-role-beyond-her-rules", "alice", "PUT", NS + "/roles/mine", role("mine", [rule([""], ["pods"], ["get", "delete", "patch"])])),
    ("alice-patches-role-beyond-her-rules", "alice", "PATCH", NS + "/roles/mine", {"rules": [rule([""], ["pods"], ["get", "list", "deletecollection"])]}),
    ("alice-patches-role-within-her-rules", "alice", "PATCH", NS + "/roles/mine", {"rules": [rule([""], ["pods"], ["get", "list"])]}),
    ("alice-creates-clusterrole", "alice", "POST", G + "/clusterroles", {"metadata": {"name": "h-rbac-alice"}, "rules": []}),
]
CLEANUP = ["esc", "mine", "rbac-manager", "pod-reader", "deployer", "binder", "escalator"]
CLEANUP_B = ["alice-manager", "alice-podreader", "alice-binder", "alice-escalator", "bob-podreader", "bob-deployer", "bob-secrets", "bob-missing"]

def keep(obj):
    """What the test compares: the Status of a failure (but its metadata), an object's kind."""
    if isinstance(obj, dict) and obj.get("kind") == "Status" and obj.get("status") == "Failure":
        return {k: v for k, v in obj.items() if k != "metadata"}
    return {"kind": obj.get("kind")} if isinstance(obj, dict) else None

out = []
try:
    for name, who, method, path, body in STEPS:
        code, obj = send(who, method, path, body)
        out.append({"step": name, "as": who, "method": method, "path": path, "body": body, "code": code, "response": keep(obj)})
finally:
    for n in CLEANUP:
        send("admin", "DELETE", NS + "/roles/" + n, None)
    for n in CLEANUP_B:
        send("admin", "DELETE", NS + "/rolebindings/" + n, None)
    send("admin", "DELETE", G + "/clusterroles/h-rbac-secret-reader", None)
print(json.dumps({"recordedFrom": "kube-apiserver v1.37.1 (the oracle), alice by client certificate, by hack/oracle/rbac_escalation.py", "steps": out}, indent=1))
