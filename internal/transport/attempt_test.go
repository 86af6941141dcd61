package transport

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptrace"
	"reflect"
	"testing"

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
			cause := context.Cause(a)
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
