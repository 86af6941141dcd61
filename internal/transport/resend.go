package transport

// The resend gate: an attempt's httptrace.ClientTrace, which sees each
// request net/http sends within the attempt, resends included, and lets
// net/http resend one only when the server cannot have processed it (see
// gotConn). It exists because net/http resends below the SDK's retry
// policy, after a stale connection, a RST_STREAM or a GOAWAY, where a POST
// could be created twice and a failing server flooded.

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"reflect"
)

// Value returns the attempt's trace for httptrace's key, so that the
// attempt is a context with a ClientTrace without another allocation, and
// else what the call's context holds. Over a caller's own ClientTrace (see
// ctx) it answers from the context httptrace made, whose trace calls the
// caller's hooks as well as the attempt's.
func (a *attempt) Value(key any) any {
	if key == traceKey && traceKey != nil && !a.composed {
		return &a.trace
	}
	if v, ok := a.innerValue(key); ok {
		return v
	}
	return a.parent.Value(key)
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

// ctx returns the context of the attempt's request: the attempt itself.
// Should traceKey be unknown or the call's context hold a ClientTrace of its
// own, newAttempt has added the attempt's trace to the call's context the
// documented way (calling the caller's hooks too), and the attempt answers
// Value from that context, whose Err, Deadline and Cause are the call's.
func (a *attempt) ctx() context.Context { return a }

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

// refusal is why gotConn refused a resend.
type refusal uint8

const (
	notRefused      refusal = iota
	resentAfterSent         // the request may have reached the server
	resentTwice             // it was resent once already
)

// The errors of an attempt whose resend was refused. They are transport
// errors: the retry policy retries a GET after one, with its waits, and
// never a POST.
var (
	errResentAfterSent = errors.New("the server ended the request without an answer after it was sent (a reset stream, a GOAWAY or a closed connection); not sent again within the attempt, as the SDK cannot tell whether the server processed it")
	errResentTwice     = errors.New("net/http would send the request a third time within one attempt; not sent")
	errBodySent        = errors.New("the server ended the request without an answer after its body was sent (a reset stream or a GOAWAY); a request with a body is never sent twice")
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

// refusal returns the error of a resend that was refused, if one was.
func (a *attempt) refusal() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.refused.err()
}
