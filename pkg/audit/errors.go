package audit

import (
	"log/slog"
	"strconv"
	"strings"
)

// ErrorCounter counts the events a backend failed to store
// (apiserver_audit_error_total, by plugin).
type ErrorCounter interface {
	AddErrors(plugin string, n int)
}

// HandlePluginError logs and counts events a backend could not store, in
// kube-apiserver's words: "Error in audit plugin 'P' affecting N audit
// events: ERR", followed by the impacted events in the legacy format.
func HandlePluginError(logger *slog.Logger, errors ErrorCounter, plugin string, err error, events ...*Event) {
	if errors != nil {
		errors.AddErrors(plugin, len(events))
	}
	if logger == nil {
		return
	}
	lines := make([]string, len(events))
	for i, ev := range events {
		lines[i] = LegacyString(ev)
	}
	logger.Error("Error in audit plugin '"+plugin+"' affecting "+strconv.Itoa(len(events))+" audit events: "+err.Error(),
		"impactedEvents", strings.Join(lines, "\n"))
}
