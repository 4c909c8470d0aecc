import json, subprocess, sys
import os
ORACLE = os.path.expanduser(os.environ.get("ORACLE_DIR", "~/.cache/kapi-oracle"))
WORK = os.environ["WORK"]  # made by impersonation-and-node.sh
K = ORACLE + "/bin/kubectl"
kc = {"admin": ORACLE + "/run/admin.kubeconfig", "unprivileged": WORK + "/nemo.kubeconfig"}
cases = [
 ("admin", ["--as", "bob", "get", "pods", "-n", "h-node"]),
 ("admin", ["--as", "bob", "--as-group", "devs", "--as-uid", "1234", "auth", "whoami"]),
 ("admin", ["--as", "bob", "--as-group", "devs", "--as-uid", "1234", "auth", "whoami", "-o", "json"]),
 ("admin", ["--as", "system:serviceaccount:h-node:sa1", "get", "configmaps", "-n", "h-node"]),
 ("admin", ["--as", "system:anonymous", "get", "pods", "-n", "h-node"]),
 ("admin", ["--as", "bob", "--as-user-extra", "scopes=view", "get", "pods", "-n", "h-node"]),
 ("admin", ["--as", "bob", "--as-uid", "1234", "get", "namespaces"]),
 ("unprivileged", ["--as", "bob", "get", "pods", "-n", "h-node"]),
 ("unprivileged", ["--as", "bob", "--as-group", "devs", "get", "pods", "-n", "h-node"]),
 ("unprivileged", ["--as", "system:serviceaccount:h-node:sa1", "get", "configmaps", "-n", "h-node"]),
 ("unprivileged", ["--as", "system:node:n1", "get", "nodes"]),
 ("unprivileged", ["--as", "bob", "--as-uid", "1234", "get", "namespaces"]),
]
out = []
for who, args in cases:
    p = subprocess.run([K, "--kubeconfig", kc[who]] + args, capture_output=True, text=True)
    out.append({"requestor": who, "args": args, "exitCode": p.returncode, "stdout": p.stdout, "stderr": p.stderr})
    print(who, args, p.returncode, p.stderr.strip(), file=sys.stderr)
json.dump({"source": "kubectl and kube-apiserver v1.37.1, --authorization-mode=Node,RBAC; admin is in system:masters, unprivileged (CN=nemo) has no RBAC bindings; bob has none either", "cases": out}, open(sys.argv[1], "w"), indent=1)
