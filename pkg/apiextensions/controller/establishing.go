package controller

import (
	"context"
	"log/slog"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kapi-dev/kapi/pkg/apis/apiextensions"
)

// Establishing marks a CRD Established once its names are accepted, which
// tells clients its resources are served.
type Establishing struct {
	lister Lister
	write  StatusWriter
	// serve makes the handlers serve crd before the condition says so:
	// a client that waits for Established must find the resources.
	serve func(crd *apiextensionsv1.CustomResourceDefinition)
	*queue
}

// NewEstablishing returns the establishing controller.
func NewEstablishing(lister Lister, write StatusWriter, serve func(*apiextensionsv1.CustomResourceDefinition), log *slog.Logger) *Establishing {
	e := &Establishing{lister: lister, write: write, serve: serve}
	e.queue = newQueue("crd-establishing", log, e.sync)
	return e
}

func (e *Establishing) sync(ctx context.Context, name string) error {
	crd, ok := e.lister.Get(name)
	if !ok || !apiextensions.IsConditionTrue(crd, apiextensionsv1.NamesAccepted) ||
		apiextensions.IsConditionTrue(crd, apiextensionsv1.Established) {
		return nil
	}
	crd = crd.DeepCopy()
	apiextensions.SetCondition(crd, apiextensionsv1.CustomResourceDefinitionCondition{
		Type:    apiextensionsv1.Established,
		Status:  apiextensionsv1.ConditionTrue,
		Reason:  "InitialNamesAccepted",
		Message: "the initial names have been accepted",
	})
	if e.serve != nil {
		e.serve(crd)
	}
	_, err := e.write(ctx, crd)
	return err
}
