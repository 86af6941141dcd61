package transport

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"testing"
	"time"
)

// ctxSeen is what a RoundTripper saw of its request's context once it
// ended.
type ctxSeen struct {
	Deadline    time.Time
	HasDeadline bool
	Err         error
	Cause       error
}

// seeCtx waits for ctx to end and returns what it shows.
func seeCtx(ctx context.Context) ctxSeen {
	<-ctx.Done()
	d, ok := ctx.Deadline()
	return ctxSeen{Deadline: d, HasDeadline: ok, Err: ctx.Err(), Cause: context.Cause(ctx)}
}

// TestAttemptContext: the context of an attempt's request, as a
// RoundTripper (or an *http.Transport's Proxy function) sees it: its
// deadline is the earlier of the call's and the attempt's; once the
// attempt's time has run out, its Err is DeadlineExceeded and its cause
// the attempt's *timeoutError; once the call's context ends, the call's.
func TestAttemptContext(t *testing.T) {
	t.Parallel()
	const limit = 50 * time.Millisecond
	far := time.Now().Add(time.Hour)
	errCaller := errors.New("the caller's cause")
	tests := []struct {
		name    string
		timeout time.Duration
		call    func() (context.Context, context.CancelFunc) // the call's context
		want    func(call context.Context, start time.Time, got ctxSeen) string
	}{
		{"attempt's time runs out", limit, func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), far)
		}, func(_ context.Context, start time.Time, got ctxSeen) string {
			if !got.HasDeadline || got.Deadline.After(start.Add(limit+time.Second)) || got.Deadline.Before(start.Add(limit)) {
				return "deadline " + got.Deadline.String() + "; want the attempt's"
			}
			var te *timeoutError
			if got.Err != context.DeadlineExceeded || !errors.As(got.Cause, &te) || te.Limit != limit {
				return "Err " + errString(got.Err) + ", cause " + errString(got.Cause) + "; want DeadlineExceeded, the attempt's *timeoutError"
			}
			return ""
		}},
		{"call's deadline first", time.Hour, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), limit)
		}, func(call context.Context, _ time.Time, got ctxSeen) string {
			if d, _ := call.Deadline(); !got.HasDeadline || !got.Deadline.Equal(d) {
				return "deadline " + got.Deadline.String() + "; want the call's"
			}
			if got.Err != context.DeadlineExceeded || got.Cause != context.DeadlineExceeded {
				return "Err " + errString(got.Err) + ", cause " + errString(got.Cause) + "; want DeadlineExceeded twice"
			}
			return ""
		}},
		{"call canceled with a cause", time.Hour, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancelCause(context.Background())
			return ctx, func() { cancel(errCaller) }
		}, func(_ context.Context, _ time.Time, got ctxSeen) string {
			if got.Err != context.Canceled || got.Cause != errCaller {
				return "Err " + errString(got.Err) + ", cause " + errString(got.Cause) + "; want Canceled, the caller's cause"
			}
			return ""
		}},
	}
	for _, tc := range tests {
		for _, through := range []string{"RoundTripper", "Proxy function"} {
			t.Run(tc.name+", "+through, func(t *testing.T) {
				t.Parallel()
				call, cancel := tc.call()
				defer cancel()
				seen := make(chan ctxSeen, 1)
				out := make(chan struct{})
				var base http.RoundTripper = roundTripFunc(func(req *http.Request) (*http.Response, error) {
					close(out)
					seen <- seeCtx(req.Context())
					return nil, req.Context().Err()
				})
				if through == "Proxy function" {
					tr := &http.Transport{Proxy: func(req *http.Request) (*url.URL, error) {
						close(out)
						seen <- seeCtx(req.Context())
						return nil, req.Context().Err()
					}}
					defer tr.CloseIdleConnections()
					base = tr
				}
				if tc.name == "call canceled with a cause" {
					go func() { <-out; cancel() }()
				}
				tr := New(Transport{User: &http.Client{Transport: base}, Timeout: tc.timeout, Source: "test"})
				start := time.Now()
				r := get(call, tr, "http://petstore.test")
				if problem := tc.want(call, start, <-seen); problem != "" {
					t.Error(problem)
				}
				if r.Err == nil {
					t.Error("the attempt succeeded")
				}
			})
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestAttemptTrace: an attempt's trace is added to the request's context
// the documented way, over a trace of the caller's: both hear of the send.
func TestAttemptTrace(t *testing.T) {
	t.Parallel()
	var callers int
	call := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { callers++ },
	})
	var a *attempt
	rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		trace := httptrace.ContextClientTrace(req.Context())
		if trace == nil || trace.GotConn == nil {
			t.Fatal("no trace in the request's context")
		}
		trace.GotConn(httptrace.GotConnInfo{})
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	})
	a = newAttempt(New(Transport{}), call, rt, nil, "https")
	defer a.cancel()
	req, _ := http.NewRequestWithContext(call, http.MethodGet, "https://petstore.test/v1/pets", nil)
	if _, err := a.send(req, http.Header{}); err != nil {
		t.Fatal(err)
	}
	if callers != 1 || a.sends != 1 {
		t.Errorf("after one GotConn: the caller's hook ran %d times, the attempt counted %d sends; want 1 and 1", callers, a.sends)
	}
}
