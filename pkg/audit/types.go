package audit

import (
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The audit.k8s.io/v1 types, with kube-apiserver's JSON field for field.
// Request and response objects are raw JSON, written as they are.

// GroupName and Version name the API of the types.
const (
	GroupName  = "audit.k8s.io"
	Version    = "v1"
	APIVersion = GroupName + "/" + Version
)

// HeaderAuditID is the request header a client may set to choose a
// request's audit ID, and the response header that reports it.
const HeaderAuditID = "Audit-ID"

// Level is how much of a request an event records.
type Level string

// The levels, from nothing to everything.
const (
	LevelNone            Level = "None"
	LevelMetadata        Level = "Metadata"
	LevelRequest         Level = "Request"
	LevelRequestResponse Level = "RequestResponse"
)

// Stage is the point of a request's life an event is written at.
type Stage string

// The stages.
const (
	StageRequestReceived  Stage = "RequestReceived"
	StageResponseStarted  Stage = "ResponseStarted"
	StageResponseComplete Stage = "ResponseComplete"
	StagePanic            Stage = "Panic"
)

// Event is one audit record.
type Event struct {
	metav1.TypeMeta `json:",inline"`

	Level                    Level                   `json:"level"`
	AuditID                  types.UID               `json:"auditID"`
	Stage                    Stage                   `json:"stage"`
	RequestURI               string                  `json:"requestURI"`
	Verb                     string                  `json:"verb"`
	User                     authnv1.UserInfo        `json:"user"`
	ImpersonatedUser         *authnv1.UserInfo       `json:"impersonatedUser,omitempty"`
	AuthenticationMetadata   *AuthenticationMetadata `json:"authenticationMetadata,omitempty"`
	SourceIPs                []string                `json:"sourceIPs,omitempty"`
	UserAgent                string                  `json:"userAgent,omitempty"`
	ObjectRef                *ObjectReference        `json:"objectRef,omitempty"`
	ResponseStatus           *metav1.Status          `json:"responseStatus,omitempty"`
	RequestObject            RawObject               `json:"requestObject,omitempty"`
	ResponseObject           RawObject               `json:"responseObject,omitempty"`
	RequestReceivedTimestamp metav1.MicroTime        `json:"requestReceivedTimestamp"`
	StageTimestamp           metav1.MicroTime        `json:"stageTimestamp"`
	Annotations              map[string]string       `json:"annotations,omitempty"`
}

// RawObject is an object as JSON, written into an event as it is.
type RawObject []byte

// MarshalJSON writes the raw JSON.
func (r RawObject) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}

// UnmarshalJSON keeps the raw JSON.
func (r *RawObject) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = nil
		return nil
	}
	*r = append((*r)[:0], b...)
	return nil
}

// AuthenticationMetadata says how the request was authenticated.
type AuthenticationMetadata struct {
	ImpersonationConstraint string `json:"impersonationConstraint,omitempty"`
}

// EventList is what the webhook backend posts.
type EventList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Event `json:"items"`
}

// ObjectReference names the object a request is about.
type ObjectReference struct {
	Resource        string    `json:"resource,omitempty"`
	Namespace       string    `json:"namespace,omitempty"`
	Name            string    `json:"name,omitempty"`
	UID             types.UID `json:"uid,omitempty"`
	APIGroup        string    `json:"apiGroup,omitempty"`
	APIVersion      string    `json:"apiVersion,omitempty"`
	ResourceVersion string    `json:"resourceVersion,omitempty"`
	Subresource     string    `json:"subresource,omitempty"`
}

// Policy says which requests are recorded, and how much of them.
type Policy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Rules are tried in order; the first that matches decides.
	Rules []PolicyRule `json:"rules"`
	// OmitStages are never recorded, whatever the rule.
	OmitStages []Stage `json:"omitStages,omitempty"`
	// OmitManagedFields is the default of the rules that leave it unset.
	OmitManagedFields bool `json:"omitManagedFields,omitempty"`
}

// PolicyRule matches requests and gives them a level. Empty lists match
// everything.
type PolicyRule struct {
	Level             Level            `json:"level"`
	Users             []string         `json:"users,omitempty"`
	UserGroups        []string         `json:"userGroups,omitempty"`
	Verbs             []string         `json:"verbs,omitempty"`
	Resources         []GroupResources `json:"resources,omitempty"`
	Namespaces        []string         `json:"namespaces,omitempty"`
	NonResourceURLs   []string         `json:"nonResourceURLs,omitempty"`
	OmitStages        []Stage          `json:"omitStages,omitempty"`
	OmitManagedFields *bool            `json:"omitManagedFields,omitempty"`
}

// GroupResources selects resources of one API group ("" is the core
// group, "*" any). Resources may be "pods", "pods/log", "pods/*", "*/log"
// or "*"; ResourceNames restricts them to named objects.
type GroupResources struct {
	Group         string   `json:"group,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}
