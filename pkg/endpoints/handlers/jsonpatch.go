package handlers

import (
	"fmt"
	"net/http"

	jsonpatch "github.com/evanphx/json-patch/v5"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// checkTestOperations refuses a JSON patch "test" of the whole document
// ("path": "") that has no "value": json-patch dereferences the missing
// value and panics (in kube-apiserver's copy of it too, which answers
// 500). RFC 6902 requires the value; the answer is the one json-patch
// gives for a test without one at any other path, a 422 saying the test
// failed. (Found by FuzzJSONPatch.)
func checkTestOperations(ops jsonpatch.Patch) error {
	for _, op := range ops {
		if op.Kind() != "test" {
			continue
		}
		if path, err := op.Path(); err != nil || path != "" {
			continue
		}
		if _, ok := op["value"]; !ok {
			return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "",
				fmt.Errorf("testing value  failed: %w", jsonpatch.ErrTestFailed).Error(), 0, false)
		}
	}
	return nil
}
