import ssl, http.client, json, sys, socket, time

host, port, cert, key, ns = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
only = sys.argv[6:] 
ctx = ssl.create_default_context(); ctx.check_hostname=False; ctx.verify_mode=ssl.CERT_NONE
ctx.load_cert_chain(cert, key)

def req(method, path, body=None, ctype=None, headers=None):
    c = http.client.HTTPSConnection(host, port, context=ctx, timeout=120)
    h = dict(headers or {})
    if ctype: h['Content-Type']=ctype
    c.request(method, path, body=body, headers=h)
    r = c.getresponse(); data = r.read(); c.close()
    return r.status, data

def show(name, st, data):
    try:
        j = json.loads(data); out = {k:j.get(k) for k in ('reason','message','details')}
        s = json.dumps(out)
    except Exception:
        s = repr(data[:300])
    if len(s) > 600: s = s[:600]+'...'
    print(f"## {name}: {st} {s}", flush=True)

base = f"/api/v1/namespaces/{ns}/configmaps"
def cm(name, extra=''):
    return '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s"}%s}' % (name, extra)

probes = {}
def probe(f): probes[f.__name__]=f; return f

@probe
def setup():
    req('POST', f"/api/v1/namespaces", json.dumps({"apiVersion":"v1","kind":"Namespace","metadata":{"name":ns}}), 'application/json')
    st, d = req('POST', base, cm('target', ',"data":{"a":"b"}'), 'application/json'); show('setup', st, d)

def bombops(n):
    ops=[{"op":"add","path":"/z","value":{"a":"x"*1024}}]
    ops += [{"op":"copy","from":"/z","path":"/z/c%d"%i} for i in range(n)]
    return json.dumps(ops)
@probe
def jsonpatch_bomb():
    st,d=req('PATCH', base+'/target', bombops(18), 'application/json-patch+json'); show('jsonpatch copy bomb 18', st, d)
@probe
def jsonpatch_copy_under():
    ops=[{"op":"add","path":"/metadata/annotations","value":{"a":"x"*1024}},{"op":"copy","from":"/metadata/annotations/a","path":"/metadata/annotations/b"}]
    st,d=req('PATCH', base+'/target', json.dumps(ops), 'application/json-patch+json'); show('jsonpatch small copy', st, d)
@probe
def jsonpatch_copy_exact():
    # copy accumulating just over 3MiB in one op on data values
    ops=[{"op":"add","path":"/z","value":"x"*(1<<20)}]+[{"op":"copy","from":"/z","path":"/y%d"%i} for i in range(3)]
    st,d=req('PATCH', base+'/target', json.dumps(ops), 'application/json-patch+json'); show('jsonpatch copy 3x1MiB string', st, d)
@probe
def jsonpatch_too_many_ops():
    ops=[{"op":"test","path":"/metadata/name","value":"target"}]*10001
    st,d=req('PATCH', base+'/target', json.dumps(ops), 'application/json-patch+json'); show('jsonpatch 10001 ops', st, d)
@probe
def jsonpatch_bad_op():
    st,d=req('PATCH', base+'/target', '[{"op":"remove","path":"/nope"}]', 'application/json-patch+json'); show('jsonpatch remove missing', st, d)

def nested(n, o='[', c=']'): return o*n + c*n
@probe
def deep_json_create_10001():
    st,d=req('POST', base, cm('deep', ',"x":'+nested(10001)), 'application/json'); show('create json nesting 10001', st, d)
@probe
def deep_json_create_9990():
    st,d=req('POST', base, cm('deep2', ',"x":'+nested(9990)), 'application/json'); show('create json nesting 9990 (unknown field)', st, d)
@probe
def deep_json_create_1M():
    st,d=req('POST', base, cm('deep3', ',"x":'+nested(1000000)), 'application/json'); show('create json nesting 1e6', st, d)
@probe
def deep_json_objects():
    n=10001; st,d=req('POST', base, cm('deep4', ',"x":'+'{"a":'*n+'1'+'}'*n), 'application/json'); show('create json object nesting 10001', st, d)
@probe
def deep_yaml_create_flow():
    st,d=req('POST', base, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deepy}\nx: '+nested(10001)+'\n', 'application/yaml'); show('create yaml flow nesting 10001', st, d)
@probe
def deep_yaml_create_flow_1M():
    st,d=req('POST', base, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deepy}\nx: '+nested(1000000)+'\n', 'application/yaml'); show('create yaml flow nesting 1e6', st, d)
@probe
def deep_yaml_block():
    n=10001; y='apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deepyb}\nx:\n' + ''.join(' '*(i+1)+'- \n' if False else '' for i in range(0)) 
    lines=[]
    for i in range(n): lines.append(' '*i + 'a:')
    y='apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deepyb}\nx:\n' + '\n'.join(' '*(i+1)+'a:' for i in range(n)) + ' 1\n'
    st,d=req('POST', base, y, 'application/yaml'); show('create yaml block nesting 10001', st, d)
@probe
def deep_merge_patch():
    st,d=req('PATCH', base+'/target', '{"x":'+nested(10001, '{"a":', '}').replace('{"a":}','{"a":1}')+'}' , 'application/merge-patch+json'); show('merge patch object nesting 10001', st, d)
@probe
def deep_merge_patch_9000():
    n=9000; st,d=req('PATCH', base+'/target', '{"metadata":{"annotations":null},"x":'+'{"a":'*n+'1'+'}'*n+'}', 'application/merge-patch+json'); show('merge patch object nesting 9000 (unknown field)', st, d)
@probe
def deep_smp():
    n=10001; st,d=req('PATCH', base+'/target', '{"x":'+'{"a":'*n+'1'+'}'*n+'}', 'application/strategic-merge-patch+json'); show('smp object nesting 10001', st, d)
@probe
def deep_smp_9000():
    n=9000; st,d=req('PATCH', base+'/target', '{"x":'+'{"a":'*n+'1'+'}'*n+'}', 'application/strategic-merge-patch+json'); show('smp object nesting 9000', st, d)
@probe
def deep_apply():
    n=10001; st,d=req('PATCH', base+'/target?fieldManager=h', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"x":'+'{"a":'*n+'1'+'}'*n+'}', 'application/apply-patch+yaml'); show('apply json nesting 10001', st, d)
@probe
def deep_apply_9000():
    n=9000; st,d=req('PATCH', base+'/target?fieldManager=h', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"x":'+'{"a":'*n+'1'+'}'*n+'}', 'application/apply-patch+yaml'); show('apply json nesting 9000', st, d)
@probe
def deep_apply_yaml_flow():
    st,d=req('PATCH', base+'/target?fieldManager=h', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: target}\nx: '+nested(10001)+'\n', 'application/apply-patch+yaml'); show('apply yaml flow nesting 10001', st, d)

def laughs(levels=9, width=9):
    y='a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    for i in range(1,levels):
        y+='a%d: &a%d [%s]\n'%(i,i,','.join('*a%d'%(i-1) for _ in range(width)))
    return y
@probe
def yaml_bomb_create():
    y='apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\n'+laughs()
    st,d=req('POST', base, y, 'application/yaml'); show('create yaml billion laughs', st, d)
@probe
def yaml_bomb_create_data():
    y='apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol2\n  annotations: {}\nx:\n'+''.join('  '+l+'\n' for l in laughs().splitlines())
    st,d=req('POST', base, y, 'application/yaml'); show('create yaml billion laughs nested in unknown field', st, d)
@probe
def yaml_bomb_apply():
    y='apiVersion: v1\nkind: ConfigMap\nmetadata: {name: target}\n'+laughs()
    st,d=req('PATCH', base+'/target?fieldManager=h', y, 'application/apply-patch+yaml'); show('apply yaml billion laughs', st, d)
@probe
def yaml_small_alias():
    y='apiVersion: v1\nkind: ConfigMap\nmetadata: {name: alias, labels: &l {a: b}, annotations: *l}\n'
    st,d=req('POST', base, y, 'application/yaml'); show('create yaml small alias', st, d)

@probe
def body_over_limit():
    st,d=req('POST', base, cm('big', ',"data":{"a":"%s"}' % ('x'*(3*1024*1024))), 'application/json'); show('create body 3MiB+', st, d)
@probe
def body_just_under():
    b=cm('big2', ',"data":{"a":"%s"}' % ('x'*(3*1024*1024-200))); st,d=req('POST', base, b, 'application/json'); show('create body just under 3MiB (%d)'%len(b), st, d)
@probe
def body_2mib():
    b=cm('big3', ',"metadata2":1,"data":{"a":"%s"}' % ('x'*(1024*1024+100))); st,d=req('POST', base, b.replace(',"metadata2":1',''), 'application/json'); show('create configmap 1MiB+100 data', st, d)
@probe
def body_2mib_annot():
    b='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big4","annotations":{"a":"%s"}}}' % ('x'*(2*1024*1024)); st,d=req('POST', base, b, 'application/json'); show('create configmap 2MiB annotation', st, d)
@probe
def body_big_secret():
    b='{"apiVersion":"v1","kind":"Secret","metadata":{"name":"big5"},"stringData":{"a":"%s"}}' % ('x'*(2*1024*1024)); st,d=req('POST', f"/api/v1/namespaces/{ns}/secrets", b, 'application/json'); show('create secret 2MiB stringData', st, d)
@probe
def body_big_crlike():
    # an object type without size validation: events? use a ServiceAccount with huge label? labels validated. Use Event message (1MiB?) 
    b='{"apiVersion":"v1","kind":"Event","metadata":{"name":"big6"},"involvedObject":{"kind":"ConfigMap","name":"x","namespace":"%s"},"message":"%s"}' % (ns, 'x'*(2*1024*1024)); st,d=req('POST', f"/api/v1/namespaces/{ns}/events", b, 'application/json'); show('create event 2MiB message', st, d)
@probe
def body_streamed_endless():
    s=socket.create_connection((host,port)); ss=ctx.wrap_socket(s, server_hostname='x')
    ss.sendall(f"POST {base} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
    chunk=b'x'*65536; sent=0; t=time.time()
    ss.settimeout(60)
    try:
        while sent < 64*1024*1024:
            ss.sendall(b'%x\r\n'%len(chunk)+chunk+b'\r\n'); sent+=len(chunk)
    except Exception as e:
        pass
    ss.settimeout(10)
    try:
        data=b''
        while True:
            x=ss.recv(65536)
            if not x: break
            data+=x
            if b'\r\n0\r\n' in data or b'}\n' in data: break
    except Exception as e: data+=repr(e).encode()
    head,_,body=data.partition(b'\r\n\r\n')
    print('## streamed endless: sent %dMiB; %r ... %r'%(sent>>20, head.split(b'\r\n')[0], body[:400]), flush=True)

@probe
def proto_huge_length():
    # k8s envelope + runtime.Unknown with field 2 (raw) of declared length 2^62
    import struct
    def varint(n):
        out=b''
        while True:
            b=n&0x7f; n>>=7
            if n: out+=bytes([b|0x80])
            else: out+=bytes([b]); return out
    typemeta=b'\x0a'+varint(2)+b'v1'+b'\x12'+varint(9)+b'ConfigMap'
    unknown=b'\x0a'+varint(len(typemeta))+typemeta+b'\x12'+varint(1<<62)+b'abc'
    st,d=req('POST', base, b'k8s\x00'+unknown, 'application/vnd.kubernetes.protobuf'); show('protobuf huge outer length', st, d)
    inner=b'\x0a'+varint(1<<40)+b'x'   # ConfigMap.metadata with huge length
    unknown=b'\x0a'+varint(len(typemeta))+typemeta+b'\x12'+varint(len(inner))+inner
    st,d=req('POST', base, b'k8s\x00'+unknown, 'application/vnd.kubernetes.protobuf'); show('protobuf huge inner length', st, d)
    inner=b'\x12'+varint(0x7fffffffffffffff)+b'x' 
    unknown=b'\x0a'+varint(len(typemeta))+typemeta+b'\x12'+varint(len(inner))+inner
    st,d=req('POST', base, b'k8s\x00'+unknown, 'application/vnd.kubernetes.protobuf'); show('protobuf negative-ish length', st, d)

@probe
def selectors():
    sel=','.join('k%d=v'%i for i in range(20000))
    st,d=req('GET', base+'?labelSelector='+sel); show('labelSelector 20000 requirements (%d bytes)'%len(sel), st, d)
    sel='k in ('+','.join('v%d'%i for i in range(50000))+')'
    import urllib.parse
    st,d=req('GET', base+'?labelSelector='+urllib.parse.quote(sel)); show('labelSelector in-set of 50000', st, d)
    sel=','.join('metadata.name!=n%d'%i for i in range(20000))
    st,d=req('GET', base+'?fieldSelector='+sel); show('fieldSelector 20000 requirements', st, d)
    st,d=req('GET', base+'?labelSelector='+'('*10000); show('labelSelector 10000 parens', st, d)
    st,d=req('GET', base+'?labelSelector='+'a'*70000); show('labelSelector long key', st, d)
    st,d=req('GET', base+'?fieldSelector=metadata.name%3D'+'a'*70000); show('fieldSelector long value', st, d)

@probe
def huge_header():
    st,d=req('GET', base, headers={'X-Big':'a'*(1<<20)}); show('1MiB header', st, d)

@probe
def table():
    st,d=req('GET', base, headers={'Accept':'application/json;as=Table;v=v1;g=meta.k8s.io'}); show('table list', st, d[:100])


@probe
def decode_errors():
    for name, body, ct in [
        ('json type error', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"te"},"data":5}', 'application/json'),
        ('json unknown kind', '{"apiVersion":"v1","kind":"Foo","metadata":{"name":"te"}}', 'application/json'),
        ('json other kind', '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"te"}}', 'application/json'),
        ('json no kind', '{"metadata":{"name":"te"},"data":5}', 'application/json'),
        ('json array', '[1,2]', 'application/json'),
        ('json garbage', 'xyz', 'application/json'),
        ('empty', '', 'application/json'),
        ('yaml type error', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: te}\ndata: 5\n', 'application/yaml'),
        ('yaml garbage', 'a: [b\n', 'application/yaml'),
        ('proto garbage', 'xyz', 'application/vnd.kubernetes.protobuf'),
    ]:
        st,d=req('POST', base, body, ct); show('decode '+name, st, d)
    for name, patch in [('apply json garbage', '{"a":'), ('apply yaml garbage', 'a: [b\n'), ('apply scalar', '5'), ('apply array', '[1]'), ('apply null', 'null')]:
        st,d=req('PATCH', base+'/target?fieldManager=h', patch, 'application/apply-patch+yaml'); show(name, st, d)
    for name, patch in [('merge null', 'null'), ('merge scalar', '5'), ('merge array', '[1]'), ('merge string', '"s"')]:
        st,d=req('PATCH', base+'/target', patch, 'application/merge-patch+json'); show(name, st, d)

@probe
def cleanup():
    st,d=req('DELETE', f"/api/v1/namespaces/{ns}"); show('cleanup', st, b'')

for name, f in probes.items():
    if only and name not in only: continue
    try: f()
    except Exception as e: print(f"## {name}: EXC {e!r}", flush=True)
