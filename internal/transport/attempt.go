package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"reflect"
	"sync"
	"time"
)

// attempt is one attempt of a call, and the context of its request: a child
// of the call's context that ends when the attempt's time runs out, the
// trace that watches what net/http sends within the attempt, and the buffer
// its body is read into, in one allocation.
//
// It ends the attempt when its time runs out or the call's context ends: it
// cancels the context (so that net/http stops dialling or waiting) and closes
// the body being read, whatever the transport does with the context.
// net/http, for one, stops watching it once it hands over the body of a 101
// Switching Protocols; a RoundTripper may never watch it.
//
// Its timer and mutex are made by hand rather than with
// context.WithTimeoutCause and a context.AfterFunc that closes the body:
// those cost six allocations and about 580 bytes more per call, which put
// the SDK over its cost budget.
type attempt struct {
	context.Context                         // a child of the call's context, ended by cancel
	cancel          context.CancelCauseFunc // with the cause of the attempt's end
	timer           *time.Timer             // nil without a timeout
	trace           httptrace.ClientTrace   // what Value returns for httptrace's key, unless composed
	composed        bool                    // trace is in a context of httptrace's, over the caller's trace
	buf             bufferedBody            // the response body, once read (readAsync's goroutine reads into it)

	t     *Transport                    // that sends the request; nil in tests of the attempt alone
	body0 func() (io.ReadCloser, error) // the request's own GetBody (see getBody)

	mu      sync.Mutex
	conn    net.Conn  // of the last request net/http began to send
	body    io.Closer // the body being read
	tries   int32     // requests net/http began to send (GotConn calls)
	refused refusal   // why a resend was refused (see gotConn)
	reused  bool      // the last request's connection had served others before
	sent    bool      // the last request may have reached the server (its headers were written)
	ended   bool      // the attempt has ended: a body is closed at once
	expired bool      // its time ran out
}

// Causes of an attempt's context's end, other than the call's.
var (
	errAttemptTimeout = errors.New("attempt timed out")
	errAttemptDone    = errors.New("attempt done")
	errBodyRead       = errors.New("response body read")
)

// newAttempt starts an attempt whose context is a child of parent, and which
// ends after timeout (0: only when parent ends).
func newAttempt(parent context.Context, timeout time.Duration) *attempt {
	a := new(attempt)
	a.Context, a.cancel = context.WithCancelCause(parent)
	a.trace.GotConn = a.gotConn
	a.trace.WroteHeaders = a.wroteHeaders
	if timeout > 0 {
		a.timer = time.AfterFunc(timeout, a.timeUp)
	}
	return a
}

// Value returns the attempt's trace for httptrace's key, so that the
// attempt is a context with a ClientTrace without another allocation, and
// else what the parent holds. A trace that another layer adds on top (such
// as otelhttp's) finds it and calls it as well.
func (a *attempt) Value(key any) any {
	if key == traceKey && traceKey != nil && !a.composed {
		return &a.trace
	}
	return a.Context.Value(key)
}

// traceKey is the key under which httptrace.ContextClientTrace looks up a
// context's ClientTrace. The key's type is not exported, so it is learnt
// once, by asking httptrace.WithClientTrace to look up the trace of a
// context that records the key it is asked for. Should that ever find
// nothing, wrapTrace adds the trace the documented way instead.
var traceKey = func() any {
	var k keyRecorder
	httptrace.WithClientTrace(&k, &httptrace.ClientTrace{})
	return k.key
}()

type keyRecorder struct {
	context.Context
	key any
}

func (k *keyRecorder) Value(key any) any {
	if k.key == nil {
		k.key = key
	}
	return nil
}

// ctx returns the context of the attempt's request: the attempt itself, or,
// should traceKey be unknown or the caller's context hold a ClientTrace of
// its own, the attempt with its trace added by httptrace, which calls the
// caller's hooks too.
func (a *attempt) ctx() context.Context {
	if traceKey != nil && httptrace.ContextClientTrace(a.Context) == nil {
		return a
	}
	a.composed = true // Value leaves the trace to httptrace's context
	return httptrace.WithClientTrace(a, &a.trace)
}

// gotConn runs each time net/http begins to send the attempt's request on
// a connection (httptrace's GotConn): once, and again whenever net/http
// resends it within the attempt. One resend is allowed, and only when the
// server cannot have processed the request:
//
//   - nothing of it was written (an HTTP/2 connection that became
//     unusable before the request went out);
//   - over HTTP/1.1, the request went out on a connection that had served
//     others before, which the server closed: net/http resends only then,
//     a GET or a POST of which nothing was written (see getBody), as when
//     a server's keep-alive timeout ends a connection as a request is sent;
//   - over HTTP/2, the server refused the stream and kept the connection
//     (REFUSED_STREAM; after a PROTOCOL_ERROR or a GOAWAY net/http takes
//     another connection, and the SDK cannot tell a GOAWAY that excludes
//     the request from a reset after processing it).
//
// Any other resend is stopped before a byte of it is written: the
// attempt's context is cancelled, which HTTP/2 checks before it writes
// headers, and an HTTP/1 connection, which is the request's alone, is
// closed, as HTTP/1 writes whatever the context says. The attempt then
// fails with the reason, and the retry policy decides, with its waits.
func (a *attempt) gotConn(info httptrace.GotConnInfo) {
	a.mu.Lock()
	a.tries++
	refused := notRefused
	switch {
	case a.tries == 1:
	case a.tries > 2:
		refused = resentTwice
	case !a.sent:
	case a.reused && speaksHTTP1(a.conn, a.base()):
	case info.Reused && info.Conn == a.conn:
	default:
		refused = resentAfterSent
	}
	a.conn, a.reused, a.sent = info.Conn, info.Reused, false
	if a.refused == notRefused {
		a.refused = refused
	}
	a.mu.Unlock()
	if refused == notRefused {
		return
	}
	a.cancel(refused.err())
	if c := info.Conn; c != nil && speaksHTTP1(c, a.base()) {
		if tc, ok := c.(*tls.Conn); ok {
			c = tc.NetConn() // no close_notify: nothing more is written
		}
		c.Close()
	}
}

// base returns the RoundTripper the attempt's request goes through, or nil.
func (a *attempt) base() http.RoundTripper {
	if a.t == nil {
		return nil
	}
	return a.t.Base()
}

// getBody is the GetBody of the attempt's request, which net/http calls to
// send its body again within the attempt. It refuses once the request may
// have reached the server, unless over HTTP/1.1, which calls it only when
// nothing of the request was written.
func (a *attempt) getBody() (io.ReadCloser, error) {
	a.mu.Lock()
	ok := !a.sent || speaksHTTP1(a.conn, a.base())
	a.mu.Unlock()
	if !ok || a.body0 == nil {
		return nil, errBodySent
	}
	return a.body0()
}

// wroteHeaders runs when the request's headers have been written to the
// connection (httptrace's WroteHeaders): from then on the server may have
// the request. (HTTP/1 calls it before it flushes them; the attempt then
// counts them as sent, which may be early, never late.)
func (a *attempt) wroteHeaders() {
	a.mu.Lock()
	a.sent = true
	a.mu.Unlock()
}

// speaksHTTP1 reports whether requests on c, a connection of base, are
// HTTP/1: a TLS connection that did not negotiate h2, or one without TLS
// unless base is set up for HTTP/2 without TLS (see plainHTTP2). An HTTP/2
// connection carries other requests too; an HTTP/1 one, the request's
// alone.
func speaksHTTP1(c net.Conn, base http.RoundTripper) bool {
	if c == nil {
		return false
	}
	if tc, ok := c.(interface{ ConnectionState() tls.ConnectionState }); ok {
		return tc.ConnectionState().NegotiatedProtocol != "h2"
	}
	return !plainHTTP2(base)
}

// plainHTTP2 reports whether rt speaks HTTP/2 without TLS: an
// *http.Transport whose Protocols (Go 1.24) enable unencrypted HTTP/2, or
// golang.org/x/net/http2's Transport. It looks with reflect, as the SDK
// supports Go versions without Protocols, and only when a resend is to be
// decided. A RoundTripper that wraps one of those is taken for HTTP/1.
func plainHTTP2(rt http.RoundTripper) bool {
	v := reflect.ValueOf(rt)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return false
	}
	t := v.Elem().Type()
	switch {
	case t.PkgPath() == "golang.org/x/net/http2" && t.Name() == "Transport":
		return true
	case t == reflect.TypeOf(http.Transport{}):
		p := v.Elem().FieldByName("Protocols")
		if !p.IsValid() || p.Kind() != reflect.Pointer || p.IsNil() {
			return false
		}
		m := p.MethodByName("UnencryptedHTTP2")
		if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 || m.Type().Out(0).Kind() != reflect.Bool {
			return false
		}
		return m.Call(nil)[0].Bool()
	}
	return false
}

// ResendError is an attempt that net/http would have sent again within the
// attempt, where that could make the server process it twice (see
// attempt.gotConn), or a request with a body that the server ended without
// an answer after it was sent. It is a transport error: the retry policy
// retries a GET after it, with its waits, and never a POST.
type ResendError struct {
	Reason string
	Err    error // what net/http reported, if anything
}

func (e *ResendError) Error() string {
	if e.Err == nil {
		return e.Reason
	}
	return e.Reason + ": " + e.Err.Error()
}

func (e *ResendError) Unwrap() error { return e.Err }

// refusal is why gotConn refused a resend.
type refusal uint8

const (
	notRefused      refusal = iota
	resentAfterSent         // the request may have reached the server
	resentTwice             // it was resent once already
)

var (
	errResentAfterSent = &ResendError{Reason: "the server ended the request without an answer after it was sent (a reset stream, a GOAWAY or a closed connection); not sent again within the attempt, as the SDK cannot tell whether the server processed it"}
	errResentTwice     = &ResendError{Reason: "net/http would send the request a third time within one attempt; not sent"}
	errBodySent        = &ResendError{Reason: "the server ended the request without an answer after its body was sent (a reset stream or a GOAWAY); a request with a body is never sent twice"}
)

// err returns the error of an attempt that r ended, or nil.
func (r refusal) err() error {
	switch r {
	case resentAfterSent:
		return errResentAfterSent
	case resentTwice:
		return errResentTwice
	}
	return nil
}

// timeUp runs when the attempt's time runs out. It marks the attempt
// expired before it cancels it, so that whoever sees the cancellation also
// sees why.
func (a *attempt) timeUp() {
	a.mu.Lock()
	a.expired = true
	a.mu.Unlock()
	a.cancel(errAttemptTimeout)
	a.end()
}

// end closes the body being read, if any, and any body watched later.
func (a *attempt) end() {
	a.mu.Lock()
	body := a.body
	a.body, a.ended = nil, true
	a.mu.Unlock()
	if body != nil {
		body.Close()
	}
}

func (a *attempt) timedOut() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.expired
}

// refusal returns the error of a resend that was refused, if one was.
func (a *attempt) refusal() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.refused.err()
}

// release stops the timer and cancels the attempt's context.
func (a *attempt) release() {
	if a.timer != nil {
		a.timer.Stop()
	}
	a.cancel(errAttemptDone)
}

// watch makes body the one to close should the attempt end, and reports
// false if it has ended already.
func (a *attempt) watch(body io.Closer) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ended {
		return false
	}
	a.body = body
	return true
}

// unwatch takes the body back from the attempt: it reports true if the
// caller is to close it, false if the attempt has closed it or is closing
// it.
func (a *attempt) unwatch() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	mine := a.body != nil
	a.body = nil
	return mine
}

// err is the error of a read that the attempt's end may have cut short:
// the call's context's, or the attempt's timeout; nil if neither ended.
func (a *attempt) err(parent context.Context) error {
	if err := parent.Err(); err != nil {
		return err
	}
	if a.timedOut() {
		return context.DeadlineExceeded
	}
	return nil
}

// bufferBody replaces resp.Body by its contents: up to MaxSuccessBody for a
// 2xx (more is an error), up to MaxErrorBody otherwise (the rest is dropped).
// A 2xx body that cannot be read whole is an error; any other response keeps
// what could be read of its body, so that its status is not lost. Should the
// attempt end first (parent, the call's context, ends, or the attempt's time
// runs out), the body is closed and the read ends with the context's error,
// whether or not closing the body interrupts its Read. The original body is
// closed on every path.
func (a *attempt) bufferBody(parent context.Context, resp *http.Response) error {
	body := resp.Body
	if !a.watch(body) {
		body.Close()
		return a.err(parent)
	}
	success := resp.StatusCode >= 200 && resp.StatusCode <= 299
	limit := int64(MaxErrorBody)
	if success {
		limit = MaxSuccessBody
	}
	size := int64(512)
	if resp.ContentLength >= 0 {
		size = min(resp.ContentLength, limit, maxFirstBuffer) + 1 // +1: room to see EOF
	}
	var data []byte
	var err error
	if closeInterruptsRead(body) {
		if parent.Done() != nil {
			stop := context.AfterFunc(parent, a.end)
			defer stop()
		}
		data, err = readAll(body, size, limit+1)
	} else {
		data, err = a.readAsync(body, size, limit+1)
	}
	if a.unwatch() {
		body.Close()
	}
	if err != nil {
		if ctxErr := a.err(parent); ctxErr != nil {
			return ctxErr
		}
		if success {
			return err
		}
	}
	if int64(len(data)) > limit {
		if limit == MaxSuccessBody {
			return ErrBodyTooLarge
		}
		data = data[:limit]
	}
	a.buf.data, a.buf.cut = data, err
	resp.Body = &a.buf
	return nil
}

// closeInterruptsRead reports whether closing body ends a Read that blocks
// on it: true of the bodies net/http's own transports return (HTTP/1,
// HTTP/2, the connection of a 101, gzip), whose Close tears the stream or
// the connection down. Not of http.ReadResponse's, whose Close waits for
// the Read. A body from any other RoundTripper is read by readAsync.
func closeInterruptsRead(body io.Reader) bool {
	t := reflect.TypeOf(body)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() != "net/http" {
		return false
	}
	switch t.Name() {
	case "bodyEOFSignal", "gzipReader", "readWriteCloserBody", "noBody",
		"http2transportResponseBody", "http2gzipReader":
		return true
	}
	return false
}

// readAsync reads body as readAll does, in a goroutine of its own, and
// returns when that read is done or when the attempt ends, whichever comes
// first. Then it closes the body and leaves the read behind: a body whose
// Close does not interrupt its Read (an io.NopCloser around a reader that
// blocks) keeps that goroutine until its Read returns, but not the call.
func (a *attempt) readAsync(body io.Reader, size, max int64) ([]byte, error) {
	go a.readInto(body, size, max)
	<-a.Done()
	if context.Cause(a) == errBodyRead {
		return a.buf.data, a.buf.cut
	}
	// Close it in a goroutine too: a Close that waits for the Read would
	// hold the call.
	a.mu.Lock()
	watched := a.body
	a.body, a.ended = nil, true
	a.mu.Unlock()
	if watched != nil {
		go watched.Close()
	}
	return nil, errAttemptDone // bufferBody returns the context's error instead
}

// readInto is readAsync's goroutine. Once readAsync has left the read
// behind, nothing reads what it writes.
func (a *attempt) readInto(body io.Reader, size, max int64) {
	a.buf.data, a.buf.cut = readAll(body, size, max)
	a.cancel(errBodyRead)
}
