package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go/internal/redact"
)

func TestErrorClass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{context.Canceled, "canceled"},
		{&timeoutError{}, "timeout"},
		{fmt.Errorf("read: %w", context.DeadlineExceeded), "timeout"},
		{ErrBodyTooLarge, "body too large"},
		{&url.Error{Op: "Get", Err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host"}}}, "dns"},
		{&url.Error{Op: "Get", Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}}, "dial"},
		{io.ErrUnexpectedEOF, "truncated response"},
		{errors.New(`malformed HTTP status code "secret"`), "transport"},
	}
	for _, tc := range tests {
		if got := errorClass(tc.err); got != tc.want {
			t.Errorf("errorClass(%v) = %q; want %q", tc.err, got, tc.want)
		}
	}
}

// records is a slog.Handler that keeps each record's attributes as text.
type records []map[string]string

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	m := map[string]string{"msg": rec.Message}
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key != "duration" {
			m[a.Key] = a.Value.String()
		}
		return true
	})
	*r = append(*r, m)
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

// TestAttemptRecord: one Debug record per attempt, with no header, body or
// query, and the key hidden in the request id a server chose.
func TestAttemptRecord(t *testing.T) {
	t.Parallel()
	const key = "Sk-Test/9f+Ab"
	rt := roundTripFunc(func(*http.Request) (*http.Response, error) {
		h := http.Header{"X-Request-Id": {"req-" + key}}
		return &http.Response{StatusCode: 503, Header: h, Body: http.NoBody}, nil
	})
	var recs records
	tr := &Transport{User: &http.Client{Transport: rt}, Logger: slog.New(&recs), Redactor: redact.New(key)}
	req, err := http.NewRequest(http.MethodGet, "https://petstore.test/v1/pets?status=sold", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := tr.Send(req, nil, 1); r.Err != nil {
		t.Fatal(r.Err)
	}
	want := records{{
		"msg": "petstore: attempt", "method": "GET", "host": "petstore.test", "path": "/v1/pets",
		"attempt": "1", "status": "503", "request_id": "req-[REDACTED]",
	}}
	if diff := cmp.Diff(want, recs); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}
