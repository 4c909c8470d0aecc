package testserver_test

import (
	"context"
	"fmt"
	"log"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// Another project starts a kapi in its test process and talks to it with
// client-go, as it would to any cluster. In a test, testserver.Start(t,
// opts) does the same and stops the server when the test ends; StartE is
// for code that has no *testing.T, like this example.
func Example() {
	dir, err := os.MkdirTemp("", "kapi-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// The zero Options are kapi's defaults; the fields are typed, e.g.
	// testserver.Options{DisableAnonymousAuth: true}.
	s, err := testserver.StartE(testserver.Options{}, func() string { return dir })
	if err != nil {
		log.Fatal(err)
	}
	defer s.Stop()

	client, err := kubernetes.NewForConfig(s.ClientConfig)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	_, err = client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "greeting", Labels: map[string]string{"app": "example"}},
		Data:       map[string]string{"hello": "world"},
	}, metav1.CreateOptions{})
	if err != nil {
		log.Fatal(err)
	}
	list, err := client.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{LabelSelector: "app=example"})
	if err != nil {
		log.Fatal(err)
	}
	for _, cm := range list.Items {
		fmt.Println(cm.Name, cm.Data["hello"])
	}

	// Errors are kube-apiserver's: nothing is created in a namespace that
	// does not exist.
	_, err = client.CoreV1().ConfigMaps("nowhere").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "lost"},
	}, metav1.CreateOptions{})
	fmt.Println(err)

	// Output:
	// greeting world
	// namespaces "nowhere" not found
}
