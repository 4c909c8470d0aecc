package audit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Backend stores or sends audit events.
type Backend interface {
	// ProcessEvents hands events to the backend, which must not modify
	// them. It reports false if an event could not be stored (only a
	// blocking backend knows: a batching one reports what it queued or
	// dropped as true, since it never makes the request wait).
	ProcessEvents(events ...*Event) bool
	// Run starts the backend's background work, if it has any.
	Run(ctx context.Context) error
	// Shutdown writes or sends the events still pending and stops. It
	// returns once they are out, or the backend gave up on them.
	Shutdown()
	// String names the backend in logs and metrics.
	String() string
}

// Union is a backend that hands every event to each of backends.
func Union(backends ...Backend) Backend {
	if len(backends) == 1 {
		return backends[0]
	}
	return union(backends)
}

type union []Backend

func (u union) ProcessEvents(events ...*Event) bool {
	ok := true
	for _, b := range u {
		ok = b.ProcessEvents(events...) && ok
	}
	return ok
}

func (u union) Run(ctx context.Context) error {
	for _, b := range u {
		if err := b.Run(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (u union) Shutdown() {
	for _, b := range u {
		b.Shutdown()
	}
}

func (u union) String() string {
	names := make([]string, len(u))
	for i, b := range u {
		names[i] = b.String()
	}
	return "union[" + strings.Join(names, ",") + "]"
}

// LegacyString is an event in the one-line text of --audit-log-format=legacy.
func LegacyString(ev *Event) string {
	username, groups := "<none>", "<none>"
	if ev.User.Username != "" {
		username = ev.User.Username
		if len(ev.User.Groups) > 0 {
			groups = quoteList(ev.User.Groups)
		}
	}
	asUser, asGroups := "<self>", "<lookup>"
	if ev.ImpersonatedUser != nil {
		asUser = ev.ImpersonatedUser.Username
		if ev.ImpersonatedUser.Groups != nil {
			asGroups = quoteList(ev.ImpersonatedUser.Groups)
		}
	}
	namespace := "<none>"
	if ev.ObjectRef != nil && ev.ObjectRef.Namespace != "" {
		namespace = ev.ObjectRef.Namespace
	}
	response := "<deferred>"
	if ev.ResponseStatus != nil {
		response = strconv.Itoa(int(ev.ResponseStatus.Code))
	}
	ip := "<unknown>"
	if len(ev.SourceIPs) > 0 {
		ip = ev.SourceIPs[0]
	}
	return fmt.Sprintf("%s AUDIT: id=%q stage=%q ip=%q method=%q user=%q groups=%q as=%q asgroups=%q user-agent=%q namespace=%q uri=%q response=\"%s\"",
		ev.RequestReceivedTimestamp.Format(time.RFC3339Nano), ev.AuditID, ev.Stage, ip, ev.Verb, username, groups,
		asUser, asGroups, ev.UserAgent, namespace, ev.RequestURI, response)
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ",")
}
