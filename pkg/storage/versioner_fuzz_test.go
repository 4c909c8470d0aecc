package storage

import (
	"math/big"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// decimal is what a resourceVersion may be: an unsigned decimal integer.
var decimal = regexp.MustCompile(`^[0-9]+$`)

// A resourceVersion is accepted exactly when it is empty (0) or an
// unsigned decimal integer that fits in 64 bits, and then means that
// integer; anything else is a 400 for a get or list and kube-apiserver's
// bare 500 for a watch. An accepted revision formats back to a string
// that parses to it.
func FuzzParseResourceVersion(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		want, valid := uint64(0), s == ""
		if decimal.MatchString(s) {
			n, _ := new(big.Int).SetString(s, 10)
			if n.IsUint64() {
				want, valid = n.Uint64(), true
			}
		}

		got, err := ParseResourceVersion(s)
		switch {
		case valid && (err != nil || got != want):
			t.Fatalf("%q: got %d, %v; want %d", s, got, err, want)
		case !valid && (!apierrors.IsBadRequest(err) || !strings.HasPrefix(err.Error(), "invalid resource version: resourceVersion: Invalid value: ")):
			t.Fatalf("%q: got %d, %v; want a 400 invalid resource version", s, got, err)
		}

		watched, err := ParseWatchResourceVersion(s)
		if valid && (err != nil || watched != want) {
			t.Fatalf("watch %q: got %d, %v; want %d", s, watched, err, want)
		}
		if !valid {
			status, ok := err.(apierrors.APIStatus)
			if !ok || status.Status().Code != http.StatusInternalServerError || status.Status().Reason != "" ||
				!strings.HasPrefix(err.Error(), "resourceVersion: Invalid value: ") {
				t.Fatalf("watch %q: got %v; want a bare 500", s, err)
			}
			return
		}

		formatted := formatResourceVersion(got)
		if back, err := ParseResourceVersion(formatted); err != nil || back != got || (got != 0 && formatted != strconv.FormatUint(want, 10)) {
			t.Fatalf("%q: %d formats as %q, which parses to %d, %v", s, got, formatted, back, err)
		}
	})
}
