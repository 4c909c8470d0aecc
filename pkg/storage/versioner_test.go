package storage

import (
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestParseResourceVersion(t *testing.T) {
	tests := []struct {
		in      string
		want    uint64
		wantErr string // the message of the 400 Status, "" for success
	}{
		{in: "", want: 0},
		{in: "0", want: 0},
		{in: "1", want: 1},
		{in: "18446744073709551615", want: 18446744073709551615},
		// Message recorded from kube-apiserver 1.37
		// (errors/get-invalid-resourceversion.txt).
		{in: "abc", wantErr: `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{in: "-1", wantErr: `invalid resource version: resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax`},
		{in: "18446744073709551616", wantErr: `invalid resource version: resourceVersion: Invalid value: "18446744073709551616": strconv.ParseUint: parsing "18446744073709551616": value out of range`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseResourceVersion(tt.in)
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Fatalf("ParseResourceVersion(%q) = %d, %v; want %d, nil", tt.in, got, err, tt.want)
				}
				return
			}
			if !apierrors.IsBadRequest(err) {
				t.Fatalf("ParseResourceVersion(%q) error = %v; want a BadRequest", tt.in, err)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("message = %q\nwant      %q", err.Error(), tt.wantErr)
			}
		})
	}
}

func TestParseWatchResourceVersion(t *testing.T) {
	// kube-apiserver 1.37 answers a watch with resourceVersion=abc with a
	// 500 whose Status has no reason (errors/watch-invalid-resourceversion.txt).
	_, err := ParseWatchResourceVersion("abc")
	st, ok := err.(apierrors.APIStatus)
	if !ok {
		t.Fatalf("error %v is not an API status", err)
	}
	want := metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Message: `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`,
	}
	if got := st.Status(); got != want {
		t.Errorf("status = %+v\nwant     %+v", got, want)
	}
	if rv, err := ParseWatchResourceVersion("42"); rv != 42 || err != nil {
		t.Errorf("ParseWatchResourceVersion(42) = %d, %v", rv, err)
	}
}

func TestObjectResourceVersion(t *testing.T) {
	cm := &corev1.ConfigMap{}
	if rv, err := ObjectResourceVersion(cm); rv != 0 || err != nil {
		t.Errorf("no resourceVersion: got %d, %v; want 0, nil", rv, err)
	}
	cm.ResourceVersion = "17"
	if rv, err := ObjectResourceVersion(cm); rv != 17 || err != nil {
		t.Errorf("resourceVersion 17: got %d, %v", rv, err)
	}
	cm.ResourceVersion = "x"
	if _, err := ObjectResourceVersion(cm); err == nil {
		t.Error("resourceVersion x: want an error")
	}
}

func TestUpdateObject(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "3"}}
	if err := UpdateObject(cm, 42); err != nil || cm.ResourceVersion != "42" {
		t.Errorf("UpdateObject(42): resourceVersion %q, err %v", cm.ResourceVersion, err)
	}
	if err := UpdateObject(cm, 0); err != nil || cm.ResourceVersion != "" {
		t.Errorf("UpdateObject(0): resourceVersion %q, err %v; want it cleared", cm.ResourceVersion, err)
	}
}

func TestUpdateList(t *testing.T) {
	list := &corev1.ConfigMapList{}
	remaining := int64(5)
	if err := UpdateList(list, 9, "tok", &remaining); err != nil {
		t.Fatal(err)
	}
	if list.ResourceVersion != "9" || list.Continue != "tok" || list.RemainingItemCount == nil || *list.RemainingItemCount != 5 {
		t.Errorf("list metadata = %+v", list.ListMeta)
	}
	if err := UpdateList(list, 10, "", nil); err != nil {
		t.Fatal(err)
	}
	if list.ResourceVersion != "10" || list.Continue != "" || list.RemainingItemCount != nil {
		t.Errorf("last page metadata = %+v", list.ListMeta)
	}
	if err := UpdateList(list, 0, "", nil); err == nil {
		t.Error("UpdateList with revision 0: want an error")
	}
}

func TestPrepareObjectForStorage(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "app", ResourceVersion: "3", SelfLink: "/api/v1/namespaces/default/configmaps/app",
	}}
	if err := PrepareObjectForStorage(cm); err != nil {
		t.Fatal(err)
	}
	if cm.ResourceVersion != "" || cm.SelfLink != "" || cm.Name != "app" {
		t.Errorf("metadata after PrepareObjectForStorage = %+v", cm.ObjectMeta)
	}
}
