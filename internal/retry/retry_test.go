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

	"github.com/petstore/petstore-go/internal/transport"
)

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
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
		got, ok := parseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}

// response is the Result of an attempt that got status, with a
// Retry-After header if retryAfter is not empty.
func response(status int, retryAfter string) *transport.Result {
	h := http.Header{}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	return &transport.Result{Status: int32(status), Header: h}
}

// decide is p.Decide of attempt n that ended with r, with r's Retry-After
// read as the call reads it.
func decide(ctx context.Context, p Policy, n int, r *transport.Result) Decision {
	return p.Decide(ctx, n, r, FromHeader(r.Header, time.Now()))
}

// failed is the Result of an attempt that got no response.
func failed(err error) *transport.Result { return &transport.Result{Err: err} }

func TestPolicyStatuses(t *testing.T) {
	t.Parallel()
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
			if got := retryableOutcome(idempotent, time.Minute, status, nil, RetryAfter{}); got != want {
				t.Errorf("retryableOutcome(idempotent=%v) on %d = %v; want %v", idempotent, status, got, want)
			}
			if got := RetryableStatus(idempotent, status); got != want {
				t.Errorf("RetryableStatus(%v, %d) = %v; want %v", idempotent, status, got, want)
			}
		}
	}
}

func TestPolicyRetryAfterOverMax(t *testing.T) {
	t.Parallel()
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
		p := Policy{Idempotent: true, MaxRetries: 2, MaxWait: 10 * time.Second}
		if got := decide(context.Background(), p, 1, response(tc.status, tc.retryAfter)).Retry; got != tc.want {
			t.Errorf("%d with Retry-After %q: got %v; want %v", tc.status, tc.retryAfter, got, tc.want)
		}
	}
}

func TestPolicyErrors(t *testing.T) {
	t.Parallel()
	dial := &url.Error{Op: "Post", URL: "https://x/v1/pets", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}
	dns := &url.Error{Op: "Post", URL: "https://x/v1/pets", Err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x"}}}
	dialTimeout := &url.Error{Op: "Post", URL: "https://x/v1/pets", Err: &net.OpError{Op: "dial", Err: timeoutErr{}}}
	reset := &url.Error{Op: "Post", URL: "https://x/v1/pets", Err: &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}}
	eof := &url.Error{Op: "Post", URL: "https://x/v1/pets", Err: io.ErrUnexpectedEOF}
	deadline := fmt.Errorf("attempt: %w", context.DeadlineExceeded)
	cert := &url.Error{Op: "Get", URL: "https://x/v1/pets", Err: x509.UnknownAuthorityError{}}
	refused := errors.New("stream error: stream ID 1; REFUSED_STREAM; received from peer")
	tests := []struct {
		name                string
		r                   *transport.Result
		wantGet, wantCreate bool
	}{
		{"dial refused", &transport.Result{Err: dial, Refused: true}, true, true},
		{"dns", &transport.Result{Err: dns, Refused: true}, true, true},
		{"dial refused after a send that may have been processed", &transport.Result{Err: dial, Reached: true}, true, false},
		{"dial timeout", failed(dialTimeout), true, false},
		{"reset after sending", failed(reset), true, false},
		{"truncated body", failed(eof), true, false},
		{"attempt deadline", failed(deadline), true, false},
		{"bad certificate", failed(cert), false, false},
		{"bad certificate, nothing sent", &transport.Result{Err: cert, Refused: true}, false, false},
		{"body too large", failed(transport.ErrBodyTooLarge), false, false},
		{"every send refused by the server", &transport.Result{Err: refused, Refused: true}, true, true},
		{"refused, then the attempt's time ran out", &transport.Result{Err: deadline, Refused: true}, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, idempotent := range []bool{true, false} {
				want := tc.wantCreate
				if idempotent {
					want = tc.wantGet
				}
				p := Policy{Idempotent: idempotent, MaxRetries: 2, MaxWait: time.Minute}
				if got := decide(context.Background(), p, 1, tc.r).Retry; got != want {
					t.Errorf("Decide(idempotent=%v)(%v).Retry = %v; want %v", idempotent, tc.r.Err, got, want)
				}
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string { return "i/o timeout" }
func (timeoutErr) Timeout() bool { return true }

// TestDecideWhenContextDone: nothing is retried once the context has
// ended; an outcome that was to be retried is marked Interrupted (the
// call's error then carries it), unless it is the context's own error.
func TestDecideWhenContextDone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		r               *transport.Result
		wantInterrupted bool
	}{
		{"retryable status", response(429, ""), true},
		{"transport error", failed(io.ErrUnexpectedEOF), true},
		{"the context's error", failed(fmt.Errorf("read: %w", context.Canceled)), false},
		{"a 201 is the answer", response(201, ""), false},
		{"a 404 is the answer", response(404, ""), false},
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range tests {
		p := Policy{Idempotent: true, MaxRetries: 2, MaxWait: time.Minute}
		d := decide(ctx, p, 1, tc.r)
		if d.Retry || d.Interrupted != tc.wantInterrupted {
			t.Errorf("%s: Decide = %+v; want no retry, Interrupted %v", tc.name, d, tc.wantInterrupted)
		}
	}
}

func TestDecideCountsAttempts(t *testing.T) {
	t.Parallel()
	for _, max := range []int{0, 1, 3} {
		p := Policy{Idempotent: true, MaxRetries: max, MaxWait: time.Minute}
		retries := 0
		for n := 1; decide(context.Background(), p, n, response(503, "")).Retry; n++ {
			retries++
			if retries > max {
				t.Fatalf("MaxRetries %d: still retrying after %d retries", max, retries)
			}
		}
		if retries != max {
			t.Errorf("MaxRetries %d: %d retries", max, retries)
		}
	}
}

// TestDecideWaitsOnlyWithinTheDeadline: a wait that would end after the
// context's deadline is not decided; the last outcome is the answer.
func TestDecideWaitsOnlyWithinTheDeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    Policy
		r    *transport.Result
	}{
		{"computed wait", Policy{Idempotent: true, MaxRetries: 2, MinWait: time.Hour, MaxWait: time.Hour}, response(503, "")},
		{"Retry-After within MaxWait", Policy{Idempotent: true, MaxRetries: 2, MinWait: 0, MaxWait: 2 * time.Hour}, response(503, "3600")},
		{"transport error", Policy{Idempotent: true, MaxRetries: 2, MinWait: time.Hour, MaxWait: time.Hour}, failed(io.ErrUnexpectedEOF)},
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range tests {
		if d := decide(ctx, tc.p, 1, tc.r); d.Retry || d.Interrupted {
			t.Errorf("%s: Decide = %+v; want no retry (the last outcome is the answer)", tc.name, d)
		}
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	min, max := 100*time.Millisecond, time.Second
	for attempt, base := range []time.Duration{100, 200, 400, 800, 1000, 1000, 1000} {
		base *= time.Millisecond
		hi := base + base/2
		if hi > max {
			hi = max
		}
		seen := map[time.Duration]bool{}
		for i := 0; i < 200; i++ {
			got := backoff(min, max, attempt, RetryAfter{})
			if got < base || got > hi {
				t.Fatalf("backoff(attempt %d) = %v; want in [%v, %v]", attempt, got, base, hi)
			}
			seen[got] = true
		}
		if hi > base && len(seen) < 10 {
			t.Errorf("backoff(attempt %d): %d distinct waits in 200; want jitter", attempt, len(seen))
		}
	}
	// Large attempt numbers must not overflow.
	if got := backoff(min, max, 1000, RetryAfter{}); got != max {
		t.Errorf("backoff(attempt 1000) = %v; want %v", got, max)
	}
	if got := backoff(0, 0, 3, RetryAfter{}); got != 0 {
		t.Errorf("backoff(0, 0) = %v; want 0", got)
	}
}

func TestBackoffUsesRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		asked RetryAfter
		want  time.Duration
	}{
		{RetryAfter{2 * time.Second, true}, 2 * time.Second},
		{RetryAfter{0, true}, 0},
		{RetryAfter{60 * time.Second, true}, 5 * time.Second}, // capped at max
	}
	for _, tc := range tests {
		if got := backoff(time.Second, 5*time.Second, 0, tc.asked); got != tc.want {
			t.Errorf("Backoff with Retry-After %v = %v; want %v", tc.asked.Wait, got, tc.want)
		}
	}
	// Retry-After on another status is ignored: the computed wait is used.
	p := Policy{Idempotent: true, MaxRetries: 2, MinWait: time.Second, MaxWait: 5 * time.Second}
	if d := decide(context.Background(), p, 1, response(500, "3")); !d.Retry || d.Wait < time.Second || d.Wait > 1500*time.Millisecond {
		t.Errorf("Decide on a 500 with Retry-After 3 = %+v; want a retry after the computed wait, in [1s, 1.5s]", d)
	}
}
