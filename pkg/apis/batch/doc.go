// Package batch holds the defaulting and validation of the batch/v1 kinds
// kapi serves: Job, with its status subresource, and CronJob.
//
// Messages, field paths and the order of errors are kube-apiserver
// 1.37's, with the feature gates it enables by default (JobManagedBy,
// the mutable pod templates of suspended jobs; not WorkloadWithJob, so
// spec.scheduling is dropped). Pod templates are defaulted and validated
// by pkg/apis/core.
package batch
