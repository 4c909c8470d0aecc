package certificates

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
)

// kube-apiserver 1.37 stores ClusterTrustBundles and PodCertificateRequests
// as certificates.k8s.io/v1beta1 (their storage version hash says so), and
// serves them as v1 only. kapi stores them the same way, so that an etcd
// shared with kube-apiserver reads the same; these are the conversions
// between the two forms. v1beta1's pkixPublicKey and proofOfPossession,
// which v1 no longer has, are dropped on the way to v1.

// AddConversions registers the conversions between the v1 and v1beta1
// ClusterTrustBundles and PodCertificateRequests, and their lists, in
// scheme.
func AddConversions(scheme *runtime.Scheme) error {
	fns := []struct {
		a, b any
		fn   func(a, b any)
	}{
		{(*certificatesv1.ClusterTrustBundle)(nil), (*certificatesv1beta1.ClusterTrustBundle)(nil), func(a, b any) {
			*b.(*certificatesv1beta1.ClusterTrustBundle) = ctbToV1beta1(a.(*certificatesv1.ClusterTrustBundle))
		}},
		{(*certificatesv1beta1.ClusterTrustBundle)(nil), (*certificatesv1.ClusterTrustBundle)(nil), func(a, b any) {
			*b.(*certificatesv1.ClusterTrustBundle) = ctbToV1(a.(*certificatesv1beta1.ClusterTrustBundle))
		}},
		{(*certificatesv1.ClusterTrustBundleList)(nil), (*certificatesv1beta1.ClusterTrustBundleList)(nil), func(a, b any) {
			in, out := a.(*certificatesv1.ClusterTrustBundleList), b.(*certificatesv1beta1.ClusterTrustBundleList)
			out.ListMeta = *in.ListMeta.DeepCopy()
			out.Items = make([]certificatesv1beta1.ClusterTrustBundle, len(in.Items))
			for i := range in.Items {
				out.Items[i] = ctbToV1beta1(&in.Items[i])
			}
		}},
		{(*certificatesv1beta1.ClusterTrustBundleList)(nil), (*certificatesv1.ClusterTrustBundleList)(nil), func(a, b any) {
			in, out := a.(*certificatesv1beta1.ClusterTrustBundleList), b.(*certificatesv1.ClusterTrustBundleList)
			out.ListMeta = *in.ListMeta.DeepCopy()
			out.Items = make([]certificatesv1.ClusterTrustBundle, len(in.Items))
			for i := range in.Items {
				out.Items[i] = ctbToV1(&in.Items[i])
			}
		}},
		{(*certificatesv1.PodCertificateRequest)(nil), (*certificatesv1beta1.PodCertificateRequest)(nil), func(a, b any) {
			*b.(*certificatesv1beta1.PodCertificateRequest) = pcrToV1beta1(a.(*certificatesv1.PodCertificateRequest))
		}},
		{(*certificatesv1beta1.PodCertificateRequest)(nil), (*certificatesv1.PodCertificateRequest)(nil), func(a, b any) {
			*b.(*certificatesv1.PodCertificateRequest) = pcrToV1(a.(*certificatesv1beta1.PodCertificateRequest))
		}},
		{(*certificatesv1.PodCertificateRequestList)(nil), (*certificatesv1beta1.PodCertificateRequestList)(nil), func(a, b any) {
			in, out := a.(*certificatesv1.PodCertificateRequestList), b.(*certificatesv1beta1.PodCertificateRequestList)
			out.ListMeta = *in.ListMeta.DeepCopy()
			out.Items = make([]certificatesv1beta1.PodCertificateRequest, len(in.Items))
			for i := range in.Items {
				out.Items[i] = pcrToV1beta1(&in.Items[i])
			}
		}},
		{(*certificatesv1beta1.PodCertificateRequestList)(nil), (*certificatesv1.PodCertificateRequestList)(nil), func(a, b any) {
			in, out := a.(*certificatesv1beta1.PodCertificateRequestList), b.(*certificatesv1.PodCertificateRequestList)
			out.ListMeta = *in.ListMeta.DeepCopy()
			out.Items = make([]certificatesv1.PodCertificateRequest, len(in.Items))
			for i := range in.Items {
				out.Items[i] = pcrToV1(&in.Items[i])
			}
		}},
	}
	for _, f := range fns {
		fn := f.fn
		if err := scheme.AddConversionFunc(f.a, f.b, func(a, b any, _ conversion.Scope) error {
			fn(a, b)
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

func ctbToV1beta1(in *certificatesv1.ClusterTrustBundle) certificatesv1beta1.ClusterTrustBundle {
	return certificatesv1beta1.ClusterTrustBundle{
		TypeMeta:   in.TypeMeta,
		ObjectMeta: *in.ObjectMeta.DeepCopy(),
		Spec:       certificatesv1beta1.ClusterTrustBundleSpec{SignerName: in.Spec.SignerName, TrustBundle: in.Spec.TrustBundle},
	}
}

func ctbToV1(in *certificatesv1beta1.ClusterTrustBundle) certificatesv1.ClusterTrustBundle {
	return certificatesv1.ClusterTrustBundle{
		TypeMeta:   in.TypeMeta,
		ObjectMeta: *in.ObjectMeta.DeepCopy(),
		Spec:       certificatesv1.ClusterTrustBundleSpec{SignerName: in.Spec.SignerName, TrustBundle: in.Spec.TrustBundle},
	}
}

func pcrToV1beta1(in *certificatesv1.PodCertificateRequest) certificatesv1beta1.PodCertificateRequest {
	in = in.DeepCopy()
	s, st := in.Spec, in.Status
	return certificatesv1beta1.PodCertificateRequest{
		TypeMeta:   in.TypeMeta,
		ObjectMeta: in.ObjectMeta,
		Spec: certificatesv1beta1.PodCertificateRequestSpec{
			SignerName: s.SignerName, PodName: s.PodName, PodUID: s.PodUID,
			ServiceAccountName: s.ServiceAccountName, ServiceAccountUID: s.ServiceAccountUID,
			NodeName: s.NodeName, NodeUID: s.NodeUID, MaxExpirationSeconds: s.MaxExpirationSeconds,
			StubPKCS10Request: s.StubPKCS10Request, UnverifiedUserAnnotations: s.UnverifiedUserAnnotations,
		},
		Status: certificatesv1beta1.PodCertificateRequestStatus{
			Conditions: st.Conditions, CertificateChain: st.CertificateChain,
			NotBefore: st.NotBefore, BeginRefreshAt: st.BeginRefreshAt, NotAfter: st.NotAfter,
		},
	}
}

func pcrToV1(in *certificatesv1beta1.PodCertificateRequest) certificatesv1.PodCertificateRequest {
	in = in.DeepCopy()
	s, st := in.Spec, in.Status
	return certificatesv1.PodCertificateRequest{
		TypeMeta:   in.TypeMeta,
		ObjectMeta: in.ObjectMeta,
		Spec: certificatesv1.PodCertificateRequestSpec{
			SignerName: s.SignerName, PodName: s.PodName, PodUID: s.PodUID,
			ServiceAccountName: s.ServiceAccountName, ServiceAccountUID: s.ServiceAccountUID,
			NodeName: s.NodeName, NodeUID: s.NodeUID, MaxExpirationSeconds: s.MaxExpirationSeconds,
			StubPKCS10Request: s.StubPKCS10Request, UnverifiedUserAnnotations: s.UnverifiedUserAnnotations,
		},
		Status: certificatesv1.PodCertificateRequestStatus{
			Conditions: st.Conditions, CertificateChain: st.CertificateChain,
			NotBefore: st.NotBefore, BeginRefreshAt: st.BeginRefreshAt, NotAfter: st.NotAfter,
		},
	}
}
