package transport

// The resend gate: a send (httptrace's GotConn, whoever sent it) may follow
// another up to maxSends, one with a body only on proof (proven, gotConn).

import (
	"crypto/tls"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"
)

// maxSends is net/http's own bound (its HTTP/2 client resends six times).
const maxSends = 7

// The errors of an attempt whose send the gate stopped (transport errors).
var errResent = errors.New("the request was about to be sent again, by the http.RoundTripper, after a send that may have been processed; stopped before it was written")
var errBound = errors.New("the request was sent 7 times within one attempt, and each send failed; not sent an 8th time")

// proven reports whether the last send, which failed with err, cannot have
// been processed; got: it had a connection. b is its body (nil: none).
// Each proof, with its source:
//
//  1. The SDK's own: the transport never read a byte of the body (sendBody),
//     whatever the protocol or RoundTripper. net/http's HTTP/1 flushes the
//     headers before it reads a body not known to be in memory, so a
//     connection dead before the request went out leaves it unread.
//  2. net/http and golang.org/x/net/http2: the server refused the stream
//     (REFUSED_STREAM, RFC 9113 section 8.7).
//  3. The same: a GOAWAY whose last stream id is below the stream, whatever
//     its error code (RFC 9113 section 6.8); both texts come only from a
//     stream above the last stream id.
//  4. On a connection that is HTTP/1 for certain (see protocol): a write of
//     the request failed, as returned and reported to the trace (HTTP/2, as
//     through RegisterProtocol, reports its request written before its read
//     loop's write fails): its last byte never left (RFC 9112 forbids
//     pipelining after a POST, and the body ends with "}"); or net/http
//     closed a kept-alive connection the server had closed while idle.
//  5. For a request without a body, the trace: the send had a connection
//     and wrote no header.
//
// TestProofTexts pins the texts, on the oldest and newest Go that CI runs.
func (a *attempt) proven(err error, b *sendBody, got bool) bool {
	if b != nil && b.seal() {
		return true
	}
	h1 := a.protocol() == "http/1.1"
	for e := err; e != nil; e = errors.Unwrap(e) {
		text := ownWords(e).Error()
		if refusedStream(text) || text == textGoAway || strings.HasPrefix(text, textGoAwayCode) ||
			(h1 && text == textServerClosedIdle) {
			return true
		}
	}
	var opErr *net.OpError
	return h1 && a.failed && errors.As(err, &opErr) && opErr.Op == "write" || b == nil && got && !a.wrote
}

// net/http's (and x/net/http2's) texts of errors it does not export.
const (
	textGoAway            = "http2: Transport received Server's graceful shutdown GOAWAY"
	textGoAwayCode        = "http2: Transport received GOAWAY from server ErrCode:"
	textStreamErrorPrefix = "stream error: stream ID "
	textRefusedSuffix     = "; REFUSED_STREAM; received from peer"
	textServerClosedIdle  = "http: server closed idle connection"
	// Around a cause, where the HTTP/2 client cannot rewind a body.
	textCannotRetryPrefix = "http2: Transport: cannot retry err ["
	textCannotRetrySuffix = "] after Request.Body was written; define Request.GetBody to avoid this error"
)

// ownWords returns err, or, if its text holds the HTTP/2 client's advice to
// define Request.GetBody around a cause, an error of its text without it.
func ownWords(err error) error {
	text := err.Error()
	i, j := strings.Index(text, textCannotRetryPrefix), strings.Index(text, textCannotRetrySuffix)
	if i < 0 || j < i {
		return err
	}
	return errors.New(text[:i] + text[i+len(textCannotRetryPrefix):j] + text[j+len(textCannotRetrySuffix):])
}

// refusedStream reports whether text is the error of a refused stream.
func refusedStream(text string) bool {
	id, ok := strings.CutPrefix(text, textStreamErrorPrefix)
	id, ok2 := strings.CutSuffix(id, textRefusedSuffix)
	return ok && ok2 && id != "" && strings.Trim(id, "0123456789") == ""
}

// protocol returns the last send's protocol where it is certain: a
// *tls.Conn's ALPN (none, through a bare *http.Transport: HTTP/1.1), h2c by a
// bare *http.Transport's Protocols; else "" (plain http may be anything a
// RoundTripper registered for it, such as x/net/http2's h2c).
func (a *attempt) protocol() string {
	t, bare := a.base.(*http.Transport)
	tc, isTLS := a.conn.(*tls.Conn)
	switch {
	case isTLS && (tc.ConnectionState().NegotiatedProtocol != "" || !bare):
		return tc.ConnectionState().NegotiatedProtocol
	case isTLS:
		return "http/1.1"
	case bare && a.plain && plainHTTP2(t):
		return "h2"
	}
	return ""
}

// gotConn runs as a send gets its connection (httptrace's GotConn). It stops
// a send beyond maxSends, and one with a body after a send that may have been
// processed (it wrote its headers, or, within one RoundTrip, read the body)
// or once the base has returned (a hedge's late copy, not counted): it ends
// the attempt's context, which HTTP/2 checks before writing headers, and
// closes the connection unless it is HTTP/2 for certain (HTTP/1 writes
// whatever the context says). A late copy over HTTP/1 for certain only
// loses its connection: the answer that came is kept.
func (a *attempt) gotConn(info httptrace.GotConnInfo) {
	a.mu.Lock()
	late := a.answered && a.body != nil
	if !late && (a.answered || a.stopped != nil) {
		a.mu.Unlock()
		return
	}
	if !late {
		if a.wrote { // an earlier send that the base did not report failed
			a.mayHave++
		}
		a.sends++
	}
	a.conn, a.wrote, a.failed = info.Conn, false, false
	proto := a.protocol()
	switch {
	case late && proto == "http/1.1":
	case late: // the answer's read may end: say why
		a.stopped = errResent
	case a.sends > maxSends:
		a.stopped = errBound
	case a.body != nil && (a.mayHave > 0 || a.sends-a.before > 1 && a.cur.state.Load() == read):
		a.stopped, a.mayHave = errResent, max(a.mayHave, 1)
	}
	stopped := a.stopped != nil
	a.mu.Unlock()
	if stopped {
		a.cancel()
	}
	if !stopped && !late {
		return
	}
	if c := info.Conn; c != nil && proto != "h2" {
		if tc, ok := c.(*tls.Conn); ok {
			c = tc.NetConn() // no close_notify: nothing more is written
		}
		c.Close()
	}
}

// wroteHeaders runs as a send's headers are written (httptrace's; HTTP/1
// calls it before it flushes them: early, never late).
func (a *attempt) wroteHeaders() {
	a.mu.Lock()
	if !a.answered && a.stopped == nil {
		a.wrote = true
	}
	a.mu.Unlock()
}

// wroteRequest runs as a send's write ends (httptrace's WroteRequest).
func (a *attempt) wroteRequest(info httptrace.WroteRequestInfo) {
	a.mu.Lock()
	a.failed = info.Err != nil
	a.mu.Unlock()
}

// again settles the last send, which failed with err (b its body), and
// reports whether the SDK sends it again: it had a connection and is proven
// unprocessed (and every earlier send of a request with a body too).
func (a *attempt) again(err error, b *sendBody) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.answered = true
	if a.stopped != nil {
		return false // the stopped send wrote nothing; why it was stopped is counted
	}
	got := a.sends > a.before
	proven := a.proven(err, b, got)
	if !proven && (got || !a.bounded && !IsDialError(err)) { // a bare *http.Transport reports every connection
		a.mayHave++
	}
	a.wrote = false
	if !proven || !got || a.sends >= maxSends || (b != nil && a.mayHave > 0) {
		return false
	}
	a.answered, a.before = false, a.sends
	if b != nil {
		a.cur = &sendBody{data: a.body}
	}
	return true
}

// pause waits before the SDK's own resend as net/http's HTTP/2 client does:
// the second send at once, the third after 1 s, then 2 s, 4 s …, each with
// up to 10 % more at random. It reports false, at once, if the attempt's
// context would end first.
func (a *attempt) pause() bool {
	a.mu.Lock()
	n := a.sends + 1
	a.mu.Unlock()
	if n < 3 {
		return a.ctx.Err() == nil
	}
	d := time.Second << (n - 3)
	d += rand.N(d / 10)
	if end, ok := a.ctx.Deadline(); ok && time.Until(end) < d {
		return false
	}
	select {
	case <-time.After(d): // collected once it fires or is dropped (Go 1.23)
	case <-a.ctx.Done():
	}
	return a.ctx.Err() == nil
}

// sendBody is the body of one send, of a type of the SDK's own, so that the
// SDK knows whether the transport read it (see proven; BenchmarkFlushCost
// measures the write of their own net/http's HTTP/1 gives the headers then).
type sendBody struct {
	data  []byte
	off   int          // only Read, called by one goroutine at a time, touches it
	state atomic.Int32 // unread, read or sealed
}

const unread, read, sealed int32 = 0, 1, 2

var errSealed = errors.New("request body read after its send ended")

func (b *sendBody) Read(p []byte) (int, error) {
	if b.state.Load() != read && !b.state.CompareAndSwap(unread, read) {
		return 0, errSealed
	}
	if b.off >= len(b.data) {
		return 0, io.EOF
	}
	n := copy(p, b.data[b.off:])
	b.off += n
	return n, nil
}

func (b *sendBody) Close() error { return nil }

// seal reports whether nothing has read b yet, and makes sure nothing ever
// will: the proof holds, however late a RoundTripper's goroutine reads.
func (b *sendBody) seal() bool { return b.state.CompareAndSwap(unread, sealed) }
