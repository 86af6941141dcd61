package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/petstore/petstore-go/internal/fakehook"
	"github.com/petstore/petstore-go/internal/redact"
)

// eventLog is the program's log on stderr, in the form -log asks for: text
// (a line per request, as the program always wrote) or json (a record per
// request, as log/slog's JSONHandler writes them). Either form holds the
// fake's key in no encoding at all: whatever a client put in a path, a query
// or a method passes through a Redactor of the key (as sent, percent-encoded
// in either hex case, JSON-escaped, in any letter case), and no header is
// ever written.
type eventLog struct {
	text *log.Logger  // -log text; nil otherwise
	json *slog.Logger // -log json; nil otherwise
}

// newEventLog returns the log of the given form ("text" or "json") on w,
// with key redacted. In text, each line is redacted as a whole; in json,
// each string value (msg included), so that the numbers stay numbers.
func newEventLog(form string, w io.Writer, key string) *eventLog {
	r := redact.New(key)
	if form == "json" {
		opts := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Value.Kind() == slog.KindString {
				a.Value = slog.StringValue(r.String(a.Value.String()))
			}
			return a
		}}
		return &eventLog{json: slog.New(slog.NewJSONHandler(w, opts))}
	}
	return &eventLog{text: log.New(r.Writer(w), "", log.Ltime|log.Lmicroseconds)}
}

// Printf logs a message: a line in text, a record of level INFO in json.
func (l *eventLog) Printf(format string, args ...any) {
	if l.json != nil {
		l.json.Info(fmt.Sprintf(format, args...))
		return
	}
	l.text.Printf(format, args...)
}

// errorLog returns the logger for http.Server's ErrorLog: in json, its
// messages are records of level ERROR.
func (l *eventLog) errorLog() *log.Logger {
	if l.json != nil {
		return slog.NewLogLogger(l.json.Handler(), slog.LevelError)
	}
	return l.text
}

// request logs a request the fake (or the control API) answered as o says,
// in d: in text, "GET /v1/pets 200 183µs", the status "-" with a reason when
// no answer was sent; in json, a record whose msg is "request", then
// method, path, query, status (0 when no answer was sent), duration
// (nanoseconds), request_id and fault. The path and the query are as
// received, escaped; text leaves the query out.
func (l *eventLog) request(r *http.Request, o *fakehook.Outcome, d time.Duration) {
	path := r.URL.EscapedPath()
	if l.json != nil {
		l.json.LogAttrs(context.Background(), slog.LevelInfo, "request",
			slog.String("method", r.Method),
			slog.String("path", path),
			slog.String("query", r.URL.RawQuery),
			slog.Int("status", o.Status),
			slog.Duration("duration", d),
			slog.String("request_id", o.RequestID),
			slog.Bool("fault", o.Fault))
		return
	}
	status := strconv.Itoa(o.Status)
	switch {
	case o.Status != 0:
	case r.Context().Err() != nil:
		status = "- (client gone)"
	default:
		status = "- (dropped)" // a Disconnect fault
	}
	l.text.Printf("%s %s %s %v", r.Method, path, status, d.Round(time.Microsecond))
}

// logRequests returns a handler that serves each request with next and
// logs it to l, but for a health check that passed (GET /_fake/health
// answered 200): a container runtime probes it every few seconds, which
// would bury the requests under its lines. It hands next an Outcome in the
// request's context, which the fake fills in (its status, request id,
// whether a fault answered). The log is written in a defer: the fake ends
// a request it drops or cuts short with panic(http.ErrAbortHandler), which
// is logged, then goes on to net/http, which drops the connection.
func logRequests(next http.Handler, l *eventLog) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		o := new(fakehook.Outcome)
		r = r.WithContext(fakehook.NewContext(r.Context(), o))
		defer func() {
			if r.Method != http.MethodGet || r.URL.EscapedPath() != healthPath || o.Status != http.StatusOK {
				l.request(r, o, time.Since(start))
			}
		}()
		next.ServeHTTP(w, r)
	})
}
