package filters

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kapi-dev/kapi/pkg/audit"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/responsewriters"
)

// WithAuditInit gives every request its audit ID and the audit state the
// layers below record into (auditcontext), and answers the ID in the
// Audit-Id response header. A client that sends an Audit-ID header
// chooses the ID, as kube-apiserver allows, so that a request can be
// followed through proxies. It sits outside authentication, so that
// rejected requests carry the header too.
func WithAuditInit(handler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(audit.HeaderAuditID)
		if id == "" {
			id = string(uuid.NewUUID())
		}
		if w.Header().Get(audit.HeaderAuditID) == "" {
			w.Header().Set(audit.HeaderAuditID, id)
		}
		ac := auditcontext.New(types.UID(id))
		handler.ServeHTTP(w, r.WithContext(auditcontext.With(r.Context(), ac)))
	})
}

// WithAudit writes the audit events of each request to sink, at the level
// policy gives it, at the stages of kube-apiserver:
//
//	RequestReceived   before the request goes on
//	ResponseStarted   when a long-running request (a watch) sends its header
//	ResponseComplete  when the handler returns
//	Panic             when it panics (then the panic goes on)
//
// It runs after authentication, so events name the authenticated user,
// and before impersonation, which records the impersonated user through
// auditcontext.LogImpersonatedUser. Authorization and admission add
// annotations the same way; handlers record the request and response
// objects when the level asks for them.
//
// If the sink refuses the RequestReceived event (a blocking-strict
// backend that failed to write it), the request is answered with a 500
// and goes no further, as in kube-apiserver. A nil sink or policy turns
// auditing off.
func WithAudit(handler http.Handler, sink audit.Backend, policy audit.Evaluator, m *audit.Metrics, longRunning request.LongRunningCheck, logger *slog.Logger) http.Handler {
	if sink == nil || policy == nil {
		return handler
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		ac := auditcontext.From(ctx)
		if ac == nil {
			// WithAuditInit is missing: a server built without it.
			ac = auditcontext.New(uuid.NewUUID())
			ctx = auditcontext.With(ctx, ac)
			r = r.WithContext(ctx)
		}
		attrs, err := AuthorizerAttributes(ctx)
		if err != nil {
			logger.Error("Failed to create audit event", "err", err)
			responsewriters.WriteErrorStatus(w, r, apierrors.NewInternalError(errors.New("failed to create audit event")))
			return
		}
		rc := policy.Evaluate(attrs)
		m.ObserveLevel(rc.Level)
		ac.Init(audit.ContextLevel(rc.Level), rc.OmitManagedFields)
		if rc.Level == audit.LevelNone {
			handler.ServeHTTP(w, r)
			return
		}
		base := audit.NewEvent(r, ac.ID, rc.Level, time.Now(), attrs)
		process := func(stage audit.Stage) bool {
			if rc.Omits(stage) {
				return true
			}
			return sink.ProcessEvents(audit.AtStage(base, stage, time.Now(), ac.Recorded()))
		}
		if !process(audit.StageRequestReceived) {
			m.RequestRejected()
			responsewriters.WriteErrorStatus(w, r, apierrors.NewInternalError(errors.New("failed to store audit event")))
			return
		}
		info, _ := request.RequestInfoFrom(ctx)
		isLongRunning := info != nil && longRunning != nil && longRunning(info)
		aw := &auditWriter{ResponseWriter: w, onHeader: func(code int) {
			ac.SetResponseCode(int32(code))
			if isLongRunning {
				process(audit.StageResponseStarted)
			}
		}}
		defer func() {
			if p := recover(); p != nil {
				ac.SetResponseStatus(auditcontext.ResponseStatus{
					Code: http.StatusInternalServerError, Status: metav1.StatusFailure,
					Reason: metav1.StatusReasonInternalError, Message: fmt.Sprintf("APIServer panic'd: %v", p),
				})
				process(audit.StagePanic)
				panic(p)
			}
			if !ac.HasResponseStatus() {
				// The handler wrote nothing: the client went away.
				ac.SetResponseStatus(auditcontext.ResponseStatus{Code: http.StatusOK, Status: metav1.StatusSuccess, Message: "Connection closed early"})
				if isLongRunning {
					process(audit.StageResponseStarted)
				}
			}
			process(audit.StageResponseComplete)
		}()
		handler.ServeHTTP(aw, r)
	})
}

// auditWriter reports the status code of a response once, when its
// header goes out, keeping Flush, Hijack and Unwrap working.
type auditWriter struct {
	http.ResponseWriter
	once     sync.Once
	onHeader func(code int)
}

func (a *auditWriter) header(code int) { a.once.Do(func() { a.onHeader(code) }) }

func (a *auditWriter) WriteHeader(code int) {
	if code >= 200 || code == http.StatusSwitchingProtocols {
		a.header(code)
	}
	a.ResponseWriter.WriteHeader(code)
}

func (a *auditWriter) Write(p []byte) (int, error) {
	a.header(http.StatusOK)
	return a.ResponseWriter.Write(p)
}

func (a *auditWriter) Flush() {
	a.header(http.StatusOK)
	_ = http.NewResponseController(a.ResponseWriter).Flush()
}

func (a *auditWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	a.header(http.StatusSwitchingProtocols)
	return http.NewResponseController(a.ResponseWriter).Hijack()
}

func (a *auditWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }
