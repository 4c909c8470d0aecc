import json, ssl, http.client, sys
import os
ORACLE = os.path.expanduser(os.environ.get("ORACLE_DIR", "~/.cache/kapi-oracle"))
WORK = os.environ["WORK"]  # made by node.sh
P = ORACLE + "/run/pki"
MERGE = "application/merge-patch+json"
LABEL = {"metadata": {"labels": {"h-node": "patched"}}}
RS = "/apis/resource.k8s.io/v1/resourceslices"
VA = "/apis/storage.k8s.io/v1/volumeattachments"
PCR = "/apis/certificates.k8s.io/v1/namespaces/h-node/podcertificaterequests"
def get(path): return {"method": "GET", "path": path}
def patch(path): return {"method": "PATCH", "path": path, "contentType": MERGE, "body": LABEL}
cases = [get(p) for p in [
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
 # A PV bound to a claim of a pod of the node, and the secret it is
 # mounted with; not another node's PV, nor the secret only a
 # controller reads.
 "/api/v1/persistentvolumes/h-node-pv1",
 "/api/v1/persistentvolumes/h-node-pv2",
 "/api/v1/persistentvolumes",
 "/api/v1/namespaces/h-node/secrets/s-pv-publish",
 "/api/v1/namespaces/h-node/secrets/s-pv-controller",
 VA + "/h-node-va1",
 VA + "/h-node-va2",
 VA,
 RS + "/h-node-rs1",
 RS + "/h-node-rs2",
 RS + "/h-node-rs-all",
 RS + "?fieldSelector=spec.nodeName%3Dh-node-n1",
 RS + "?fieldSelector=spec.nodeName%3Dh-node-n2",
 RS,
 PCR + "/pcr1",
 PCR + "/pcr2",
 PCR + "?fieldSelector=spec.nodeName%3Dh-node-n1",
 PCR,
]]
cases += [
 patch(VA + "/h-node-va1"),
 patch(RS + "/h-node-rs1"),
 patch(RS + "/h-node-rs2"),
 {"method": "POST", "path": RS, "contentType": "application/json", "body": {
   "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "h-node-rs3"},
   "spec": {"driver": "dra.example.com", "pool": {"name": "h-node-n1-b", "generation": 1, "resourceSliceCount": 1}, "nodeName": "h-node-n1"}}},
 {"method": "DELETE", "path": RS + "/h-node-rs2"},
 {"method": "DELETE", "path": RS + "/h-node-rs1"},
 {"method": "DELETE", "path": PCR + "/pcr1"},
]
ctx = ssl.create_default_context(cafile=P+"/ca.crt"); ctx.load_cert_chain(WORK + "/node1.crt", WORK + "/node1.key")
out = []
for cs in cases:
    c = http.client.HTTPSConnection("127.0.0.1", 16443, context=ctx)
    headers = {"Accept": "application/json"}
    body = None
    if "body" in cs:
        headers["Content-Type"] = cs["contentType"]; body = json.dumps(cs["body"])
    c.request(cs["method"], cs["path"], body=body, headers=headers)
    r = c.getresponse(); got = json.loads(r.read())
    rec = dict(cs); rec["code"] = r.status
    if got.get("kind") == "Status":
        rec["status"] = got
    else:
        # Not a Status: what the node got, by kind and name.
        rec["kind"] = got["kind"]
        if "items" in got:
            rec["names"] = [i["metadata"]["name"] for i in got["items"]]
        else:
            rec["names"] = [got["metadata"]["name"]]
    out.append(rec); print(r.status, cs["method"], cs["path"], got.get("message"), file=sys.stderr)
json.dump({"source": "kube-apiserver v1.37.1 --authorization-mode=Node,RBAC; requests, in order, as system:node:h-node-n1 (group system:nodes, client certificate) with the objects of pkg/authorization/node/testdata/oracle-objects.json; none of the named secrets, configmaps, service accounts or claims exists", "cases": out}, open(sys.argv[1], "w"), indent=1)
