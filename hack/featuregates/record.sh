#!/usr/bin/env bash
# Records the feature gates of a real kube-apiserver into
# pkg/features/testdata, then regenerates pkg/features/table.go from them.
#
#   KUBE_APISERVER=~/.cache/kapi-oracle/bin/kube-apiserver \
#   KUBECONFIG=~/.cache/kapi-oracle-corpus/run/admin.kubeconfig \
#   hack/featuregates/record.sh
#
# KUBECONFIG names a running server of the same binary: only its /metrics
# (kubernetes_feature_enabled) names the GA and deprecated gates, which
# --help leaves out. Which gates are locked and what each depends on is
# learnt by starting the binary with --feature-gates alone: it checks the
# gates before anything else and exits with their error.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${KUBE_APISERVER:-$HOME/.cache/kapi-oracle/bin/kube-apiserver}
KUBECTL=${KUBECTL:-$(dirname "$B")/kubectl}
out=pkg/features/testdata
mkdir -p "$out"

gateerr() { { timeout 30 "$B" --feature-gates="$1" </dev/null 2>&1 || true; } | sed -n 's/.*"command failed" err="\(.*\)"$/\1/p'; }

# The usage of --feature-gates: every alpha and beta gate, its default.
{ "$B" --help 2>&1 || true; } | awk '/^      --feature-gates /{p=1; next} p && /^      --/{p=0} p && $1 ~ /^kube:/ {sub(/^ +/, ""); print}' >"$out/help.txt"

# name, stage ("GA" for the empty label), enabled by default.
"$KUBECTL" get --raw /metrics |
  sed -e 's/stage=""/stage="GA"/' -n -e 's/^kubernetes_feature_enabled{name="\([^"]*\)",stage="\([A-Z]*\)"} \([01]\)$/\1 \2 \3/p' |
  sort >"$out/metrics.txt"

# Locked: setting a GA or deprecated gate to the other value is refused.
: >"$out/locked.txt"
while read -r name stage on; do
  case $stage in GA | DEPRECATED) ;; *) continue ;; esac
  if [ "$on" = 1 ]; then v=false; else v=true; fi
  err=$(gateerr "$name=$v")
  case $err in *"feature is locked"*) echo "$err" >>"$out/locked.txt" ;; esac
done <"$out/metrics.txt"

# Dependencies: with every gate that can be on turned on, turning one off
# names every enabled gate that depends on it.
base="AllAlpha=true,AllBeta=true"
while read -r name stage on; do
  case $stage in GA | DEPRECATED) ;; *) continue ;; esac
  [ "$on" = 0 ] && ! grep -q "feature gate $name to" "$out/locked.txt" && base="$base,$name=true"
done <"$out/metrics.txt"
: >"$out/dependencies.txt"
while read -r name stage on; do
  case $name in AllAlpha | AllBeta) continue ;; esac
  grep -q "feature gate $name to" "$out/locked.txt" && continue
  err=$(gateerr "$base,$name=false")
  case $err in *"depends on features"*) echo "$name=false: $err" >>"$out/dependencies.txt" ;; esac
done <"$out/metrics.txt"

# The errors of --feature-gates values, one "value<TAB>error" a line.
: >"$out/errors.txt"
for v in 'Nope=true' '=true' 'DRAListTypeAttributes' 'DRAListTypeAttributes=maybe' 'kube:DRAListTypeAttributes=1,a=b=c' \
  'wardle:DRAListTypeAttributes=true' 'kube:kube:DRAListTypeAttributes=true' 'CPUManagerPolicyOptions=false' \
  'AllowOverwriteTerminationGracePeriodSeconds=true' 'DRAPartitionableDevicesType=true' \
  'DRAPartitionableDevicesType=true,DRAResourcePoolStatus=true,DRAPartitionableDevices=false' \
  'CPUManagerPolicyOptions=false,AllowOverwriteTerminationGracePeriodSeconds=true' ' kube : DRAListTypeAttributes = yes '; do
  printf '%s\t%s\n' "$v" "$(gateerr "$v")" >>"$out/errors.txt"
done

go run ./hack/featuregates >pkg/features/table.go
gofmt -l pkg/features/table.go
