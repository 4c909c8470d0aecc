"""Small HTTP client for the oracle (o) and a local kapi (k)."""
import http.client, json, ssl, os

SERVERS = {
    "o": ("127.0.0.1", 16443, os.path.expanduser("~/.cache/kapi-oracle/run/pki")),
    "k": ("127.0.0.1", int(os.environ.get("KAPI_PORT", "6443")), os.environ.get("KAPI_PKI", "")),
}

def conn(srv):
    host, port, pki = SERVERS[srv]
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.load_cert_chain(pki + "/admin.crt", pki + "/admin.key")
    return http.client.HTTPSConnection(host, port, context=ctx, timeout=30)

def req(srv, method, path, body=None, ctype="application/json", accept=None, headers=None):
    c = conn(srv)
    h = dict(headers or {})
    if body is not None:
        if not isinstance(body, (str, bytes)):
            body = json.dumps(body)
        h["Content-Type"] = ctype
    if accept:
        h["Accept"] = accept
    c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    hdrs = r.getheaders()
    c.close()
    try:
        obj = json.loads(data)
    except Exception:
        obj = data.decode(errors="replace")
    return r.status, hdrs, obj
