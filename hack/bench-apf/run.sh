#!/usr/bin/env bash
# The figures of API priority and fairness (issue 12, BENCHMARKS.md): the
# apf suite of kapi-bench against kapi and kube-apiserver 1.37.1, each with
# APF on and with --enable-priority-and-fairness=false (max-in-flight
# alone), interleaved round by round so that the machine's load weighs on
# every row alike.
#
#   hack/bench-apf/run.sh [rounds] [rows...]
#
# rows: kube-apf kube-mif kapi-apf kapi-mif (all four by default); rounds
# defaults to 3. Each row of each round is one run of the suite (a fresh
# server: a private oracle restarted with its flags, a kapi the bench
# starts). Output: $OUT (default /tmp/bench-apf-<time>) holds each run's
# output; the summary (median of the rounds per row) is printed at the end.
#
# Environment: KAPI (the kapi binary, built from this tree if unset),
# BENCH_ARGS (extra kapi-bench flags, e.g. "--n 2000 --apf-phase 20s"),
# and the private oracle's ORACLE_DIR, ORACLE_PORT, ORACLE_ETCD_PORT
# (default ~/.cache/kapi-oracle-apfbench, 16843, 12779). The shared
# oracle is never touched.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
shift || true
ROWS=("$@")
[ ${#ROWS[@]} -gt 0 ] || ROWS=(kube-apf kapi-apf kube-mif kapi-mif)
OUT=${OUT:-/tmp/bench-apf-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$OUT"
export ORACLE_DIR=${ORACLE_DIR:-$HOME/.cache/kapi-oracle-apfbench}
export ORACLE_PORT=${ORACLE_PORT:-16843} ORACLE_ETCD_PORT=${ORACLE_ETCD_PORT:-12779}
ORACLE=${ORACLE:-$(cd ../shared/oracle 2>/dev/null && pwd || echo /work/shared/oracle)}
mkdir -p "$ORACLE_DIR" && ln -sfn "$HOME/.cache/kapi-oracle/bin" "$ORACLE_DIR/bin"

if [ -z "${KAPI:-}" ]; then KAPI=$OUT/kapi; go build -o "$KAPI" ./cmd/kapi; fi
BENCH=$OUT/kapi-bench
go build -o "$BENCH" ./cmd/kapi-bench
read -r -a EXTRA <<< "${BENCH_ARGS:-}"
COMMON=(--n 2000 --c 16 --repeat 1 "${EXTRA[@]}")

oracle_stop() { "$ORACLE/stop.sh" >/dev/null || true; }
trap oracle_stop EXIT

run_row() { # row round
  local row=$1 out=$OUT/$1.$2.txt
  case $row in
  kube-apf|kube-mif)
    oracle_stop
    local flags=""
    [ "$row" = kube-mif ] && flags=--enable-priority-and-fairness=false
    ORACLE_FLAGS=$flags "$ORACLE/start.sh" >/dev/null
    local pid; pid=$(awk '$1=="kube-apiserver"{print $2}' "$ORACLE_DIR/run/pids")
    "$BENCH" --kubeconfig "$ORACLE_DIR/run/admin.kubeconfig" --server-pid "$pid" --cleanup "${COMMON[@]}" apf > "$out"
    oracle_stop ;;
  kapi-apf)
    "$BENCH" --kapi-binary "$KAPI" "${COMMON[@]}" apf > "$out" ;;
  kapi-mif)
    "$BENCH" --kapi-binary "$KAPI" --kapi-arg=--enable-priority-and-fairness=false "${COMMON[@]}" apf > "$out" ;;
  *) echo "unknown row $row" >&2; exit 2 ;;
  esac
  echo "$row round $2: $(grep -E '^(steady_p99_ratio|flood_429) ' "$out" | tr '\n' ' ')" >&2
}

for round in $(seq 1 "$ROUNDS"); do
  for row in "${ROWS[@]}"; do run_row "$row" "$round"; done
done

# The median over the rounds of each figure, one line per row.
KEYS="create_configmaps_per_s get_per_s apf_classified steady_alone_p50_ms steady_alone_p99_ms steady_flood_p50_ms steady_flood_p99_ms steady_p99_ratio steady_flood_429 flood_per_s flood_429"
printf '%-9s' row; for k in $KEYS; do printf ' %s' "$k"; done; echo
for row in "${ROWS[@]}"; do
  printf '%-9s' "$row"
  for k in $KEYS; do
    awk -v k="$k" '$1==k{print $2}' "$OUT/$row".*.txt | sort -g |
      awk '{v[NR]=$1} END{if(NR==0){printf " -"}else if(NR%2){printf " %s",v[(NR+1)/2]}else{printf " %g",(v[NR/2]+v[NR/2+1])/2}}'
  done
  echo
done
echo "runs: $OUT" >&2
