package batch

import (
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddDefaults registers the defaulting functions of the batch/v1 kinds
// kapi serves, and of their lists, in scheme.
func AddDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&batchv1.Job{}, func(obj any) { SetDefaultsJob(obj.(*batchv1.Job)) })
	scheme.AddTypeDefaultingFunc(&batchv1.JobList{}, func(obj any) {
		list := obj.(*batchv1.JobList)
		for i := range list.Items {
			SetDefaultsJob(&list.Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&batchv1.CronJob{}, func(obj any) { SetDefaultsCronJob(obj.(*batchv1.CronJob)) })
	scheme.AddTypeDefaultingFunc(&batchv1.CronJobList{}, func(obj any) {
		list := obj.(*batchv1.CronJobList)
		for i := range list.Items {
			SetDefaultsCronJob(&list.Items[i])
		}
	})
	return nil
}
