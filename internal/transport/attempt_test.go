package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"reflect"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// TestAttemptTrace: an attempt's context carries its trace without another
// context around it, and over a caller's own ClientTrace it calls both.
func TestAttemptTrace(t *testing.T) {
	t.Parallel()
	if traceKey == nil {
		t.Fatal("httptrace's context key was not learnt")
	}
	a := newAttempt(context.Background(), 0)
	defer a.release()
	if ctx := a.ctx(); ctx != context.Context(a) || httptrace.ContextClientTrace(ctx) != &a.trace {
		t.Errorf("ctx() = %v with trace %p; want the attempt itself, with its trace %p", ctx, httptrace.ContextClientTrace(ctx), &a.trace)
	}

	callers := 0
	parent := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { callers++ },
	})
	a = newAttempt(parent, 0)
	defer a.release()
	trace := httptrace.ContextClientTrace(a.ctx())
	if trace == nil || trace.GotConn == nil {
		t.Fatal("no trace in the attempt's context over a caller's trace")
	}
	trace.GotConn(httptrace.GotConnInfo{})
	if callers != 1 || a.tries != 1 {
		t.Errorf("after one GotConn: the caller's hook ran %d times, the attempt's counted %d tries; want 1 and 1", callers, a.tries)
	}
}

// TestResendGate: what an attempt lets net/http resend within it, try by
// try, as httptrace reports them.
func TestResendGate(t *testing.T) {
	t.Parallel()
	type try struct {
		conn   int  // which connection: 1, 2, 3
		reused bool // GotConnInfo.Reused
		wrote  bool // WroteHeaders follows
	}
	tests := []struct {
		name  string
		h2    bool // the connections negotiated HTTP/2 over TLS; else HTTP/1
		tries []try
		want  error // the attempt's refusal
	}{
		{"one try", false, []try{{1, false, true}}, nil},
		{"HTTP/2: resent after nothing was written (an unusable connection)", true, []try{{1, true, false}, {2, false, true}}, nil},
		{"HTTP/2: resent on the same connection after its headers (REFUSED_STREAM)", true, []try{{1, false, true}, {1, true, true}}, nil},
		{"HTTP/2: resent on another connection after its headers (PROTOCOL_ERROR, GOAWAY)", true, []try{{1, false, true}, {2, false, true}}, errResentAfterSent},
		{"HTTP/2: resent after its headers on a reused connection, on another", true, []try{{1, true, true}, {2, false, true}}, errResentAfterSent},
		{"HTTP/2: resent on the same connection, not reused, after its headers", true, []try{{1, false, true}, {1, false, true}}, errResentAfterSent},
		{"HTTP/1: resent after a stale keep-alive connection", false, []try{{1, true, true}, {2, false, true}}, nil},
		{"HTTP/1: resent after a fresh connection failed", false, []try{{1, false, true}, {2, false, true}}, errResentAfterSent},
		{"a third try, nothing written before", true, []try{{1, true, false}, {2, true, false}, {3, false, false}}, errResentTwice},
		{"a third try after a REFUSED_STREAM", true, []try{{1, false, true}, {1, true, true}, {1, true, true}}, errResentTwice},
		{"HTTP/1: a third try after stale connections", false, []try{{1, true, true}, {2, true, true}, {3, false, false}}, errResentTwice},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			conns := map[int]*closeCounter{}
			a := newAttempt(context.Background(), 0)
			defer a.release()
			for _, tr := range tc.tries {
				c := conns[tr.conn]
				if c == nil {
					c = &closeCounter{h2: tc.h2}
					conns[tr.conn] = c
				}
				var conn net.Conn = c
				if tc.h2 {
					conn = h2Conn{c}
				}
				a.gotConn(httptrace.GotConnInfo{Conn: conn, Reused: tr.reused})
				if tr.wrote {
					a.wroteHeaders()
				}
			}
			if got := a.refusal(); got != tc.want {
				t.Errorf("refusal = %v; want %v", got, tc.want)
			}
			closed := 0
			for _, c := range conns {
				closed += c.closed
			}
			cause := a.endedBy()
			if tc.want == nil && (cause != nil || closed != 0) {
				t.Errorf("context ended with %v, %d connections closed; want neither", cause, closed)
			}
			wantClosed := 1 // the HTTP/1 connection of the refused try
			if tc.h2 {
				wantClosed = 0 // others' requests share it
			}
			if tc.want != nil && (cause != tc.want || closed != wantClosed) {
				t.Errorf("context ended with %v, %d connections closed; want %v, and %d closed", cause, closed, tc.want, wantClosed)
			}
		})
	}
}

// closeCounter is a net.Conn that counts its Close calls.
type closeCounter struct {
	net.Conn
	h2     bool
	closed int
}

// h2Conn is a connection that negotiated HTTP/2 over TLS.
type h2Conn struct{ *closeCounter }

func (h2Conn) ConnectionState() tls.ConnectionState {
	return tls.ConnectionState{NegotiatedProtocol: "h2"}
}

func (c *closeCounter) Close() error { c.closed++; return nil }

// TestPlainHTTP2: which transports speak HTTP/2 without TLS.
func TestPlainHTTP2(t *testing.T) {
	t.Parallel()
	h2c := &http.Transport{}
	if p := reflect.ValueOf(h2c).Elem().FieldByName("Protocols"); p.IsValid() { // Go 1.24
		protocols := reflect.New(p.Type().Elem())
		protocols.MethodByName("SetUnencryptedHTTP2").Call([]reflect.Value{reflect.ValueOf(true)})
		p.Set(protocols)
	} else {
		h2c = nil // no such setting before Go 1.24
	}
	tests := []struct {
		name string
		rt   http.RoundTripper
		want bool
	}{
		{"nil", nil, false},
		{"http.Transport", &http.Transport{}, false},
		{"the shared transport", Shared(), false},
		{"x/net's http2.Transport", &http2.Transport{AllowHTTP: true}, true},
		{"a RoundTripper of the caller's", roundTripFunc(nil), false},
	}
	if h2c != nil {
		tests = append(tests, struct {
			name string
			rt   http.RoundTripper
			want bool
		}{"http.Transport with unencrypted HTTP/2", h2c, true})
	}
	for _, tc := range tests {
		if got := plainHTTP2(tc.rt); got != tc.want {
			t.Errorf("%s: plainHTTP2 = %v; want %v", tc.name, got, tc.want)
		}
	}
}

// TestAttemptContext: the attempt is a context whose children (net/http
// makes one per request) register through its AfterFunc, without a map or a
// goroutine, and end when the attempt ends: by its own cause, or by the
// call's context's, whose error it then reports.
func TestAttemptContext(t *testing.T) {
	t.Parallel()
	errCall := errors.New("call ended")
	parent, cancelParent := context.WithCancelCause(context.Background())
	a := newAttempt(parent, 0)
	defer a.release()
	if a.Err() != nil {
		t.Fatalf("a new attempt's Err = %v", a.Err())
	}
	child, cancelChild := context.WithCancel(a)
	defer cancelChild()
	if a.after.first == nil {
		t.Fatal("a child context did not register through AfterFunc")
	}
	second, cancelSecond := context.WithCancel(a)
	cancelSecond() // stops its AfterFunc
	if a.after.more == nil || len(*a.after.more) != 1 || (*a.after.more)[0].f != nil {
		t.Error("a second child that ended is still registered")
	}
	if second.Err() != context.Canceled {
		t.Errorf("second child's Err = %v", second.Err())
	}

	cancelParent(errCall)
	<-a.Done()
	<-child.Done()
	if a.Err() != context.Canceled || a.endedBy() != errCall || child.Err() != context.Canceled {
		t.Errorf("after the call's context ended: Err %v, cause %v, child's Err %v; want Canceled, %v, Canceled", a.Err(), a.endedBy(), child.Err(), errCall)
	}
	if a.after.first != nil {
		t.Error("the child's AfterFunc is still registered after it ran")
	}
	ran := make(chan struct{})
	stop := a.AfterFunc(func() { close(ran) })
	<-ran // runs at once: the attempt has ended
	if stop() {
		t.Error("stop reports it stopped a function that has run")
	}
}

// TestAttemptContextEnds: an attempt's context ends with its time, with
// Canceled (the attempt's own reason kept apart), and with a call whose
// deadline has passed, with DeadlineExceeded; its children end with it.
func TestAttemptContextEnds(t *testing.T) {
	t.Parallel()
	a := newAttempt(context.Background(), 0)
	child, cancelChild := context.WithCancel(a)
	defer cancelChild()
	done := a.Done()
	a.timeUp()
	<-done
	<-child.Done()
	if a.Err() != context.Canceled || a.endedBy() != errAttemptTimeout || !a.timedOut() {
		t.Errorf("after its time ran out: Err %v, cause %v, timed out %v", a.Err(), a.endedBy(), a.timedOut())
	}
	a.release()
	if a.endedBy() != errAttemptTimeout {
		t.Errorf("release changed the cause to %v", a.endedBy())
	}

	past, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	a = newAttempt(past, 0)
	defer a.release()
	<-a.Done()
	if !errors.Is(a.Err(), context.DeadlineExceeded) {
		t.Errorf("under a call past its deadline: Err = %v; want DeadlineExceeded", a.Err())
	}
	if d, ok := a.Deadline(); !ok || !d.Equal(time.Unix(0, 0)) {
		t.Errorf("Deadline = %v, %v; want the call's", d, ok)
	}
}

// TestAttemptContextWrapped: through a RoundTripper other than net/http's,
// which may wrap the request's context in one of its own before net/http
// makes its child, that child registers with the attempt's inner context
// (no goroutine watches the attempt): it ends as the attempt ends, at once,
// with the attempt's cause.
func TestAttemptContextWrapped(t *testing.T) {
	t.Parallel()
	if cancelKey == nil {
		t.Fatal("the context package's key was not learnt")
	}
	a := newAttempt(context.Background(), 0)
	a.wrapped = true
	defer a.release()
	wrapped := context.WithValue(a.ctx(), ctxKey{}, "wrapped") // as otelhttp's context does
	child, cancel := context.WithCancel(wrapped)
	defer cancel()
	if a.inner == nil {
		t.Fatal("the attempt made no inner context for a child under a wrapped context")
	}
	a.cancel(errAttemptTimeout)
	if child.Err() != context.Canceled || context.Cause(child) != errAttemptTimeout {
		t.Errorf("right after the attempt ended: child's Err %v, cause %v; want Canceled, %v", child.Err(), context.Cause(child), errAttemptTimeout)
	}
	if a.Err() != context.Canceled {
		t.Errorf("attempt's Err = %v", a.Err())
	}
}

type ctxKey struct{}

// TestAttemptOverTracedContextEndingAtOnce: a call's context that holds a
// ClientTrace of the caller's and ends as the attempt starts. The attempt's
// parent, composed with that trace, was once written after the wait for
// the call's context began, which read it: a race under -race.
func TestAttemptOverTracedContextEndingAtOnce(t *testing.T) {
	t.Parallel()
	for range 200 {
		ctx, cancel := context.WithCancel(httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{}))
		go cancel()
		a := newAttempt(ctx, 0)
		if httptrace.ContextClientTrace(a.ctx()) == nil {
			t.Fatal("no trace in the attempt's context over a caller's trace")
		}
		<-a.Done() // the call's end ends the attempt's context
		if err := a.Err(); err != context.Canceled {
			t.Fatalf("the attempt's Err after the call's context ended: %v; want the call's, Canceled", err)
		}
		a.release()
	}
}
