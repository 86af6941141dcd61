package transport

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/petstore/petstore-go/internal/redact"
)

// logAttempt writes the Debug record of one attempt: never a header, a body
// or the URL's query. red hides the key in the request id.
func logAttempt(ctx context.Context, l *slog.Logger, red *redact.Redactor, req *http.Request, attempt int, resp *http.Response, err error, d time.Duration) {
	if !l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("host", req.URL.Host), // production, staging or a fake
		slog.String("path", req.URL.EscapedPath()),
		slog.Int("attempt", attempt),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", errorClass(err)))
	} else {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	attrs = append(attrs, slog.Duration("duration", d))
	if resp != nil {
		id := resp.Header.Get("X-Request-Id")
		if id == "" {
			id = resp.Header.Get("Request-Id")
		}
		if id != "" {
			// A server may echo the key (the request's bearer token) here.
			attrs = append(attrs, slog.String("request_id", red.String(id)))
		}
	}
	l.LogAttrs(ctx, slog.LevelDebug, "petstore: attempt", attrs...)
}

// errorClass names the kind of a transport error for a log record, without
// its text (which could quote a URL or a server's words).
func errorClass(err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, ErrBodyTooLarge):
		return "body too large"
	case errors.As(err, &dnsErr):
		return "dns"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "dial"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated response"
	}
	return "transport"
}
