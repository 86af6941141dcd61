package transport

// One attempt: its context, its sends, and what they came to.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
)

// attempt is one attempt of a call. Its context (ctx) is the context of
// every request it sends: made with context.WithTimeoutCause under the
// call's context, so that a RoundTripper sees the attempt's deadline (the
// earlier of the call's and the attempt's), an Err of DeadlineExceeded
// once the attempt's time has run out, and a *TimeoutError as its cause;
// with the attempt's httptrace.ClientTrace added (httptrace.WithClientTrace,
// which keeps a trace of the caller's too), through which the attempt
// counts what net/http sends (see resend.go).
//
// Its context ends when the attempt does (end), which stops net/http's
// work on it.
type attempt struct {
	t      *Transport
	call   context.Context // the call's context
	ctx    context.Context // the attempt's
	cancel context.CancelFunc
	base   http.RoundTripper
	body   []byte // the request's body; nil: none
	trace  httptrace.ClientTrace

	// bounded: the base is net/http's *http.Transport, whose request
	// context bounds the read of a response's body (Request.Context's
	// documentation), but for a 101's (see read).
	bounded bool
	// http1: the request has a body and can go only over HTTP/1 (plain
	// http through an *http.Transport not set up for unencrypted HTTP/2):
	// it carries a GetBody, so that net/http sends it again after a
	// kept-alive connection failed before any byte of it was written
	// (see getBody). Otherwise it has none (see resend): over HTTP/2
	// net/http would call it after a reset that may follow processing;
	// the attempt itself sends again a request whose HTTP/1 write failed
	// (see unsent).
	http1 bool

	mu         sync.Mutex
	conn       net.Conn // of the last send
	sends      int      // GotConn calls
	written    int      // sends that wrote their headers
	wrote      bool     // the last send wrote its headers, and nothing shows that the server dropped it
	unproven   int      // earlier sends of which the same holds
	lastProven bool     // the last send failed in a way that shows the server dropped it unread
	stopped    bool     // a third send was stopped (see gotConn)
	answered   bool     // the base has returned: what the trace reports now is not the attempt's
}

// newAttempt starts an attempt of t under the call's context call, through
// base, of a request whose body is body.
func newAttempt(t *Transport, call context.Context, base http.RoundTripper, body []byte, scheme string) *attempt {
	a := &attempt{t: t, call: call, base: base, body: body}
	var ctx context.Context
	if t.Timeout > 0 {
		ctx, a.cancel = context.WithTimeoutCause(call, t.Timeout, t.timeout)
	} else {
		ctx, a.cancel = context.WithCancel(call)
	}
	a.trace.GotConn, a.trace.WroteHeaders = a.gotConn, a.wroteHeaders
	a.ctx = httptrace.WithClientTrace(ctx, &a.trace)
	var nt *http.Transport
	nt, a.bounded = base.(*http.Transport)
	a.http1 = body != nil && a.bounded && scheme == "http" && !plainHTTP2(nt)
	return a
}

// end ends the attempt's context: net/http's work on its requests stops.
func (a *attempt) end() { a.cancel() }

// send sends req with header and the attempt's body, and a second time at
// once when the first send failed in a way that shows the server dropped
// it unread (see resend); it returns the last send's response or error.
func (a *attempt) send(req *http.Request, header http.Header) (*http.Response, error) {
	for i := 0; ; i++ {
		resp, err := a.base.RoundTrip(a.request(req, header))
		a.settle()
		switch {
		case err == nil && resp == nil:
			err = errNoResponse
		case err == nil:
			return resp, nil
		case resp != nil && resp.Body != nil:
			resp.Body.Close() // a RoundTripper that broke its contract
		}
		if !a.resend(err) || i > 0 {
			return nil, err
		}
	}
}

// request returns the request of one send: a copy of req, with the
// attempt's context, header and a body of its own.
func (a *attempt) request(req *http.Request, header http.Header) *http.Request {
	r := req.WithContext(a.ctx)
	r.Header = header
	r.Body, r.GetBody, r.ContentLength = nil, nil, 0
	if a.body != nil {
		r.Body, r.ContentLength = newBody(a.body), int64(len(a.body))
		if a.http1 {
			r.GetBody = a.getBody
		}
	}
	return r
}

// newBody returns a body that reads data, which nothing may write to.
// A *bytes.Reader, which net/http knows to be in memory: over HTTP/1 it
// writes such a body with the headers, where it flushes the headers of any
// other first, in a write of their own.
func newBody(data []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(data)) }

// failure returns the error of an attempt that failed with err: the
// call's context's error if it has ended, a *TimeoutError if the attempt's
// time ran out, errResentTwice if a third send was stopped, else err.
func (a *attempt) failure(err error) error {
	a.mu.Lock()
	stopped := a.stopped
	a.mu.Unlock()
	switch callErr := a.call.Err(); {
	case callErr != nil && errors.Is(err, callErr):
		return err
	case callErr != nil:
		return callErr // net/http may return a cause the caller gave, which matches no context error
	case errors.Is(a.ctx.Err(), context.DeadlineExceeded):
		return a.t.timeoutError()
	case stopped:
		return errResentTwice
	}
	return err
}

// timeoutError is the error of an attempt that ran out of time.
func (t *Transport) timeoutError() error {
	if t.timeout == nil { // a Transport not made by New
		return &TimeoutError{Limit: t.Timeout, Source: t.Source}
	}
	return t.timeout
}

// reached reports whether the request of an attempt that failed with err
// may have reached the server and been processed: a send wrote its
// headers, and nothing showed that the server dropped it unread; or, through
// a RoundTripper other than net/http's that reported no send through the
// trace, anything but a failed dial.
func (a *attempt) reached(err error) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sends == 0 && !a.bounded {
		return !IsDialError(err)
	}
	return a.wrote || a.unproven > 0
}

// refused reports whether every send was dropped unread by the server:
// the last one failed in a way that shows it, or was stopped before it
// wrote anything (see gotConn), and none before it may have reached the
// server.
func (a *attempt) refused() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return (a.lastProven || a.stopped) && !a.wrote && a.unproven == 0
}
