package transport

// The resend rules. Within one attempt a request is sent at most twice,
// and a second time only when the server cannot have processed the first
// send, or, for a request without a body (a GET), whatever the cause.
//
// net/http resends by itself, below the SDK: after a kept-alive HTTP/1
// connection failed, a GET, or a POST of which nothing was written and
// which has a GetBody; over HTTP/2, after a REFUSED_STREAM, a GOAWAY that
// excluded the stream, a RST_STREAM(PROTOCOL_ERROR) (which a server may
// send after processing the request) or an unusable connection, any
// request whose body it can rewind with GetBody or has not begun to send.
// Its trace hooks do not say why. So:
//
//   - A request with a body carries no GetBody (but see attempt.http1):
//     net/http then never sends again a body it has begun to send, and its
//     error names the cause (see droppedUnread), or, over HTTP/1, is the
//     connection's failed write (see unsent). The attempt sends it again
//     itself, at once, when that shows the server dropped it unread; any
//     other cause counts as "may have been processed".
//   - The attempt's trace counts the sends (GotConn, WroteHeaders) and
//     stops a third one that would write anything (see gotConn).

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
)

// errResentTwice is the error of an attempt whose third send was stopped.
// It is a transport error: the retry policy decides on it, with its waits.
var errResentTwice = errors.New("the request would have been sent a third time within one attempt (the server refused or dropped it twice); not sent")

// gotConn runs each time the request is about to go out on a connection
// (httptrace's GotConn): on the attempt's first send, on net/http's
// resends, on the attempt's own. Once two sends have written their
// headers, it stops the next one before a byte of it is written: it ends
// the attempt's context, which HTTP/2 checks before it writes headers, and
// closes an HTTP/1 connection, which is the request's alone and on which
// HTTP/1 writes whatever the context says.
//
// What the trace reports once the base has returned (a hedging
// RoundTripper may send a copy of the request late) is not counted.
func (a *attempt) gotConn(info httptrace.GotConnInfo) {
	a.mu.Lock()
	if a.answered {
		a.mu.Unlock()
		return
	}
	if a.wrote {
		a.unproven++
	}
	a.sends++
	a.conn, a.wrote, a.lastProven = info.Conn, false, false
	stop := a.written >= 2
	a.stopped = a.stopped || stop
	a.mu.Unlock()
	if !stop {
		return
	}
	a.cancel()
	if c := info.Conn; c != nil && !speaksHTTP2(c, a.base) {
		if tc, ok := c.(*tls.Conn); ok {
			c = tc.NetConn() // no close_notify: nothing more is written
		}
		c.Close()
	}
}

// wroteHeaders runs when a send's headers have been written (httptrace's
// WroteHeaders): from then on the server may have the request. (HTTP/1
// calls it before it flushes them, which may be early, never late.)
//
// A send that gotConn stopped writes nothing the server can read, whatever
// the trace says: its headers are not counted.
func (a *attempt) wroteHeaders() {
	a.mu.Lock()
	if !a.answered && !a.stopped && !a.wrote {
		a.wrote = true
		a.written++
	}
	a.mu.Unlock()
}

// settle marks the base's return: the trace is no longer the attempt's
// until resend sends again.
func (a *attempt) settle() {
	a.mu.Lock()
	a.answered = true
	a.mu.Unlock()
}

// getBody is the GetBody of a request that can go only over HTTP/1
// (attempt.http1). net/http calls it for such a request only to send it
// again after a kept-alive connection failed before any byte of it was
// written: the server cannot have it.
func (a *attempt) getBody() (io.ReadCloser, error) {
	a.mu.Lock()
	a.wrote = false
	a.mu.Unlock()
	return newBody(a.body), nil
}

// resend reports whether to send the request again after a send failed
// with err: when the failure shows that the server dropped it unread (the
// send wrote no header, or err says so, see droppedUnread and unsent), the attempt's
// context has not ended, and fewer than two sends have written their
// headers.
func (a *attempt) resend(err error) bool {
	if a.ctx.Err() != nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sends == 0 {
		return false // no connection was had (a dial failed): the retry policy's to decide, with its waits
	}
	if a.wrote && !droppedUnread(err) && !a.unsent(err) {
		return false
	}
	a.wrote, a.lastProven = false, true
	if a.written >= 2 || a.stopped {
		return false
	}
	a.answered = false
	return true
}

// The texts of the errors of net/http (and of golang.org/x/net/http2) that
// show the server dropped a request unread. None of these errors is
// exported. TestDroppedUnreadTexts pins them, on the oldest and the newest
// Go that CI runs.
const (
	// An HTTP/2 request on a stream above the last stream id of a GOAWAY
	// (RFC 9113 section 6.8: the server did not process it).
	textGoAway = "http2: Transport received Server's graceful shutdown GOAWAY"
	// What net/http's HTTP/2 client returns instead of resending a
	// request whose body it cannot rewind, around the cause.
	textCannotRetryPrefix = "http2: Transport: cannot retry err ["
	textCannotRetrySuffix = "] after Request.Body was written; define Request.GetBody to avoid this error"
	// An HTTP/2 stream the server refused (RFC 9113 section 8.7: not
	// processed): "stream error: stream ID 3; REFUSED_STREAM; received from peer".
	textStreamErrorPrefix = "stream error: stream ID "
	textRefusedSuffix     = "; REFUSED_STREAM; received from peer"
	// An HTTP/1 kept-alive connection the server had closed before the
	// request was handed to it: net/http had closed it, so nothing of the
	// request was written.
	textServerClosedIdle = "http: server closed idle connection"
)

// droppedUnread reports whether err, or an error it wraps, is one of
// net/http's that show the server dropped the request unread. Anything
// else, including a text that only looks alike, is "may have been
// processed": the SDK fails safe.
func droppedUnread(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		text := err.Error()
		if inner, ok := strings.CutPrefix(text, textCannotRetryPrefix); ok {
			if inner, ok = strings.CutSuffix(inner, textCannotRetrySuffix); ok {
				text = inner
			}
		}
		if text == textGoAway || text == textServerClosedIdle || refusedStream(text) {
			return true
		}
	}
	return false
}

// unsent reports whether err, the error of a send over HTTP/1 (the last
// send's connection, as speaksHTTP2 sees it), is, or wraps, a failed write
// on a connection (a *net.OpError whose Op is "write"): then the request's
// last byte never left the client, and the server cannot have it whole.
//
// Why: an HTTP/1 client writes on a connection the request alone, one at a
// time (net/http does not pipeline, and RFC 9112 section 9.3.2 says a client
// does not pipeline after a non-idempotent method), and writes nothing
// after its last byte; a write fails only before that byte was accepted,
// and stops the request there. That is the case API.md names, a kept-alive
// connection the server had already closed: net/http, which resends it
// only with a GetBody (which the attempt cannot give a request that may go
// over HTTP/2, see attempt.http1), returns the write's own error. A
// request cut short cannot be acted on: the SDK's one body, CreatePet's,
// ends with the JSON object's closing brace. A failed read, or any error
// that holds no failed write, is not unsent.
func (a *attempt) unsent(err error) bool {
	if a.conn == nil || speaksHTTP2(a.conn, a.base) {
		return false
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "write"
}

// refusedStream reports whether text is the error of a stream the server
// refused.
func refusedStream(text string) bool {
	id, ok := strings.CutPrefix(text, textStreamErrorPrefix)
	if !ok {
		return false
	}
	id, ok = strings.CutSuffix(id, textRefusedSuffix)
	return ok && id != "" && strings.Trim(id, "0123456789") == ""
}

// speaksHTTP2 reports whether c, a connection of base, carries HTTP/2: a
// TLS connection that negotiated h2, or one without TLS of an
// *http.Transport set up for unencrypted HTTP/2 (see plainHTTP2). A
// connection of any other RoundTripper without TLS is taken for HTTP/1.
func speaksHTTP2(c net.Conn, base http.RoundTripper) bool {
	if tc, ok := c.(interface{ ConnectionState() tls.ConnectionState }); ok {
		return tc.ConnectionState().NegotiatedProtocol == "h2"
	}
	t, ok := base.(*http.Transport)
	return ok && plainHTTP2(t)
}
