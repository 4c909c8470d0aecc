import json, ssl, http.client, sys
import os
ORACLE = os.path.expanduser(os.environ.get("ORACLE_DIR", "~/.cache/kapi-oracle"))
WORK = os.environ["WORK"]  # made by impersonation-and-node.sh
P = ORACLE + "/run/pki"
N1 = {"user": "system:node:h-node-n1", "groups": ["system:nodes", "system:authenticated"]}
N2 = {"user": "system:node:h-node-n2", "groups": ["system:nodes", "system:authenticated"]}
NOGROUP = {"user": "system:node:h-node-n1", "groups": ["system:authenticated"]}
EMPTY = {"user": "system:node:", "groups": ["system:nodes", "system:authenticated"]}
def r(verb, resource, name="", ns="", group="", sub="", fs=None, who=N1):
    ra = {"verb": verb, "resource": resource, "group": group}
    if name: ra["name"] = name
    if ns: ra["namespace"] = ns
    if sub: ra["subresource"] = sub
    if fs: ra["fieldSelector"] = {"requirements": [fs]}
    return {"who": who, "resourceAttributes": ra}
NS = "h-node"
cases = []
for s in ["s-vol", "s-proj", "s-csi", "s-env", "s-envfrom", "s-pull", "s-init", "s-pv-publish", "s-pv-controller", "s-other", "s-unbound", "s-none"]:
    cases.append(r("get", "secrets", s, NS))
for c in ["cm-vol", "cm-proj", "cm-env", "cm-envfrom", "kube-root-ca.crt", "cm-other", "cm-none"]:
    cases.append(r("get", "configmaps", c, NS))
cases += [
 r("list", "secrets", "s-vol", NS), r("watch", "secrets", "s-vol", NS), r("list", "secrets", "", NS), r("list", "secrets"),
 r("create", "secrets", "s-vol", NS), r("update", "secrets", "s-vol", NS), r("delete", "configmaps", "cm-vol", NS),
 r("get", "secrets", "s-vol", NS, sub="status"), r("get", "secrets", "s-vol"),
 r("get", "secrets", "s-vol", NS, who=N2), r("get", "secrets", "s-other", NS, who=N2), r("get", "configmaps", "cm-other", NS, who=N2),
 r("get", "secrets", "s-vol", NS, who=NOGROUP), r("get", "secrets", "s-vol", NS, who=EMPTY),
 r("get", "pods", "p1", NS), r("get", "pods", "p-mirror", NS), r("get", "pods", "p2", NS), r("get", "pods", "p-unbound", NS),
 r("list", "pods"), r("list", "pods", ns=NS), r("watch", "pods"), r("list", "pods", "p1", NS), r("watch", "pods", "p2", NS),
 r("list", "pods", fs={"key": "spec.nodeName", "operator": "In", "values": ["h-node-n1"]}),
 r("create", "pods", "", NS), r("delete", "pods", "p2", NS), r("update", "pods", "p1", NS), r("patch", "pods", "p1", NS),
 r("update", "pods", "p1", NS, sub="status"), r("patch", "pods", "p2", NS, sub="status"), r("get", "pods", "p1", NS, sub="status"),
 r("create", "pods", "p1", NS, sub="eviction"), r("get", "pods", "p1", NS, sub="log"), r("create", "pods", "p1", NS, sub="exec"),
 r("create", "serviceaccounts", "sa1", NS, sub="token"), r("create", "serviceaccounts", "sa2", NS, sub="token"),
 r("create", "serviceaccounts", "default", NS, sub="token"), r("get", "serviceaccounts", "sa1", NS), r("get", "serviceaccounts", "sa2", NS),
 r("list", "serviceaccounts", "", NS), r("create", "serviceaccounts", "", NS, sub="token"), r("create", "serviceaccounts", "sa1", NS),
 r("get", "persistentvolumeclaims", "pvc1", NS), r("get", "persistentvolumeclaims", "p1-eph", NS), r("get", "persistentvolumeclaims", "pvc-other", NS),
 r("list", "persistentvolumeclaims", "", NS), r("update", "persistentvolumeclaims", "pvc1", NS, sub="status"), r("patch", "persistentvolumeclaims", "pvc-other", NS, sub="status"),
 r("get", "persistentvolumeclaims", "pvc1", NS, sub="status"), r("update", "persistentvolumeclaims", "pvc1", NS),
 r("get", "persistentvolumes", "h-node-pv1"), r("get", "persistentvolumes", "h-node-pv2"), r("list", "persistentvolumes"),
 r("get", "resourceclaims", "rc1", NS, group="resource.k8s.io"), r("get", "resourceclaims", "rc-other", NS, group="resource.k8s.io"),
 r("get", "volumeattachments", "h-node-va1", group="storage.k8s.io"), r("get", "volumeattachments", "h-node-va2", group="storage.k8s.io"), r("list", "volumeattachments", group="storage.k8s.io"),
 r("get", "nodes", "h-node-n1"), r("get", "nodes", "h-node-n2"), r("list", "nodes"), r("watch", "nodes", "h-node-n1"), r("list", "nodes", "h-node-n2"),
 r("create", "nodes"), r("update", "nodes", "h-node-n2"), r("patch", "nodes", "h-node-n1"), r("delete", "nodes", "h-node-n1"),
 r("patch", "nodes", "h-node-n1", sub="status"), r("update", "nodes", "h-node-n2", sub="status"), r("get", "nodes", "h-node-n1", sub="status"), r("get", "nodes", "h-node-n1", sub="proxy"),
 r("get", "leases", "h-node-n1", "kube-node-lease", group="coordination.k8s.io"), r("update", "leases", "h-node-n1", "kube-node-lease", group="coordination.k8s.io"),
 r("get", "leases", "h-node-n2", "kube-node-lease", group="coordination.k8s.io"), r("create", "leases", "", "kube-node-lease", group="coordination.k8s.io"),
 r("list", "leases", "", "kube-node-lease", group="coordination.k8s.io"), r("get", "leases", "h-node-n1", "default", group="coordination.k8s.io"),
 r("delete", "leases", "h-node-n1", "kube-node-lease", group="coordination.k8s.io"),
 r("get", "csinodes", "h-node-n1", group="storage.k8s.io"), r("get", "csinodes", "h-node-n2", group="storage.k8s.io"), r("create", "csinodes", group="storage.k8s.io"),
 r("list", "csinodes", group="storage.k8s.io"), r("get", "csinodes", "h-node-n1", group="storage.k8s.io", sub="status"),
 r("list", "services"), r("get", "services", "kubernetes", "default"), r("create", "services", "", NS), r("create", "events", "", NS), r("patch", "events", "e", NS, group="events.k8s.io"),
 r("get", "endpoints", "kubernetes", "default"), r("list", "endpoints", "", "default"), r("create", "tokenreviews", group="authentication.k8s.io"),
 r("create", "subjectaccessreviews", group="authorization.k8s.io"), r("create", "certificatesigningrequests", group="certificates.k8s.io"),
 r("list", "csidrivers", group="storage.k8s.io"), r("get", "runtimeclasses", "rc", group="node.k8s.io"), r("deletecollection", "resourceslices", group="resource.k8s.io"),
 r("list", "resourceslices", group="resource.k8s.io"), r("create", "resourceslices", group="resource.k8s.io"),
 r("list", "clustertrustbundles", group="certificates.k8s.io"), r("create", "podcertificaterequests", "", NS, group="certificates.k8s.io"),
 r("get", "podcertificaterequests", "x", NS, group="certificates.k8s.io"), r("list", "podcertificaterequests", "", NS, group="certificates.k8s.io"),
 r("get", "deployments", "d", NS, group="apps"), r("list", "namespaces"), r("get", "namespaces", NS),
 {"who": N1, "nonResourceAttributes": {"verb": "get", "path": "/api"}}, {"who": N1, "nonResourceAttributes": {"verb": "get", "path": "/metrics"}},
 {"who": N1, "nonResourceAttributes": {"verb": "get", "path": "/healthz"}},
 r("get", "secrets", "s-vol", NS, who={"user": "alice", "groups": ["system:authenticated"]}),
]
# Persistent volumes, volume attachments, resource slices and pod
# certificate requests: the edges of objects other than pods.
RES, CERT, STOR = "resource.k8s.io", "certificates.k8s.io", "storage.k8s.io"
def on(node, key="spec.nodeName"):
    return {"key": key, "operator": "In", "values": [node]}
cases += [
 r("get", "persistentvolumes", "h-node-pv1", who=N2), r("get", "persistentvolumes", "h-node-pv2", who=N2),
 r("get", "persistentvolumes", "h-node-pv1", sub="status"), r("update", "persistentvolumes", "h-node-pv1"),
 r("watch", "persistentvolumes", "h-node-pv1"), r("get", "persistentvolumes", "h-node-none"),
 r("get", "secrets", "s-pv-publish", NS, who=N2), r("list", "secrets", "s-pv-publish", NS),
 r("get", "volumeattachments", "h-node-va2", group=STOR, who=N2), r("get", "volumeattachments", "h-node-va1", group=STOR, who=N2),
 r("update", "volumeattachments", "h-node-va1", group=STOR), r("patch", "volumeattachments", "h-node-va1", group=STOR),
 r("delete", "volumeattachments", "h-node-va1", group=STOR), r("watch", "volumeattachments", "h-node-va1", group=STOR),
 r("get", "volumeattachments", "h-node-va1", group=STOR, sub="status"), r("get", "volumeattachments", "h-node-none", group=STOR),
 r("get", "resourceslices", "h-node-rs1", group=RES), r("get", "resourceslices", "h-node-rs2", group=RES),
 r("get", "resourceslices", "h-node-rs-all", group=RES), r("get", "resourceslices", "h-node-none", group=RES),
 r("get", "resourceslices", "h-node-rs2", group=RES, who=N2), r("update", "resourceslices", "h-node-rs1", group=RES),
 r("update", "resourceslices", "h-node-rs2", group=RES), r("patch", "resourceslices", "h-node-rs1", group=RES),
 r("patch", "resourceslices", "h-node-rs2", group=RES), r("delete", "resourceslices", "h-node-rs1", group=RES),
 r("delete", "resourceslices", "h-node-rs2", group=RES), r("delete", "resourceslices", "", group=RES),
 r("get", "resourceslices", "h-node-rs1", group=RES, sub="status"), r("escalate", "resourceslices", "h-node-rs1", group=RES),
 r("create", "resourceslices", "h-node-rs3", group=RES, who=N2),
 r("list", "resourceslices", group=RES, fs=on("h-node-n1")), r("watch", "resourceslices", group=RES, fs=on("h-node-n1")),
 r("deletecollection", "resourceslices", group=RES, fs=on("h-node-n1")), r("list", "resourceslices", group=RES, fs=on("h-node-n2")),
 r("list", "resourceslices", group=RES, fs=on("h-node-n1", "nodeName")), r("list", "resourceslices", group=RES, fs=on("h-node-n1"), who=N2),
 r("list", "resourceslices", group=RES, fs=on("h-node-n2"), who=N2), r("watch", "resourceslices", group=RES),
 r("get", "podcertificaterequests", "pcr1", NS, group=CERT), r("get", "podcertificaterequests", "pcr2", NS, group=CERT),
 r("get", "podcertificaterequests", "pcr2", NS, group=CERT, who=N2), r("get", "podcertificaterequests", "pcr1", NS, group=CERT, who=N2),
 r("get", "podcertificaterequests", "pcr1", "default", group=CERT), r("get", "podcertificaterequests", "pcr1", NS, group=CERT, sub="status"),
 r("update", "podcertificaterequests", "pcr1", NS, group=CERT), r("patch", "podcertificaterequests", "pcr1", NS, group=CERT),
 r("delete", "podcertificaterequests", "pcr1", NS, group=CERT), r("update", "podcertificaterequests", "pcr1", NS, group=CERT, sub="status"),
 r("create", "podcertificaterequests", "pcr3", NS, group=CERT, who=N2),
 r("list", "podcertificaterequests", "", NS, group=CERT, fs=on("h-node-n1")), r("watch", "podcertificaterequests", "", NS, group=CERT, fs=on("h-node-n1")),
 r("list", "podcertificaterequests", group=CERT, fs=on("h-node-n1")), r("list", "podcertificaterequests", "", NS, group=CERT, fs=on("h-node-n2")),
 r("list", "podcertificaterequests", "", NS, group=CERT, fs=on("h-node-n2"), who=N2), r("watch", "podcertificaterequests", "", NS, group=CERT),
 r("deletecollection", "podcertificaterequests", "", NS, group=CERT, fs=on("h-node-n1")),
]
ctx = ssl.create_default_context(cafile=P+"/ca.crt"); ctx.load_cert_chain(P+"/admin.crt", P+"/admin.key")
out = []
for cs in cases:
    spec = dict(cs["who"]); 
    for k in ("resourceAttributes", "nonResourceAttributes"):
        if k in cs: spec[k] = cs[k]
    body = json.dumps({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}).encode()
    conn = http.client.HTTPSConnection("127.0.0.1", 16443, context=ctx)
    conn.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", body, {"Content-Type": "application/json"})
    resp = json.loads(conn.getresponse().read())
    st = resp.get("status", resp)
    out.append({"spec": spec, "status": st})
    print(json.dumps(spec.get("resourceAttributes") or spec.get("nonResourceAttributes")), spec["user"][-9:], st, file=sys.stderr)
json.dump({"source": "SubjectAccessReview against kube-apiserver v1.37.1 --authorization-mode=Node,RBAC (bootstrap policy only for these users), with the objects of oracle-objects.json", "cases": out}, open(sys.argv[1], "w"), indent=1)
