// Package certificatesigningrequest is the REST storage of
// certificates.k8s.io/v1 certificatesigningrequests and of their /status
// and /approval subresources.
package certificatesigningrequest

import (
	"context"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/certificates"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of certificate signing requests. The
// requester is whoever creates the request: the server writes their name,
// uid, groups and extra into the spec, whatever the client sent. A new
// request has no status; after that, the main resource changes only the
// metadata, /approval the Approved and Denied conditions, and /status the
// other conditions and the certificate.
var Strategy = strategy{}

// GetResetFields is the spec and the status: neither is written through
// the main resource.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("certificates.k8s.io/v1", []string{"spec"}, []string{"status"})
}

func (strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	csr := obj.(*certificatesv1.CertificateSigningRequest)
	spec := &csr.Spec
	spec.Username, spec.UID, spec.Groups, spec.Extra = "", "", nil, nil
	if u, ok := request.UserFrom(ctx); ok {
		spec.Username = u.GetName()
		spec.UID = u.GetUID()
		spec.Groups = u.GetGroups()
		if extra := u.GetExtra(); len(extra) > 0 {
			spec.Extra = make(map[string]certificatesv1.ExtraValue, len(extra))
			for k, v := range extra {
				spec.Extra[k] = v
			}
		}
	}
	csr.Status = certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{}}
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	csr, oldCSR := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
	csr.Spec = oldCSR.Spec
	csr.Status = oldCSR.Status
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return certificates.ValidateCertificateSigningRequest(obj.(*certificatesv1.CertificateSigningRequest))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return certificates.ValidateCertificateSigningRequestUpdate(obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the spec and the conditions set
// through /approval.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("certificates.k8s.io/v1", []string{"spec"}, []string{"status", "conditions"})
}

// PrepareForUpdate keeps the spec and the Approved and Denied conditions
// as they were (adding or removing one fails validation), and stamps the
// conditions' times.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	csr, oldCSR := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
	csr.Spec = oldCSR.Spec
	keepConditions(csr, oldCSR, certificatesv1.CertificateApproved)
	keepConditions(csr, oldCSR, certificatesv1.CertificateDenied)
	stampConditions(csr, oldCSR)
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return certificates.ValidateCertificateSigningRequestStatusUpdate(obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest))
}

type approvalStrategy struct{ strategy }

// GetResetFields is what /approval keeps: the spec and the certificate.
func (approvalStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("certificates.k8s.io/v1", []string{"spec"}, []string{"status", "certificate"})
}

// PrepareForUpdate takes only the conditions of the request, with their
// times stamped.
func (approvalStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	csr, oldCSR := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
	stampConditions(csr, oldCSR)
	conditions := csr.Status.Conditions
	csr.Spec = oldCSR.Spec
	csr.Status = oldCSR.Status
	csr.Status.Conditions = conditions
}

func (approvalStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return certificates.ValidateCertificateSigningRequestApprovalUpdate(obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest))
}

// keepConditions puts the stored conditions of type t back in place of
// the new ones when there are as many of them.
func keepConditions(csr, old *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) {
	oldIdx, newIdx := conditionIndices(old, t), conditionIndices(csr, t)
	if len(oldIdx) != len(newIdx) {
		return
	}
	for i, o := range oldIdx {
		csr.Status.Conditions[newIdx[i]] = old.Status.Conditions[o]
	}
}

func conditionIndices(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) []int {
	var idx []int
	for i, c := range csr.Status.Conditions {
		if c.Type == t {
			idx = append(idx, i)
		}
	}
	return idx
}

// stampConditions sets a condition's missing update time to now, and its
// missing transition time to that of the stored condition of the same type
// and status, or to now.
func stampConditions(csr, old *certificatesv1.CertificateSigningRequest) {
	now := metav1.Now()
	for i := range csr.Status.Conditions {
		c := &csr.Status.Conditions[i]
		if c.LastUpdateTime.IsZero() {
			c.LastUpdateTime = now
		}
		if !c.LastTransitionTime.IsZero() {
			continue
		}
		c.LastTransitionTime = now
		for _, o := range old.Status.Conditions {
			if o.Type == c.Type && o.Status == c.Status && !o.LastTransitionTime.IsZero() {
				c.LastTransitionTime = o.LastTransitionTime
				break
			}
		}
	}
}

// selectable is the field a list may select on besides the metadata:
// the signer.
func selectable(obj runtime.Object) fields.Set {
	return fields.Set{"spec.signerName": obj.(*certificatesv1.CertificateSigningRequest).Spec.SignerName}
}

// Storage is the REST storage of certificate signing requests and their
// subresources.
type Storage struct {
	CertificateSigningRequest *generic.Store
	Status                    *generic.SubresourceREST
	Approval                  *generic.SubresourceREST
}

// NewStorage returns the storage of certificate signing requests.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &certificatesv1.CertificateSigningRequest{} },
		NewListFunc:               func() runtime.Object { return &certificatesv1.CertificateSigningRequestList{} },
		DefaultQualifiedResource:  certificatesv1.Resource("certificatesigningrequests"),
		SingularQualifiedResource: certificatesv1.Resource("certificatesigningrequest"),
		KeyPrefix:                 "/certificatesigningrequests",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"csr"},
		FieldsFunc:                selectable,
	}
	if err := opts.Complete(s, certificatesv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{
		CertificateSigningRequest: s,
		Status:                    generic.NewSubresourceREST(s, statusStrategy{Strategy}),
		Approval:                  generic.NewSubresourceREST(s, approvalStrategy{Strategy}),
	}, nil
}

// Map returns the storage by path: "certificatesigningrequests" and its
// "/status" and "/approval".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.CertificateSigningRequest.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{
		plural:               s.CertificateSigningRequest,
		plural + "/status":   s.Status,
		plural + "/approval": s.Approval,
	}
}
