"""Asks a server what it does with the options of each write verb, sent in
the body, in the query, or in both; writes the answers as JSON."""
import json, sys, time
from probe import req

NS = "h-semantics"
HOLD = "example.com/hold"
CM = "/api/v1/namespaces/{ns}/configmaps"

def obj(name, finalizers=None, labels=None, data=None):
    return {"name": name, "finalizers": finalizers or [], "labels": labels or {"set": "a"}, "data": data or {"k": "v"}}

def delete_opts(**kw):
    d = {"kind": "DeleteOptions", "apiVersion": "v1"}
    d.update(kw)
    return json.dumps(d)

cases = []
def case(name, objects, method, path, query="", body=None, ctype="application/json", watch=None, before=None):
    c = {"name": name, "objects": objects, "request": {"method": method, "path": path, "query": query,
         "body": body, "contentType": ctype if body is not None else ""}, "watch": watch or [o["name"] for o in objects]}
    if before:
        c["before"] = before
    cases.append(c)

X = CM + "/x"
held = lambda: [obj("x", [HOLD])]
plain = lambda: [obj("x")]
# delete: dryRun
case("delete dryRun in body", plain(), "DELETE", X, "", delete_opts(dryRun=["All"]))
case("delete dryRun in query", plain(), "DELETE", X, "dryRun=All")
case("delete dryRun in body, timeout in query (kubectl --dry-run=server --request-timeout)", plain(), "DELETE", X, "timeout=45s", delete_opts(dryRun=["All"]))
case("delete dryRun in body and query", plain(), "DELETE", X, "dryRun=All", delete_opts(dryRun=["All"]))
case("delete empty options in body, dryRun in query", plain(), "DELETE", X, "dryRun=All", delete_opts())
case("delete empty JSON body, dryRun in query", plain(), "DELETE", X, "dryRun=All", "{}")
case("delete unsupported dryRun in body", plain(), "DELETE", X, "", delete_opts(dryRun=["Bogus"]))
case("delete unsupported dryRun in query", plain(), "DELETE", X, "dryRun=Bogus")
case("delete unsupported dryRun in query, options in body", plain(), "DELETE", X, "dryRun=Bogus", delete_opts())
# delete: propagationPolicy
for p in ["Orphan", "Foreground", "Background"]:
    case(f"delete propagationPolicy={p} in body", held(), "DELETE", X, "", delete_opts(propagationPolicy=p))
    case(f"delete propagationPolicy={p} in query", held(), "DELETE", X, f"propagationPolicy={p}")
case("delete propagationPolicy Orphan in body, Foreground in query", held(), "DELETE", X, "propagationPolicy=Foreground", delete_opts(propagationPolicy="Orphan"))
case("delete propagationPolicy unsupported in body", held(), "DELETE", X, "", delete_opts(propagationPolicy="Bogus"))
case("delete propagationPolicy unsupported in query", held(), "DELETE", X, "propagationPolicy=Bogus")
case("delete propagationPolicy Orphan in body, unsupported in query", held(), "DELETE", X, "propagationPolicy=Bogus", delete_opts(propagationPolicy="Orphan"))
# delete: orphanDependents
case("delete orphanDependents in body", held(), "DELETE", X, "", delete_opts(orphanDependents=True))
case("delete orphanDependents in query", held(), "DELETE", X, "orphanDependents=true")
case("delete orphanDependents=false in body", held(), "DELETE", X, "", delete_opts(orphanDependents=False))
case("delete propagationPolicy in body, orphanDependents in query", held(), "DELETE", X, "orphanDependents=true", delete_opts(propagationPolicy="Background"))
case("delete propagationPolicy and orphanDependents in body", held(), "DELETE", X, "", delete_opts(propagationPolicy="Background", orphanDependents=True))
case("delete propagationPolicy and orphanDependents in query", held(), "DELETE", X, "propagationPolicy=Background&orphanDependents=true")
# delete: gracePeriodSeconds
case("delete gracePeriodSeconds in body", plain(), "DELETE", X, "", delete_opts(gracePeriodSeconds=30))
case("delete gracePeriodSeconds in query", plain(), "DELETE", X, "gracePeriodSeconds=30")
case("delete malformed gracePeriodSeconds in query", plain(), "DELETE", X, "gracePeriodSeconds=abc")
case("delete malformed gracePeriodSeconds in query, options in body", plain(), "DELETE", X, "gracePeriodSeconds=abc", delete_opts())
case("delete negative gracePeriodSeconds in body", plain(), "DELETE", X, "", delete_opts(gracePeriodSeconds=-1))
case("delete negative gracePeriodSeconds in query", plain(), "DELETE", X, "gracePeriodSeconds=-1")
# delete: preconditions (body only: no query parameter carries them)
case("delete uid precondition in body", plain(), "DELETE", X, "", delete_opts(preconditions={"uid": "00000000-0000-0000-0000-000000000000"}))
case("delete uid precondition in body, timeout in query", plain(), "DELETE", X, "timeout=45s", delete_opts(preconditions={"uid": "00000000-0000-0000-0000-000000000000"}))
case("delete resourceVersion precondition in body, dryRun in query", plain(), "DELETE", X, "dryRun=All", delete_opts(preconditions={"resourceVersion": "1"}))
case("delete precondition parameter in query is not an option", plain(), "DELETE", X, "preconditions.uid=00000000-0000-0000-0000-000000000000")
# delete: bodies that are not options
case("delete body of another kind", plain(), "DELETE", X, "", json.dumps({"kind": "ConfigMap", "apiVersion": "v1"}))
case("delete malformed body", plain(), "DELETE", X, "", "{not json")
case("delete body of DeleteOptions in meta.k8s.io/v1", plain(), "DELETE", X, "", json.dumps({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "dryRun": ["All"]}))
case("delete options in a YAML body", plain(), "DELETE", X, "", "kind: DeleteOptions\napiVersion: v1\ndryRun: [All]\n", "application/yaml")
# deletecollection
two = lambda: [obj("x"), obj("y")]
twoheld = lambda: [obj("x", [HOLD]), obj("y", [HOLD])]
case("deletecollection dryRun in body", two(), "DELETE", CM, "labelSelector=set%3Da", delete_opts(dryRun=["All"]))
case("deletecollection dryRun in query", two(), "DELETE", CM, "labelSelector=set%3Da&dryRun=All")
case("deletecollection dryRun in body, timeout in query", two(), "DELETE", CM, "labelSelector=set%3Da&timeout=45s", delete_opts(dryRun=["All"]))
case("deletecollection empty options in body, dryRun in query", two(), "DELETE", CM, "labelSelector=set%3Da&dryRun=All", delete_opts())
case("deletecollection propagationPolicy Orphan in body", twoheld(), "DELETE", CM, "labelSelector=set%3Da", delete_opts(propagationPolicy="Orphan"))
case("deletecollection propagationPolicy Orphan in query", twoheld(), "DELETE", CM, "labelSelector=set%3Da&propagationPolicy=Orphan")
case("deletecollection propagationPolicy Orphan in body, Foreground in query", twoheld(), "DELETE", CM, "labelSelector=set%3Da&propagationPolicy=Foreground", delete_opts(propagationPolicy="Orphan"))
case("deletecollection unsupported propagationPolicy in query, options in body", twoheld(), "DELETE", CM, "labelSelector=set%3Da&propagationPolicy=Bogus", delete_opts())
case("deletecollection uid precondition in body", two(), "DELETE", CM, "labelSelector=set%3Da", delete_opts(preconditions={"uid": "00000000-0000-0000-0000-000000000000"}))
case("deletecollection selects by the query, not the body", [obj("x"), obj("y", labels={"set": "b"})], "DELETE", CM, "labelSelector=set%3Da", delete_opts())
# create, update, patch: the body is the object; options come from the query
def cm_body(name, data=None, extra=None):
    b = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "{ns}", "labels": {"set": "a"}}, "data": data or {"k": "new"}}
    if extra: b.update(extra)
    return json.dumps(b)
for verb, method, path, objs in [("create", "POST", CM, []), ("update", "PUT", X, plain())]:
    name = "new" if verb == "create" else "x"
    w = [name]
    case(f"{verb} dryRun in query", objs, method, path, "dryRun=All", cm_body(name), watch=w)
    case(f"{verb} unsupported dryRun in query", objs, method, path, "dryRun=Bogus", cm_body(name), watch=w)
    case(f"{verb} fieldManager in query", objs, method, path, "fieldManager=probe", cm_body(name), watch=w)
    case(f"{verb} invalid fieldManager in query", objs, method, path, "fieldManager=" + "m" * 129, cm_body(name), watch=w)
    case(f"{verb} fieldValidation=Strict in query, unknown field in body", objs, method, path, "fieldValidation=Strict", cm_body(name, extra={"bogus": 1}), watch=w)
    case(f"{verb} fieldValidation=Ignore in query, unknown field in body", objs, method, path, "fieldValidation=Ignore", cm_body(name, extra={"bogus": 1}), watch=w)
    case(f"{verb} unsupported fieldValidation in query", objs, method, path, "fieldValidation=Bogus", cm_body(name), watch=w)
    case(f"{verb} dryRun in a CreateOptions-shaped body field is an unknown field", objs, method, path, "fieldValidation=Strict", cm_body(name, extra={"dryRun": ["All"]}), watch=w)
    case(f"{verb} delete options in query are ignored", objs, method, path, "propagationPolicy=Bogus&gracePeriodSeconds=abc", cm_body(name), watch=w)
merge = json.dumps({"data": {"k": "patched"}})
case("patch dryRun in query", plain(), "PATCH", X, "dryRun=All", merge, "application/merge-patch+json")
case("patch unsupported dryRun in query", plain(), "PATCH", X, "dryRun=Bogus", merge, "application/merge-patch+json")
case("patch fieldManager in query", plain(), "PATCH", X, "fieldManager=probe", merge, "application/merge-patch+json")
case("patch fieldValidation=Strict in query, unknown field in patch", plain(), "PATCH", X, "fieldValidation=Strict", json.dumps({"bogus": 1}), "application/merge-patch+json")
case("patch unsupported fieldValidation in query", plain(), "PATCH", X, "fieldValidation=Bogus", merge, "application/merge-patch+json")
case("patch force on a merge patch", plain(), "PATCH", X, "force=true", merge, "application/merge-patch+json")
apply = lambda name: json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "applied"}})
case("apply without fieldManager", plain(), "PATCH", X, "", apply("x"), "application/apply-patch+yaml")
case("apply fieldManager and dryRun in query", plain(), "PATCH", X, "fieldManager=probe&dryRun=All", apply("x"), "application/apply-patch+yaml")
case("apply fieldManager in query creates", [], "PATCH", CM + "/new", "fieldManager=probe", apply("new"), "application/apply-patch+yaml", watch=["new"])
case("apply fieldManager and dryRun in query does not create", [], "PATCH", CM + "/new", "fieldManager=probe&dryRun=All", apply("new"), "application/apply-patch+yaml", watch=["new"])

deletion_cases = []
def deletion_matrix():
    """propagationPolicy x the finalizers an object has x first or repeated
    delete, and updates of an object that is being deleted."""
    global cases
    saved, cases = cases, []
    for start in [[], [HOLD], ["orphan"], ["foregroundDeletion"], [HOLD, "orphan"]]:
        for pol in [None, "Orphan", "Foreground", "Background"]:
            for again in [False, True]:
                body = delete_opts(propagationPolicy=pol) if pol else delete_opts()
                before = [{"method": "DELETE", "path": X}] if again else None
                label = ",".join(start) or "no finalizers"
                case(f"{'repeated ' if again else ''}delete propagationPolicy={pol or 'unset'}, {label}", [obj("x", start)], "DELETE", X, "", body, before=before)
    mp = "application/merge-patch+json"
    for name, patch in [
        ("add a finalizer", {"metadata": {"finalizers": [HOLD, "example.com/new"]}}),
        ("add the orphan finalizer", {"metadata": {"finalizers": [HOLD, "orphan"]}}),
        ("remove the last finalizer", {"metadata": {"finalizers": None}}),
        ("change data", {"data": {"k": "changed"}}),
        ("clear deletionTimestamp", {"metadata": {"deletionTimestamp": None}}),
        ("move deletionTimestamp", {"metadata": {"deletionTimestamp": "2030-01-01T00:00:00Z"}}),
        ("change deletionGracePeriodSeconds", {"metadata": {"deletionGracePeriodSeconds": 30}}),
    ]:
        case(f"update of a deleted object: {name}", [obj("x", [HOLD])], "PATCH", X, "", json.dumps(patch), mp, before=[{"method": "DELETE", "path": X}])
    for name, patch in [
        ("set deletionTimestamp", {"metadata": {"deletionTimestamp": "2030-01-01T00:00:00Z"}}),
        ("set deletionGracePeriodSeconds", {"metadata": {"deletionGracePeriodSeconds": 30}}),
    ]:
        case(f"update of a live object: {name}", [obj("x")], "PATCH", X, "", json.dumps(patch), mp)
    deletion_cases.extend(cases)
    cases = saved
deletion_matrix()

def observe(o):
    """What a case compares of a returned object or Status."""
    if not isinstance(o, dict):
        return {"body": "not JSON"}
    kind = o.get("kind", "")
    if kind == "Status":
        return {"kind": kind, "reason": o.get("reason", ""), "status": o.get("status", "")}
    out = {"kind": kind}
    if kind.endswith("List"):
        out["items"] = sorted(describe(i) for i in o.get("items", []))
        return out
    out["object"] = describe(o)
    return out

def describe(o):
    m = o.get("metadata", {})
    parts = [m.get("name", "")]
    parts.append("finalizers=" + ",".join(m.get("finalizers", [])))
    parts.append("deleting=" + str("deletionTimestamp" in m).lower())
    parts.append("managers=" + ",".join(sorted({e.get("manager", "") for e in m.get("managedFields", [])})))
    parts.append("data=" + ",".join(f"{k}:{v}" for k, v in sorted(o.get("data", {}).items())))
    return " ".join(parts)

def run(srv, ns, cases):
    results = []
    for c in cases:
        for o in c["objects"]:
            body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": o["name"], "labels": o["labels"], "finalizers": o["finalizers"]}, "data": o["data"]}
            code, _, out = req(srv, "POST", CM.format(ns=ns), body)
            assert code == 201, (c["name"], code, out)
        for b in c.get("before", []):
            req(srv, b["method"], b["path"].format(ns=ns))
        r = c["request"]
        path = r["path"].format(ns=ns) + ("?" + r["query"] if r["query"] else "")
        body = r["body"].replace("{ns}", ns) if r["body"] is not None else None
        code, _, out = req(srv, r["method"], path, body, r["contentType"] or "application/json")
        after = []
        for name in c["watch"]:
            gc, _, got = req(srv, "GET", CM.format(ns=ns) + "/" + name)
            after.append(describe(got) if gc == 200 else f"{name} absent ({gc})")
        results.append({"code": code, "response": observe(out), "after": after})
        # clean up
        for name in c["watch"]:
            req(srv, "PATCH", CM.format(ns=ns) + "/" + name, json.dumps({"metadata": {"finalizers": None}}), "application/merge-patch+json")
            req(srv, "DELETE", CM.format(ns=ns) + "/" + name)
    return results

if __name__ == "__main__":
    srv = sys.argv[1]
    ns = NS
    code, _, _ = req(srv, "GET", "/api/v1/namespaces/" + ns)
    if code == 404:
        req(srv, "POST", "/api/v1/namespaces", {"metadata": {"name": ns}})
    chosen = deletion_cases if len(sys.argv) > 2 and sys.argv[2] == "deletion" else cases
    res = run(srv, ns, chosen)
    out = []
    for c, r in zip(chosen, res):
        d = dict(c)
        d["want"] = r
        out.append(d)
    json.dump(out, sys.stdout, indent=1)
