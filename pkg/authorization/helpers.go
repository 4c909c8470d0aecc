package authorization

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func durationOf(d time.Duration) metav1.Duration { return metav1.Duration{Duration: d} }

func ptrTo[T any](v T) *T { return &v }
