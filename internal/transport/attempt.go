package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"reflect"
	"sync"
	"time"
)

// attempt is one attempt of a call, and the context of its request: a
// context that ends when the attempt's time runs out, when the call's context
// (parent) ends, or when the attempt is over; the trace that watches what
// net/http sends within the attempt (resend.go); and the buffer its body is
// read into, in one allocation. Its context methods are in attemptctx.go.
//
// It ends the attempt when its time runs out or the call's context ends: it
// cancels the context (so that net/http stops dialling or waiting) and closes
// the body being read, whatever the transport does with the context.
// net/http, for one, stops watching it once it hands over the body of a 101
// Switching Protocols; a RoundTripper may never watch it.
//
// Its timer, mutex and context are made by hand rather than with
// context.WithTimeoutCause and a context.AfterFunc that closes the body:
// those cost six allocations and about 580 bytes more per call, which put
// the SDK over its cost budget. Its context is not a context.WithCancelCause
// either: net/http makes a cancellable child of every request's context, and
// under a *context.cancelCtx that child costs the parent a map of children
// and a Done channel per attempt; under the attempt it registers through
// AfterFunc, without the map.
type attempt struct {
	parent   context.Context       // the call's context; once composed, with trace added by httptrace
	timer    *time.Timer           // nil without a timeout
	trace    httptrace.ClientTrace // what Value returns for httptrace's key, unless composed
	buf      bufferedBody          // the response body, once read (readAsync's goroutine reads into it)
	stopWait func() bool           // stops the context.AfterFunc that waits for parent, if any

	t     *Transport                    // that sends the request; nil in tests of the attempt alone
	body0 func() (io.ReadCloser, error) // the request's own GetBody (see getBody)

	mu        sync.Mutex
	waiter    sync.WaitGroup          // readAsync waits on it for the attempt's end (see waiting)
	done      chan struct{}           // the context's Done, made when first asked for (unless wrapped)
	inner     context.Context         // wrapped: a context.WithCancelCause whose Done is the attempt's (see Done)
	cancelIn  context.CancelCauseFunc // inner's
	cause     error                   // why the context ended: the call context's cause, or one of the attempt's
	after     afterFuncs              // what AfterFunc registered (net/http's child context)
	conn      net.Conn                // of the last request net/http began to send
	body      io.Closer               // the body being read
	tries     int32                   // requests net/http began to send (GotConn calls)
	refused   refusal                 // why a resend was refused (see gotConn)
	reused    bool                    // the last request's connection had served others before
	sent      bool                    // the last request may have reached the server (its headers were written)
	ended     bool                    // the attempt has ended: a body is closed at once
	expired   bool                    // its time ran out
	byCall    bool                    // the call's context ended the attempt's
	composed  bool                    // parent holds the caller's ClientTrace, composed with the attempt's (see ctx)
	waiting   bool                    // readAsync waits: the attempt's end is to call waiter.Done
	wrapped   bool                    // the request goes through a RoundTripper other than net/http's *http.Transport
	afterUsed bool                    // AfterFunc registered a function in after.first (it may have run or been stopped since)
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
	a := &attempt{parent: parent}
	a.trace.GotConn = a.gotConn
	a.trace.WroteHeaders = a.wroteHeaders
	// a.parent is final before anything that may run on another goroutine
	// (parentDone reads it) is started.
	if traceKey == nil || httptrace.ContextClientTrace(parent) != nil {
		a.parent, a.composed = httptrace.WithClientTrace(parent, &a.trace), true
	}
	if parent.Done() != nil {
		a.stopWait = context.AfterFunc(parent, a.parentDone)
	}
	if timeout > 0 {
		a.timer = time.AfterFunc(timeout, a.timeUp)
	}
	return a
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

// release stops the timer and the wait for parent, and cancels the
// attempt's context.
func (a *attempt) release() {
	if a.timer != nil {
		a.timer.Stop()
	}
	if a.stopWait != nil {
		a.stopWait()
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
		data, err = readAll(body, size, limit+1) // parentDone or timeUp closes it, should either come first
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
//
// It waits on a WaitGroup rather than on Done, whose channel the attempt
// makes only for those who ask.
func (a *attempt) readAsync(body io.Reader, size, max int64) ([]byte, error) {
	a.mu.Lock()
	if a.cause == nil {
		a.waiting = true
		a.waiter.Add(1)
	}
	a.mu.Unlock()
	go a.readInto(body, size, max)
	a.waiter.Wait()
	if a.endedBy() == errBodyRead {
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
