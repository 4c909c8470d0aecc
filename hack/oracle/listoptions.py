import itertools, json
from probe import req
ns="h-semantics"
base=f"/api/v1/namespaces/{ns}/configmaps"
out=[]
for rv,rvm,sie,w,cont,lim in itertools.product(["","0","1"],["","NotOlderThan","Exact"],["","true","false"],["","1"],["","x"],["","5"]):
    q=[]
    if rv: q.append("resourceVersion="+rv)
    if rvm: q.append("resourceVersionMatch="+rvm)
    if sie: q.append("sendInitialEvents="+sie)
    if w: q.append("watch="+w)
    if cont: q.append("continue="+cont)
    if lim: q.append("limit="+lim)
    q.append("timeoutSeconds=1")
    qs="&".join(q)
    res=[]
    for s in "o":
        c,h,o=req(s,"GET",base+"?"+qs)
        msg=o.get("message","") if isinstance(o,dict) and o.get("kind")=="Status" else ""
        res.append((c,msg))
    out.append({"query": qs, "code": res[0][0], "message": res[0][1]})
json.dump(out, open("list-options.json", "w"), indent=1)
