#!/usr/bin/env bash
# The project's test command: formatting, vet, race-checked unit tests of
# the concurrent packages, then every test. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

# kapi is its own implementation of the API server: the server packages of
# Kubernetes must not creep in, only the type packages DESIGN.md allows.
echo "== forbidden imports"
forbidden=$(go list -deps ./cmd/... ./pkg/... | grep -E \
  '^(k8s\.io/(apiserver|kubernetes)|sigs\.k8s\.io/controller-runtime|k8s\.io/(apiextensions-apiserver|kube-aggregator)/.*)(/|$)' |
  grep -vE '^k8s\.io/(apiextensions-apiserver|kube-aggregator)/pkg/apis/' || true)
if [ -n "$forbidden" ]; then
  echo "forbidden dependencies:"; echo "$forbidden"; exit 1
fi

# The layers of docs/architecture.md, from the commands down to the API
# types: no package imports a package of a higher layer (the table is
# internal/layers/layers.go), and no test skips when what it compares
# with is missing (internal/required).
echo "== layering and required test data"
go test -count=1 ./internal/...

echo "== go test -race (packages with concurrency)"
go test -race -count=1 \
  ./pkg/storage/... \
  ./pkg/server/... \
  ./pkg/audit/... \
  ./pkg/endpoints/... \
  ./pkg/registry/... \
  ./pkg/openapi/... \
  ./pkg/metrics/... \
  ./pkg/flowcontrol/... \
  ./pkg/admission/plugin/resourcequota/... \
  ./pkg/client/... \
  ./pkg/apiextensions/ \
  ./pkg/apiextensions/controller/... \
  ./pkg/apiextensions/cel/...

# client-go's reflectors and informers (watch-list included) against an
# in-process kapi, through a restart and a compaction, with the race
# detector watching the server's list and watch paths end to end.
echo "== go test -race (client-go list and watch, end to end)"
go test -race -count=1 -run 'TestInformer|TestWatchList|TestWatchSees|TestWatchTimeout|TestListSnapshots|TestCompaction|TestCustomResource|TestConversionWebhook|TestPriorityAndFairness' ./test/e2e

echo "== go test"
go test -count=1 ./...

# Every fuzz target for a few seconds beyond its seed corpus (which the
# step above already ran as tests). The targets are found in the test
# files, so none is left out. Go fuzzes one target per invocation; each
# package's instrumented test binary is built once and run once per
# target, in the package's directory, with go test's corpus cache: what
# go test -fuzz does, linking each package once rather than per target.
# A crasher fails the step and is written to the package's testdata/fuzz/,
# where it stays as a regression test once fixed.
echo "== fuzzing (5s per target)"
fuzz_bin=$(mktemp -d)
trap 'rm -rf "$fuzz_bin"' EXIT
module=$(go list -m)
for pkg in $(grep -rlE '^func Fuzz' --include='*_test.go' cmd pkg | xargs -n1 dirname | sort -u); do
  bin="$fuzz_bin/$(echo "$pkg" | tr / _).test"
  go test -c -fuzz . -o "$bin" "./$pkg"
  for target in $(grep -hoE '^func Fuzz[A-Za-z0-9_]*' "$pkg"/*_test.go | sed 's/^func //' | sort); do
    echo "$pkg $target"
    fuzz_once() {
      (cd "$pkg" && "$bin" -test.run '^$' -test.fuzz "^$target\$" -test.fuzztime 5s \
        -test.fuzzcachedir "$(go env GOCACHE)/fuzz/$module/$pkg") 2>&1 | tee "$fuzz_bin/out"
      return "${PIPESTATUS[0]}"
    }
    if ! fuzz_once; then
      # Go's fuzzer can end a clean run with "context deadline exceeded"
      # when -fuzztime runs out while a worker is still busy; that is no
      # finding. A real one is written to testdata/fuzz and fails here.
      if [ -n "$(git status --porcelain -- "$pkg/testdata/fuzz/$target" 2>/dev/null)" ] ||
        ! grep -q 'context deadline exceeded' "$fuzz_bin/out"; then
        exit 1
      fi
      echo "(the fuzzer's deadline, not a finding: once more)"
      fuzz_once || exit 1
    fi
  done
done

# controller-runtime's envtest starting kapi in place of kube-apiserver,
# with a real controller. Its own module keeps controller-runtime out of
# kapi's dependencies.
echo "== envtest (test/envtest)"
(cd test/envtest && go vet ./... && go test -count=1 ./...)

# kapi's queue set of API priority and fairness against
# kube-apiserver's own (k8s.io/apiserver), step by step through the same
# random load. Its own module keeps k8s.io/apiserver out of kapi's
# dependencies.
echo "== queue set against kube-apiserver's (test/apfdiff)"
(cd test/apfdiff && go vet ./... && go test -count=1 ./...)

# Helm's Go SDK installing, upgrading, rolling back and uninstalling a
# chart of every common kind on a kapi it starts. Its own module keeps
# Helm out of kapi's dependencies.
echo "== helm (test/helm)"
(cd test/helm && go vet ./... && go test -count=1 ./...)

# An extension API server built with k8s.io/apiserver, registered with an
# APIService on a kapi binary and used through it with the real kubectl,
# compared with kube-apiserver's recorded answers. Its own module keeps
# k8s.io/apiserver out of kapi's dependencies.
echo "== aggregation (test/aggregation)"
(cd test/aggregation && go vet ./... && go test -count=1 ./...)
