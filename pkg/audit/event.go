package audit

import (
	"net/http"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
)

// kube-apiserver cuts user agents at this length, and marks the cut.
const (
	maxUserAgentLength      = 1024
	userAgentTruncateSuffix = "...TRUNCATED"
)

// NewEvent returns the event of a request as its metadata describes it,
// before any stage: who asked what, from where. attrs are the request's
// authorization attributes (the authenticated user, not an impersonated
// one).
func NewEvent(r *http.Request, id types.UID, level Level, received time.Time, attrs authorizer.Attributes) *Event {
	ev := &Event{
		TypeMeta:                 metav1.TypeMeta{Kind: "Event", APIVersion: APIVersion},
		Level:                    level,
		AuditID:                  id,
		RequestURI:               r.URL.RequestURI(),
		Verb:                     attrs.GetVerb(),
		UserAgent:                r.UserAgent(),
		RequestReceivedTimestamp: metav1.NewMicroTime(received),
	}
	if len(ev.UserAgent) > maxUserAgentLength {
		ev.UserAgent = ev.UserAgent[:maxUserAgentLength] + userAgentTruncateSuffix
	}
	for _, ip := range utilnet.SourceIPs(r) {
		ev.SourceIPs = append(ev.SourceIPs, ip.String())
	}
	if u := attrs.GetUser(); u != nil {
		ev.User = userInfo(u)
	}
	if attrs.IsResourceRequest() {
		ev.ObjectRef = &ObjectReference{
			Namespace:   attrs.GetNamespace(),
			Name:        attrs.GetName(),
			Resource:    attrs.GetResource(),
			Subresource: attrs.GetSubresource(),
			APIGroup:    attrs.GetAPIGroup(),
			APIVersion:  attrs.GetAPIVersion(),
		}
	}
	return ev
}

func userInfo(u user.Info) authnv1.UserInfo {
	info := authnv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
	// kube-apiserver always makes the map, so an empty one is written
	// as absent (omitempty) either way.
	if extra := u.GetExtra(); len(extra) > 0 {
		info.Extra = make(map[string]authnv1.ExtraValue, len(extra))
		for k, v := range extra {
			info.Extra[k] = authnv1.ExtraValue(v)
		}
	}
	return info
}

// AtStage returns a copy of base at stage, completed with what the
// layers of the request recorded in rec. RequestReceived carries only the
// request's metadata, as in kube-apiserver, where nothing else is known
// yet; the stage timestamp of RequestReceived is the time the request was
// received.
func AtStage(base *Event, stage Stage, now time.Time, rec auditcontext.Recorded) *Event {
	ev := *base
	ev.Stage = stage
	if stage == StageRequestReceived {
		ev.StageTimestamp = ev.RequestReceivedTimestamp
	} else {
		ev.StageTimestamp = metav1.NewMicroTime(now)
	}
	if base.ObjectRef != nil || rec.ObjectRef.Set {
		ref := &ObjectReference{}
		if base.ObjectRef != nil {
			*ref = *base.ObjectRef
		}
		r := rec.ObjectRef
		if r.Set {
			setIfEmpty(&ref.Namespace, r.Namespace)
			setIfEmpty(&ref.Name, r.Name)
			if ref.UID == "" {
				ref.UID = types.UID(r.UID)
			}
			setIfEmpty(&ref.ResourceVersion, r.ResourceVersion)
			if ref.APIVersion == "" {
				ref.APIGroup, ref.APIVersion = r.APIGroup, r.APIVersion
			}
			setIfEmpty(&ref.Resource, r.Resource)
			setIfEmpty(&ref.Subresource, r.Subresource)
		}
		ev.ObjectRef = ref
	}
	if u := rec.Impersonated; u != nil {
		info := userInfo(u)
		ev.ImpersonatedUser = &info
	}
	if st := rec.ResponseStatus; st != nil {
		ev.ResponseStatus = &metav1.Status{Status: st.Status, Message: st.Message, Reason: st.Reason, Details: st.Details, Code: st.Code}
	}
	if ev.Level == LevelRequest || ev.Level == LevelRequestResponse {
		ev.RequestObject = RawObject(rec.RequestObject)
	}
	if ev.Level == LevelRequestResponse {
		ev.ResponseObject = RawObject(rec.ResponseObject)
	}
	ev.Annotations = rec.Annotations
	return &ev
}

func setIfEmpty(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// ContextLevel is the level of the request context's audit state.
func ContextLevel(l Level) auditcontext.Level {
	switch l {
	case LevelMetadata:
		return auditcontext.LevelMetadata
	case LevelRequest:
		return auditcontext.LevelRequest
	case LevelRequestResponse:
		return auditcontext.LevelRequestResponse
	}
	return auditcontext.LevelNone
}
