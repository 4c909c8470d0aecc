// Package flowcontrol is API priority and fairness (KEP-1040), as
// kube-apiserver 1.37 does it: the configuration controller, the
// classification of requests, the concurrency limits of the priority
// levels and their borrowing, the Retry-After of rejections and the
// debug dumps. The queue set of one level is pkg/flowcontrol/fairqueuing,
// the work estimate of a request pkg/flowcontrol/request, the metrics
// pkg/flowcontrol/metrics; the filter that applies all this to requests
// is WithPriorityAndFairness in pkg/server/filters.
//
// # Configuration
//
// The Controller digests the FlowSchemas and PriorityLevelConfigurations
// (read through informers) whenever one changes, into an immutable
// snapshot that requests read without a lock. A level keeps its queue
// set across changes: its queuing parameters are applied to the live
// set. A FlowSchema whose level does not exist matches nothing (it is
// Dangling; pkg/controlplane/apfstatus writes the condition); the
// mandatory exempt and catch-all objects are imagined while they are
// missing; a level that is removed keeps serving its queued requests
// until they have drained.
//
// # Classification
//
// A request goes to the first FlowSchema that matches it, in order of
// matching precedence then name (classify.go has the rules); its flow is
// the schema and the user or namespace the schema's distinguisher
// method names. Requests of an exempt level are never queued nor
// rejected.
//
// # Limits
//
// The server's concurrency limit (--max-requests-inflight plus
// --max-mutating-requests-inflight) is shared among the limited levels
// by their nominal concurrency shares; every ten seconds the current
// limits are recomputed from each level's seat demand, so that busy
// levels borrow what idle ones lend (alloc.go).
package flowcontrol
