// Package autoscaling holds the defaulting, conversion and validation of
// HorizontalPodAutoscalers, stored as autoscaling/v2 and served as
// autoscaling/v2 and autoscaling/v1.
//
// autoscaling/v1 knows one metric, the target CPU utilization. As in
// kube-apiserver, what it cannot hold travels in annotations of the v1
// object (autoscaling.alpha.kubernetes.io/metrics, current-metrics,
// conditions, behavior), so that a v1 client that reads, changes and
// writes back an HPA keeps its other metrics; those annotations never
// reach storage or a v2 client. The behavior annotation holds the JSON of
// kube-apiserver's internal type, with Go field names, as kube-apiserver
// writes it.
package autoscaling
