import json, ssl, http.client, sys
import os
ORACLE = os.path.expanduser(os.environ.get("ORACLE_DIR", "~/.cache/kapi-oracle"))
WORK = os.environ["WORK"]  # made by impersonation-and-node.sh
P = ORACLE + "/run/pki"
paths = [
 "/api/v1/namespaces/h-node/secrets/s-vol",
 "/api/v1/namespaces/h-node/secrets/s-other",
 "/api/v1/namespaces/h-node/configmaps/cm-vol",
 "/api/v1/namespaces/h-node/configmaps/cm-other",
 "/api/v1/namespaces/h-node/pods/p2",
 "/api/v1/pods",
 "/api/v1/namespaces/h-node/pods",
 "/api/v1/nodes/h-node-n2",
 "/api/v1/nodes",
 "/api/v1/namespaces",
 "/api/v1/namespaces/h-node/serviceaccounts/sa2",
 "/api/v1/namespaces/h-node/persistentvolumeclaims/pvc-other",
]
ctx = ssl.create_default_context(cafile=P+"/ca.crt"); ctx.load_cert_chain(WORK + "/node1.crt", WORK + "/node1.key")
out = []
for p in paths:
    c = http.client.HTTPSConnection("127.0.0.1", 16443, context=ctx)
    c.request("GET", p, headers={"Accept": "application/json"})
    r = c.getresponse(); body = json.loads(r.read())
    rec = {"path": p, "code": r.status}
    if body.get("kind") == "Status": rec["status"] = body
    out.append(rec); print(r.status, p, body.get("message"), file=sys.stderr)
json.dump({"source": "kube-apiserver v1.37.1 --authorization-mode=Node,RBAC; GET as system:node:h-node-n1 (group system:nodes, client certificate) with the pods of pkg/authorization/node/testdata/oracle-objects.json bound to h-node-n1 and h-node-n2; none of the named secrets, configmaps, service accounts or claims exists", "cases": out}, open(sys.argv[1], "w"), indent=1)
