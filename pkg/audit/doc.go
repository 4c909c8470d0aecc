// Package audit is kube-apiserver's auditing: the audit.k8s.io/v1 types
// (Event, EventList, Policy, with kube-apiserver's JSON field for field),
// the policy (--audit-policy-file) that gives each request a level, the
// building of events, and the contract of the backends, which live in
// subpackages: log (--audit-log-*, rotated by rotate), webhook
// (--audit-webhook-*) and buffered (the batch mode of either).
//
// How an event is made. filters.WithAuditInit gives each request its ID
// (the Audit-Id response header) and an auditcontext.Context; after
// authentication, filters.WithAudit asks the policy for the request's
// level and writes the events of its stages through the backend. The
// layers below record into the auditcontext what only they know: the
// authorizer's decision (annotations authorization.k8s.io/decision and
// /reason), admission plugins' annotations (auditcontext.AddAnnotation
// with the context they are given), the impersonated user
// (auditcontext.LogImpersonatedUser), the request object (as decoded, or
// a patch as sent) and the response object or Status. Each stage's event
// is a fresh copy, so backends may keep it.
//
// Queues. In blocking mode (the log's default) there is none: the request
// waits until its event is written, and blocking-strict fails a request
// whose RequestReceived event could not be. In batch mode (the webhook's
// default) events wait in one buffer of --audit-*-batch-buffer-size
// (10000) events per backend; when it is full, new events are dropped,
// logged and counted in apiserver_audit_error_total{plugin="buffered"},
// never waited for. Shutdown, after the server has stopped serving,
// writes out what is buffered.
//
// Differences from kube-apiserver: no apiserver.latency.k8s.io
// annotations, and of the audit metrics only apiserver_audit_event_total
// and apiserver_audit_error_total. --audit-*-version accepts only
// audit.k8s.io/v1, the one version kube-apiserver 1.37 has.
package audit
