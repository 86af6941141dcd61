package retry

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"3", 3 * time.Second, true},
		{" 120 ", 120 * time.Second, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"+5", 0, false},
		{"abc", 0, false},
		{"99999999999999999999999", maxRetryAfterSeconds * time.Second, true},
		{"Sat, 21 Nov 2026 12:00:30 GMT", 30 * time.Second, true},
		{"Saturday, 21-Nov-26 12:01:00 GMT", time.Minute, true}, // RFC 850
		{"Sat Nov 21 12:00:10 2026", 10 * time.Second, true},    // asctime
		{"Sat, 21 Nov 2026 11:00:00 GMT", 0, true},              // in the past
		{"Sat, 21 Nov 2026 12:00:30", 0, false},
	}
	for _, tc := range tests {
		got, ok := ParseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}

func response(status int, retryAfter string) *http.Response {
	h := http.Header{}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	return &http.Response{StatusCode: status, Header: h}
}

func TestPolicyStatuses(t *testing.T) {
	for status := 100; status < 600; status++ {
		wantGet := false
		switch status {
		case 408, 429, 500, 502, 503, 504:
			wantGet = true
		}
		wantPost := status == 429
		for _, idempotent := range []bool{true, false} {
			want := wantPost
			if idempotent {
				want = wantGet
			}
			got, err := Policy(idempotent, time.Minute)(context.Background(), response(status, ""), nil)
			if got != want || err != nil {
				t.Errorf("Policy(idempotent=%v) on %d = %v, %v; want %v, nil", idempotent, status, got, err, want)
			}
		}
	}
}

func TestPolicyRetryAfterOverMax(t *testing.T) {
	tests := []struct {
		status     int
		retryAfter string
		want       bool
	}{
		{429, "5", true},
		{429, "10", true}, // equal to max: waited for
		{429, "11", false},
		{503, "3600", false},
		{503, "1", true},
		{500, "3600", true}, // Retry-After counts only on 429 and 503
		{429, "garbage", true},
	}
	for _, tc := range tests {
		got, err := Policy(true, 10*time.Second)(context.Background(), response(tc.status, tc.retryAfter), nil)
		if got != tc.want || err != nil {
			t.Errorf("%d with Retry-After %q: got %v, %v; want %v, nil", tc.status, tc.retryAfter, got, err, tc.want)
		}
	}
}

func TestPolicyErrors(t *testing.T) {
	dial := &url.Error{Op: "Post", URL: "https://x/v1/pets", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}
	dns := &url.Error{Op: "Post", URL: "https://x/v1/pets", Err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x"}}}
	dialTimeout := &url.Error{Op: "Post", URL: "https://x/v1/pets", Err: &net.OpError{Op: "dial", Err: timeoutErr{}}}
	reset := &url.Error{Op: "Post", URL: "https://x/v1/pets", Err: &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}}
	eof := &url.Error{Op: "Post", URL: "https://x/v1/pets", Err: io.ErrUnexpectedEOF}
	deadline := fmt.Errorf("attempt: %w", context.DeadlineExceeded)
	notRetryable := fmt.Errorf("too big: %w", ErrNotRetryable)
	cert := &url.Error{Op: "Get", URL: "https://x/v1/pets", Err: x509.UnknownAuthorityError{}}
	tests := []struct {
		name                string
		err                 error
		wantGet, wantCreate bool
	}{
		{"dial refused", dial, true, true},
		{"dns", dns, true, true},
		{"dial timeout", dialTimeout, true, false},
		{"reset after sending", reset, true, false},
		{"truncated body", eof, true, false},
		{"attempt deadline", deadline, true, false},
		{"not retryable", notRetryable, false, false},
		{"bad certificate", cert, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []struct {
				idempotent bool
				want       bool
			}{{true, tc.wantGet}, {false, tc.wantCreate}} {
				got, err := Policy(c.idempotent, time.Minute)(context.Background(), nil, tc.err)
				if got != c.want || err != nil {
					t.Errorf("Policy(idempotent=%v)(%v) = %v, %v; want %v, nil", c.idempotent, tc.err, got, err, c.want)
				}
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string { return "i/o timeout" }
func (timeoutErr) Timeout() bool { return true }

func TestPolicyWhenContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		resp    *http.Response
		err     error
		wantErr error
	}{
		{"retryable status: not retried, the context's error", response(429, ""), nil, context.Canceled},
		{"transport error: the context's error", nil, fmt.Errorf("read: %w", context.Canceled), context.Canceled},
		{"a 201 is still the answer", response(201, ""), nil, nil},
		{"a 404 is still the answer", response(404, ""), nil, nil},
	}
	for _, tc := range tests {
		for _, idempotent := range []bool{true, false} {
			got, err := Policy(idempotent, time.Minute)(ctx, tc.resp, tc.err)
			if got || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("%s (idempotent=%v): Policy = %v, %v; want false, %v", tc.name, idempotent, got, err, tc.wantErr)
			}
		}
	}
}

func TestBackoff(t *testing.T) {
	min, max := 100*time.Millisecond, time.Second
	for attempt, base := range []time.Duration{100, 200, 400, 800, 1000, 1000, 1000} {
		base *= time.Millisecond
		hi := base + base/2
		if hi > max {
			hi = max
		}
		seen := map[time.Duration]bool{}
		for i := 0; i < 200; i++ {
			got := Backoff(min, max, attempt, response(500, ""))
			if got < base || got > hi {
				t.Fatalf("Backoff(attempt %d) = %v; want in [%v, %v]", attempt, got, base, hi)
			}
			seen[got] = true
		}
		if hi > base && len(seen) < 10 {
			t.Errorf("Backoff(attempt %d): %d distinct waits in 200; want jitter", attempt, len(seen))
		}
	}
	// Large attempt numbers must not overflow.
	if got := Backoff(min, max, 1000, nil); got != max {
		t.Errorf("Backoff(attempt 1000) = %v; want %v", got, max)
	}
	if got := Backoff(0, 0, 3, nil); got != 0 {
		t.Errorf("Backoff(0, 0) = %v; want 0", got)
	}
}

func TestBackoffUsesRetryAfter(t *testing.T) {
	tests := []struct {
		resp *http.Response
		want time.Duration
	}{
		{response(429, "2"), 2 * time.Second},
		{response(503, "0"), 0},
		{response(429, "60"), 5 * time.Second}, // capped at max
	}
	for _, tc := range tests {
		if got := Backoff(time.Second, 5*time.Second, 0, tc.resp); got != tc.want {
			t.Errorf("Backoff with Retry-After %q = %v; want %v", tc.resp.Header.Get("Retry-After"), got, tc.want)
		}
	}
	// Retry-After on another status is ignored: the computed wait is used.
	if got := Backoff(time.Second, 5*time.Second, 0, response(500, "3")); got < time.Second || got > 1500*time.Millisecond {
		t.Errorf("Backoff on a 500 with Retry-After 3 = %v; want the computed wait, in [1s, 1.5s]", got)
	}
}
