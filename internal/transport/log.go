package transport

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// logAttempt writes the Debug record of one attempt (l is enabled for it),
// which ended with a response of status with request id id, or with err
// (status and id then not logged): never a header, a body or the URL's query.
func logAttempt(ctx context.Context, l *slog.Logger, req *http.Request, attempt, status int, id string, err error, d time.Duration) {
	attrs := []slog.Attr{slog.String("method", req.Method), slog.String("host", req.URL.Host),
		slog.String("path", req.URL.EscapedPath()), slog.Int("attempt", attempt)}
	if err != nil {
		attrs = append(attrs, slog.String("error", errorClass(err)), slog.Duration("duration", d))
	} else {
		attrs = append(attrs, slog.Int("status", status), slog.Duration("duration", d))
		if id != "" {
			attrs = append(attrs, slog.String("request_id", id))
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
