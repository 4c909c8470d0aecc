import json, ssl, http.client, sys
import os
ORACLE = os.path.expanduser(os.environ.get("ORACLE_DIR", "~/.cache/kapi-oracle"))
WORK = os.environ["WORK"]  # made by impersonation-and-node.sh
P = ORACLE + "/run/pki"
certs = {"alice": (P+"/alice.crt", P+"/alice.key"), "cora": (WORK + "/cora.crt", WORK + "/cora.key"),
         "nemo": (WORK + "/nemo.crt", WORK + "/nemo.key"), "admin": (P+"/admin.crt", P+"/admin.key")}
SSR = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
SSRBODY = '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}'
def c(name, who, headers, method="POST", path=SSR):
    return {"name": name, "requestor": who, "method": method, "path": path, "headers": headers}
U = "Impersonate-User"; G = "Impersonate-Group"; I = "Impersonate-Uid"
cases = [
 c("nemo without rights impersonates a user", "nemo", [[U, "bob"]]),
 c("nemo without rights impersonates a user for a list", "nemo", [[U, "bob"]], "GET", "/api/v1/namespaces/h-node/pods"),
 c("nemo without rights impersonates a service account", "nemo", [[U, "system:serviceaccount:h-node:sa1"]]),
 c("nemo without rights impersonates a node", "nemo", [[U, "system:node:n1"]]),
 c("nemo without rights impersonates a user on a path", "nemo", [[U, "bob"]], "GET", "/version"),
 c("nemo without rights impersonates a user with a group", "nemo", [[U, "bob"], [G, "devs"]]),
 c("group without user", "alice", [[G, "devs"]]),
 c("two groups without user", "alice", [[G, "devs"], [G, "ops"]]),
 c("uid without user", "alice", [[I, "1234"]]),
 c("extra without user", "alice", [["Impersonate-Extra-Scopes", "view"]]),
 c("group uid and extra without user", "alice", [[G, "devs"], [I, "1234"], ["Impersonate-Extra-Scopes", "view"], ["Impersonate-Extra-Scopes", "edit"]]),
 c("empty user with group", "alice", [[U, ""], [G, "devs"]]),
 c("alice impersonates a user she may", "alice", [[U, "bob"]]),
 c("alice impersonates a user she may not", "alice", [[U, "carol"]]),
 c("alice impersonates a user she may not on a path", "alice", [[U, "carol"]], "GET", "/version"),
 c("alice impersonates a user and a group", "alice", [[U, "bob"], [G, "devs"]]),
 c("alice impersonates a user and a group she may not", "alice", [[U, "bob"], [G, "admins"]]),
 c("alice impersonates a user and two groups, the second forbidden", "alice", [[U, "bob"], [G, "devs"], [G, "admins"]]),
 c("alice impersonates system:masters", "alice", [[U, "bob"], [G, "system:masters"]]),
 c("alice impersonates a uid", "alice", [[U, "bob"], [I, "1234"]]),
 c("alice impersonates a uid she may not", "alice", [[U, "bob"], [I, "999"]]),
 c("alice impersonates a forbidden uid and group: uid is checked first", "alice", [[U, "bob"], [I, "999"], [G, "admins"]]),
 c("alice impersonates an extra", "alice", [[U, "bob"], ["Impersonate-Extra-Scopes", "view"]]),
 c("alice impersonates an extra value she may not", "alice", [[U, "bob"], ["Impersonate-Extra-Scopes", "edit"]]),
 c("alice impersonates two extra values, one forbidden", "alice", [[U, "bob"], ["Impersonate-Extra-Scopes", "view"], ["Impersonate-Extra-Scopes", "edit"]]),
 c("alice impersonates an extra key she may not", "alice", [[U, "bob"], ["Impersonate-Extra-Other", "x"]]),
 c("alice impersonates a percent-encoded extra key", "alice", [[U, "bob"], ["Impersonate-Extra-Example.com%2fScopes", "x"]]),
 c("alice impersonates a service account", "alice", [[U, "system:serviceaccount:h-node:sa1"]]),
 c("alice impersonates a service account she may not", "alice", [[U, "system:serviceaccount:h-node:sa2"]]),
 c("alice impersonates a service account with a group", "alice", [[U, "system:serviceaccount:h-node:sa1"], [G, "devs"]]),
 c("alice impersonates anonymous", "alice", [[U, "system:anonymous"]]),
 c("alice impersonates anonymous with a group", "alice", [[U, "system:anonymous"], [G, "devs"]]),
 c("alice impersonates a node the legacy way", "alice", [[U, "system:node:n1"]]),
 c("alice impersonates a user whose request is then forbidden", "alice", [[U, "bob"]], "GET", "/api/v1/namespaces/h-node/pods"),
 c("alice impersonates a user for a request he may not make on a path", "alice", [[U, "bob"]], "GET", "/metrics"),
 c("cora impersonates a user through user-info", "cora", [[U, "bob"]]),
 c("cora impersonates a user and group through user-info", "cora", [[U, "bob"], [G, "devs"]]),
 c("cora impersonates a user for a verb she may impersonate on, forbidden to the user", "cora", [[U, "bob"]], "GET", "/api/v1/namespaces/h-node/configmaps"),
 c("cora impersonates a user for a verb she may not impersonate on", "cora", [[U, "bob"]], "GET", "/api/v1/namespaces/h-node/pods"),
 c("cora impersonates a user she may not", "cora", [[U, "carol"]]),
 c("cora impersonates a service account", "cora", [[U, "system:serviceaccount:h-node:sa1"]]),
 c("cora impersonates a service account with a group", "cora", [[U, "system:serviceaccount:h-node:sa1"], [G, "devs"]]),
 c("cora impersonates a node", "cora", [[U, "system:node:n1"]]),
 c("cora impersonates a node she may not", "cora", [[U, "system:node:n2"]]),
 c("cora impersonates a node with an invalid name", "cora", [[U, "system:node:N_1"]]),
 c("cora impersonates system:masters", "cora", [[U, "bob"], [G, "system:masters"]]),
 c("cora impersonates the empty group", "cora", [[U, "bob"], [G, ""]]),
 c("cora impersonates an extra she may not", "cora", [[U, "bob"], ["Impersonate-Extra-Scopes", "view"]]),
 c("cora impersonates an upper-case extra key", "cora", [[U, "bob"], ["Impersonate-Extra-%41bc", "x"]]),
 c("cora impersonates an invalid extra key", "cora", [[U, "bob"], ["Impersonate-Extra-a%20b", "x"]]),
 c("cora impersonates an empty extra value", "cora", [[U, "bob"], ["Impersonate-Extra-Scopes", ""]]),
 c("cora impersonates a uid she may not", "cora", [[U, "bob"], [I, "1234"]]),
 c("admin impersonates anyone", "admin", [[U, "bob"], [G, "devs"], [G, "system:masters"], [I, "u-1"], ["Impersonate-Extra-Scopes", "a"], ["Impersonate-Extra-Scopes", "b"], ["Impersonate-Extra-Example.com%2fkey", "v"]]),
 c("admin impersonates a user with system:authenticated", "admin", [[U, "bob"], [G, "system:authenticated"]]),
 c("admin impersonates a user with system:unauthenticated", "admin", [[U, "bob"], [G, "system:unauthenticated"]]),
 c("admin impersonates anonymous with system:authenticated", "admin", [[U, "system:anonymous"], [G, "system:authenticated"]]),
 c("admin impersonates a service account in another namespace with its groups", "admin", [[U, "system:serviceaccount:kube-system:default"]]),
 c("admin impersonates a malformed service account name", "admin", [[U, "system:serviceaccount:onlyns"]]),
 c("admin impersonates a node", "admin", [[U, "system:node:n1"]]),
]
out = []
for cs in cases:
    cert = certs[cs["requestor"]]
    ctx = ssl.create_default_context(cafile=P+"/ca.crt")
    ctx.load_cert_chain(*cert)
    conn = http.client.HTTPSConnection("127.0.0.1", 16443, context=ctx)
    conn.putrequest(cs["method"], cs["path"], skip_accept_encoding=True)
    conn.putheader("Accept", "application/json")
    body = SSRBODY.encode() if cs["method"] == "POST" else b""
    if body:
        conn.putheader("Content-Type", "application/json"); conn.putheader("Content-Length", str(len(body)))
    for k, v in cs["headers"]:
        conn.putheader(k, v)
    conn.endheaders(body or None)
    r = conn.getresponse()
    data = r.read()
    rec = dict(cs); rec["code"] = r.status
    try:
        j = json.loads(data)
    except Exception:
        j = None
    if j is not None and j.get("kind") == "SelfSubjectReview":
        rec["userInfo"] = j["status"]["userInfo"]
    elif j is not None and j.get("kind") == "Status":
        rec["status"] = j
    else:
        rec["bodyKind"] = (j or {}).get("kind", "non-json")
    out.append(rec)
    print(r.status, cs["name"], json.dumps(rec.get("userInfo") or (rec.get("status") or {}).get("message")), file=sys.stderr)
json.dump({"source": "kube-apiserver v1.37.1 (ConstrainedImpersonation on by default), --authorization-mode=Node,RBAC, RBAC objects of impersonation-rbac.yaml; recorded by sending each request with the requestor's client certificate, in this order", "cases": out}, open(sys.argv[1], "w"), indent=1)
