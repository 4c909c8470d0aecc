package main

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// errNotCreated is the error of an update whose object the create phase
// failed to create: there is nothing to update.
var errNotCreated = errors.New("configmap was not created")

// update replaces each configmap once, with c workers in a closed loop: a
// PUT of the whole object with a changed payload and the resourceVersion
// its create returned (rvs[i]), so that every update is a real, conditional
// write. A server may skip writing an unchanged object, so the payload
// always changes; with --payload-bytes 0 a second key changes instead.
func (env *apiEnv) update(ctx context.Context, ns string, rvs []string) phase {
	data := map[string]string{"payload": payload(env.o.payloadBytes, 1)}
	if env.o.payloadBytes == 0 {
		data = map[string]string{"payload": "", "updated": "1"}
	}
	client := env.cs.CoreV1().ConfigMaps(ns)
	return runConcurrent(ctx, len(rvs), env.o.c, func(ctx context.Context, i int) error {
		if rvs[i] == "" {
			return errNotCreated
		}
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Name:            configMapName(i),
				Labels:          map[string]string{"app": "kapi-bench"},
				ResourceVersion: rvs[i],
			},
			Data: data,
		}
		out, err := client.Update(ctx, cm, metav1.UpdateOptions{})
		if err == nil {
			rvs[i] = out.ResourceVersion
		}
		return err
	})
}
