package transport

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
)

// attempt is one attempt of a call. Its context (ctx), every send's, is made
// with context.WithTimeoutCause under the call's (a RoundTripper sees the
// earlier deadline, DeadlineExceeded, a *timeoutError as cause) and carries
// the attempt's httptrace.ClientTrace, over a caller's: the gate's (gate.go).
type attempt struct {
	call   context.Context // the call's context
	ctx    context.Context // the attempt's
	cancel context.CancelFunc
	base   http.RoundTripper
	body   []byte // the request's body; nil: none
	trace  httptrace.ClientTrace

	bounded  bool // a bare *http.Transport: its context bounds a body's read (not a 101's), its trace reports every connection
	plain    bool // the request's scheme is http
	mu       sync.Mutex
	conn     net.Conn  // of the last send
	sends    int       // sends that got a connection (GotConn)
	wrote    bool      // the last send wrote its headers
	failed   bool      // the last send's write failed (WroteRequest)
	mayHave  int       // sends that may have been processed (see again)
	before   int       // sends counted before the SDK's last RoundTrip
	cur      *sendBody // the body of the SDK's last send; written by again only
	stopped  error     // errResent or errBound, once the gate stopped a send
	answered bool      // the base has returned: what the trace reports now is not the attempt's
}

// newAttempt starts an attempt of t, under the call's context, through base.
func newAttempt(t *Transport, call context.Context, base http.RoundTripper, body []byte, scheme string) *attempt {
	a := &attempt{call: call, base: base, body: body, plain: scheme == "http"}
	var ctx context.Context
	if t.Timeout > 0 {
		ctx, a.cancel = context.WithTimeoutCause(call, t.Timeout, t.timeout)
	} else {
		ctx, a.cancel = context.WithCancel(call)
	}
	a.trace.GotConn, a.trace.WroteHeaders, a.trace.WroteRequest = a.gotConn, a.wroteHeaders, a.wroteRequest
	a.ctx = httptrace.WithClientTrace(ctx, &a.trace)
	_, a.bounded = base.(*http.Transport)
	if body != nil {
		a.cur = &sendBody{data: body}
	}
	return a
}

// send sends req with header and the attempt's body, and again while the
// gate says so (see again); it returns the last send's response or error.
func (a *attempt) send(req *http.Request, header http.Header) (*http.Response, error) {
	for {
		r := req.WithContext(a.ctx)
		r.Header = header
		r.Body, r.GetBody, r.ContentLength = nil, nil, 0
		b := a.cur
		if b != nil {
			r.Body, r.ContentLength = b, int64(len(a.body))
		}
		resp, err := a.base.RoundTrip(r)
		switch {
		case err == nil && resp == nil:
			err = errNoResponse
		case err == nil:
			a.mu.Lock()
			a.answered = true
			a.mu.Unlock()
			return resp, nil
		case resp != nil && resp.Body != nil:
			resp.Body.Close() // a RoundTripper that broke its contract
		}
		if !a.again(err, b) || !a.pause() {
			return nil, err
		}
	}
}

// failure returns whether a send of an attempt that failed with err may have
// been processed (Result.Reached), and its error: the call's context's, a
// *timeoutError, the gate's, or err in the SDK's words.
func (a *attempt) failure(err error) (bool, error) {
	a.mu.Lock()
	stopped, reached := a.stopped, a.mayHave > 0
	a.mu.Unlock()
	switch callErr := a.call.Err(); {
	case callErr != nil && errors.Is(err, callErr):
		return reached, err
	case callErr != nil:
		return reached, callErr // net/http may return a cause the caller gave, which matches no context error
	case errors.Is(a.ctx.Err(), context.DeadlineExceeded):
		return reached, context.Cause(a.ctx) // the Transport's timeoutError
	case stopped != nil:
		return reached, stopped
	}
	return reached, ownWords(err)
}
