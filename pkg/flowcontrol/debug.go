package flowcontrol

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/flowcontrol/fairqueuing"
)

// DebugPath is where the dumps are served, as in kube-apiserver:
// dump_priority_levels, dump_queues and dump_requests (with
// ?includeRequestDetails=1 for the user and request of each). They are
// non-resource URLs: authorization decides who may read them.
const DebugPath = "/debug/api_priority_and_fairness/"

// DebugHandlers returns the dump handlers by path.
func (c *Controller) DebugHandlers() map[string]http.Handler {
	return map[string]http.Handler{
		DebugPath + "dump_priority_levels": http.HandlerFunc(c.dumpPriorityLevels),
		DebugPath + "dump_queues":          http.HandlerFunc(c.dumpQueues),
		DebugPath + "dump_requests":        http.HandlerFunc(c.dumpRequests),
	}
}

// The dumps are kube-apiserver's text tables: columns separated by ",",
// aligned with a tabwriter of minimum width 8 and padding 1, levels in
// name order.

func newTable(w http.ResponseWriter) *tabwriter.Writer {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	return tabwriter.NewWriter(w, 8, 0, 1, ' ', 0)
}

func writeRow(w io.Writer, columns ...string) {
	_, _ = io.WriteString(w, strings.Join(columns, ",\t"))
}

// sortedLevels returns the levels in name order; c.mu must be held.
func (c *Controller) sortedLevels() []*level {
	out := make([]*level, 0, len(c.levels))
	for _, l := range c.levels {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b *level) int { return strings.Compare(a.name, b.name) })
	return out
}

func (c *Controller) dumpPriorityLevels(w http.ResponseWriter, _ *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tw := newTable(w)
	writeRow(tw, "PriorityLevelName", "ActiveQueues", "IsIdle", "IsQuiescing", "WaitingRequests", "ExecutingRequests",
		"DispatchedRequests", "RejectedRequests", "TimedoutRequests", "CancelledRequests")
	_, _ = io.WriteString(tw, "\n")
	for _, l := range c.sortedLevels() {
		d := l.queues.Dump(false)
		active := 0
		for _, q := range d.Queues {
			if len(q.Waiting) > 0 {
				active++
			}
		}
		writeRow(tw, l.name, strconv.Itoa(active), strconv.FormatBool(l.queues.IsIdle()), strconv.FormatBool(l.quiescing.Load()),
			strconv.Itoa(d.WaitingRequests), strconv.Itoa(d.ExecutingRequests),
			strconv.Itoa(d.Dispatched), strconv.Itoa(d.Rejected), strconv.Itoa(d.TimedOut), strconv.Itoa(d.Cancelled))
		_, _ = io.WriteString(tw, "\n")
	}
	_ = tw.Flush()
}

func (c *Controller) dumpQueues(w http.ResponseWriter, _ *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tw := newTable(w)
	writeRow(tw, "PriorityLevelName", "Index", "PendingRequests", "ExecutingRequests", "SeatsInUse",
		"NextDispatchR", "InitialSeatsSum", "MaxSeatsSum", "TotalWorkSum")
	_, _ = io.WriteString(tw, "\n")
	for _, l := range c.sortedLevels() {
		for i, q := range l.queues.Dump(false).Queues {
			writeRow(tw, l.name, strconv.Itoa(i), strconv.Itoa(len(q.Waiting)), strconv.Itoa(q.ExecutingRequests), strconv.Itoa(q.SeatsInUse),
				q.NextDispatchR.String(), strconv.Itoa(q.InitialSeatsSum), strconv.Itoa(q.MaxSeatsSum), q.TotalWorkSum.String())
			_, _ = io.WriteString(tw, "\n")
		}
	}
	_ = tw.Flush()
}

func (c *Controller) dumpRequests(w http.ResponseWriter, r *http.Request) {
	details := r.URL.Query().Get("includeRequestDetails") != ""
	c.mu.Lock()
	defer c.mu.Unlock()
	tw := newTable(w)
	// "FlowDistingsher" is kube-apiserver's spelling.
	writeRow(tw, "PriorityLevelName", "FlowSchemaName", "QueueIndex", "RequestIndexInQueue", "FlowDistingsher",
		"ArriveTime", "InitialSeats", "FinalSeats", "AdditionalLatency", "StartTime")
	if details {
		_, _ = io.WriteString(tw, ",\t")
		writeRow(tw, "UserName", "Verb", "APIPath", "Namespace", "Name", "APIVersion", "Resource", "SubResource")
	}
	_, _ = io.WriteString(tw, "\n")
	for _, l := range c.sortedLevels() {
		d := l.queues.Dump(details)
		row := func(queue, index int, req fairqueuing.RequestDump) {
			writeRow(tw, l.name, req.FlowSchema, strconv.Itoa(queue), strconv.Itoa(index), req.Distinguisher,
				req.Arrival.UTC().Format(time.RFC3339Nano),
				strconv.FormatUint(req.Work.InitialSeats, 10), strconv.FormatUint(req.Work.FinalSeats, 10),
				req.Work.AdditionalLatency.String(), req.Start.UTC().Format(time.RFC3339Nano))
			if details {
				_, _ = io.WriteString(tw, ",\t")
				var userName string
				info := &request.RequestInfo{}
				ctx, ok := req.Descr.(context.Context)
				if d, isDescr := req.Descr.(*requestDescr); isDescr {
					ctx, ok = d.ctx, true
				}
				if ok {
					if u, ok := request.UserFrom(ctx); ok {
						userName = u.GetName()
					}
					if i, ok := request.RequestInfoFrom(ctx); ok {
						info = i
					}
				}
				writeRow(tw, userName, info.Verb, info.Path, info.Namespace, info.Name,
					schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}.String(), info.Resource, info.Subresource)
			}
			_, _ = io.WriteString(tw, "\n")
		}
		for qi, q := range d.Queues {
			for ri, req := range q.Waiting {
				row(qi, ri, req)
			}
			for _, req := range q.Executing {
				row(qi, -1, req)
			}
		}
		for _, req := range d.QueuelessExecuting {
			row(-1, -1, req)
		}
	}
	_ = tw.Flush()
}
