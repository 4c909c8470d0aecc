// Package fairqueuing is the queue set of one priority level of API
// priority and fairness: kube-apiserver's "fair queuing for server
// requests" (KEP 1040), written for kapi.
//
// A QueueSet admits requests up to its concurrency limit, in seats. A
// request that does not fit waits in one of the level's queues; shuffle
// sharding picks the queue from the request's flow (its flow schema and
// distinguisher, hashed by the caller), so that one flow flooding fills
// only its own few queues. Whenever seats free up, the set dispatches
// the head of the queue whose head would finish first in virtual time.
//
// # Virtual time
//
// R, the progress meter, counts the seat-seconds every busy queue
// would have been given if the seats were shared evenly among them: it
// advances at min(C, seats wanted) / (busy queues) seat-seconds per
// second, C being the concurrency limit and a queue busy while it has a
// request waiting or executing. Each queue keeps the virtual time at
// which its next request may start (nextDispatchR): set to R when a
// request arrives at an idle queue, advanced by the request's work when
// it is dispatched. A request's work is its initial seats times a
// guessed service time G (3ms, as kube-apiserver's) plus its final
// seats times its additional latency; when the request finishes after
// actually running for S, its queue is credited back (G-S) times its
// initial seats. Dispatch picks the queue whose head has the least
// nextDispatchR + work (ties go round robin), so that over time every
// busy queue gets the same seat-seconds, however many requests each
// holds. A queue's nextDispatchR never lags behind its head's arrival
// R: a queue that cannot use its share does not bank it (kube-apiserver
// calls this the anti-windup bound).
//
// # Seats
//
// A request holds max(InitialSeats, FinalSeats) from dispatch until
// it has executed and, if it has an AdditionalLatency, until that has
// passed after it returned (kube-apiserver holds the larger of the two
// all along). A request wider than the free seats blocks dispatch
// until they are free, so wide requests are not starved by narrow
// ones. No request needs more seats than the limit: wider ones are cut
// down to it when dispatched (final seats held longer, to keep their
// work). A limit of 0 admits one request at a time.
//
// # Levels that do not queue
//
// A level configured with no queues (limitResponse Reject) dispatches a
// request at once if it fits and rejects it with concurrency-limit if
// not. An exempt level (NewExempt) dispatches everything at once; it
// only counts, so that its executing requests and seat demand are seen
// like any other level's.
package fairqueuing
