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
			if got := Retryable(idempotent, time.Minute, response(status, ""), nil, RetryAfter{}); got != want {
				t.Errorf("Retryable(idempotent=%v) on %d = %v; want %v", idempotent, status, got, want)
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
		call := new(Call)
		call.ended(response(tc.status, tc.retryAfter), nil)
		if got, _, _ := p.decide(context.Background(), call); got != tc.want {
			t.Errorf("%d with Retry-After %q: got %v; want %v", tc.status, tc.retryAfter, got, tc.want)
		}
	}
}

// TestCallRetryAfter: the Call keeps the Retry-After of a response
// that is not 2xx, whatever its status, for the APIError; a 2xx's is not
// read.
func TestCallRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status     int
		retryAfter string
		want       RetryAfter
	}{
		{429, "5", RetryAfter{5 * time.Second, true}},
		{500, "7", RetryAfter{7 * time.Second, true}},
		{400, "", RetryAfter{}},
		{503, "soon", RetryAfter{}},
		{200, "5", RetryAfter{}},
	}
	for _, tc := range tests {
		call := new(Call)
		call.ended(response(tc.status, tc.retryAfter), nil)
		if got := call.RetryAfter(); got != tc.want {
			t.Errorf("%d with Retry-After %q: RetryAfter() = %+v; want %+v", tc.status, tc.retryAfter, got, tc.want)
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
			t.Parallel()
			for _, c := range []struct {
				idempotent bool
				want       bool
			}{{true, tc.wantGet}, {false, tc.wantCreate}} {
				if got := Retryable(c.idempotent, time.Minute, nil, tc.err, RetryAfter{}); got != c.want {
					t.Errorf("Retryable(idempotent=%v)(%v) = %v; want %v", c.idempotent, tc.err, got, c.want)
				}
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string { return "i/o timeout" }
func (timeoutErr) Timeout() bool { return true }

// callCtx is a context that carries a Call, as the SDK's requests do.
type callCtx struct {
	context.Context
	call Call
}

func (c *callCtx) RetryCall() *Call { return &c.call }

func withCall(ctx context.Context) *callCtx { return &callCtx{Context: ctx} }

func TestCheckRetryWhenContextDone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		resp        *http.Response
		err         error
		wantErr     error
		wantPending bool // the call keeps the outcome it was to retry
	}{
		{"retryable status: not retried, the context's error", response(429, ""), nil, context.Canceled, true},
		{"transport error: the context's error", nil, fmt.Errorf("read: %w", context.Canceled), context.Canceled, false},
		{"a 201 is still the answer", response(201, ""), nil, nil, false},
		{"a 404 is still the answer", response(404, ""), nil, nil, false},
	}
	for _, tc := range tests {
		for _, idempotent := range []bool{true, false} {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			cc := withCall(ctx)
			p := Policy{Idempotent: idempotent, MaxRetries: 2, MaxWait: time.Minute}
			got, err := p.CheckRetry(cc, tc.resp, tc.err)
			if got || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("%s (idempotent=%v): CheckRetry = %v, %v; want false, %v", tc.name, idempotent, got, err, tc.wantErr)
			}
			if resp, _, pending := cc.call.Interrupted(); pending != tc.wantPending || resp != tc.resp {
				t.Errorf("%s (idempotent=%v): Interrupted = %v, %v", tc.name, idempotent, resp, pending)
			}
		}
	}
}

func TestCheckRetryCountsAttempts(t *testing.T) {
	t.Parallel()
	for _, max := range []int{0, 1, 3} {
		cc := withCall(context.Background())
		p := Policy{Idempotent: true, MaxRetries: max, MaxWait: time.Minute}
		retries := 0
		for {
			again, err := p.CheckRetry(cc, response(503, ""), nil)
			if err != nil {
				t.Fatalf("MaxRetries %d: CheckRetry: %v", max, err)
			}
			if !again {
				break
			}
			retries++
			if retries > max {
				t.Fatalf("MaxRetries %d: still retrying after %d retries", max, retries)
			}
		}
		if retries != max || cc.call.Attempts() != max+1 {
			t.Errorf("MaxRetries %d: %d retries, %d attempts; want %d, %d", max, retries, cc.call.Attempts(), max, max+1)
		}
	}
}

// TestCheckRetryWaitsOnlyWithinTheDeadline: a wait that would end after
// the context's deadline is not started; the last outcome is the answer.
func TestCheckRetryWaitsOnlyWithinTheDeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    Policy
		resp *http.Response
		err  error
	}{
		{"computed wait", Policy{Idempotent: true, MaxRetries: 2, MinWait: time.Hour, MaxWait: time.Hour}, response(503, ""), nil},
		{"Retry-After within MaxWait", Policy{Idempotent: true, MaxRetries: 2, MinWait: 0, MaxWait: 2 * time.Hour}, response(503, "3600"), nil},
		{"transport error", Policy{Idempotent: true, MaxRetries: 2, MinWait: time.Hour, MaxWait: time.Hour}, nil, io.ErrUnexpectedEOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cc := withCall(ctx)
			done := make(chan struct{})
			var again bool
			var err error
			go func() { defer close(done); again, err = tc.p.CheckRetry(cc, tc.resp, tc.err) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second): // half the deadline: it waited
				t.Fatal("CheckRetry started a wait that ends after the deadline")
			}
			if again || err != nil {
				t.Errorf("CheckRetry = %v, %v; want false, nil (the last outcome is the answer)", again, err)
			}
			if _, _, pending := cc.call.Interrupted(); pending {
				t.Error("Interrupted reports a pending retry; want none")
			}
		})
	}
}

// TestCheckRetryInterruptedWait: when the context ends during a wait, the
// call keeps the outcome it was waiting to retry.
func TestCheckRetryInterruptedWait(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		resp *http.Response
		err  error
	}{
		{"response", response(503, ""), nil},
		{"transport error", nil, io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			cc := withCall(ctx)
			p := Policy{Idempotent: true, MaxRetries: 2, MinWait: time.Hour, MaxWait: time.Hour}
			done := make(chan struct{})
			var again bool
			var err error
			go func() { defer close(done); again, err = p.CheckRetry(cc, tc.resp, tc.err) }()
			cancel() // before or during the wait: the same outcome
			<-done
			if again || !errors.Is(err, context.Canceled) {
				t.Errorf("CheckRetry = %v, %v; want false, context.Canceled", again, err)
			}
			resp, lastErr, pending := cc.call.Interrupted()
			if !pending || resp != tc.resp || lastErr != tc.err {
				t.Errorf("Interrupted = %v, %v, %v; want %v, %v, true", resp, lastErr, pending, tc.resp, tc.err)
			}
		})
	}
}

// TestCheckRetryWithoutCall: a context without a Call still gets an answer.
func TestCheckRetryWithoutCall(t *testing.T) {
	t.Parallel()
	p := Policy{Idempotent: true, MaxRetries: 2, MaxWait: time.Minute}
	if again, err := p.CheckRetry(context.Background(), response(503, ""), nil); !again || err != nil {
		t.Errorf("CheckRetry = %v, %v; want true, nil", again, err)
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
			got := Backoff(min, max, attempt, RetryAfter{})
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
	if got := Backoff(min, max, 1000, RetryAfter{}); got != max {
		t.Errorf("Backoff(attempt 1000) = %v; want %v", got, max)
	}
	if got := Backoff(0, 0, 3, RetryAfter{}); got != 0 {
		t.Errorf("Backoff(0, 0) = %v; want 0", got)
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
		if got := Backoff(time.Second, 5*time.Second, 0, tc.asked); got != tc.want {
			t.Errorf("Backoff with Retry-After %v = %v; want %v", tc.asked.Wait, got, tc.want)
		}
	}
	// Retry-After on another status is ignored: the computed wait is used.
	p := Policy{Idempotent: true, MaxRetries: 2, MinWait: time.Second, MaxWait: 5 * time.Second}
	call := new(Call)
	call.ended(response(500, "3"), nil)
	if again, got, _ := p.decide(context.Background(), call); !again || got < time.Second || got > 1500*time.Millisecond {
		t.Errorf("decide on a 500 with Retry-After 3 = %v, %v; want true and the computed wait, in [1s, 1.5s]", again, got)
	}
}
