package transport

import (
	"context"
	"net"
	"net/http/httptrace"
	"testing"
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
		tries []try
		want  error // the attempt's refusal
	}{
		{"one try", []try{{1, false, true}}, nil},
		{"resent after nothing was written (an unusable connection, a stale one)", []try{{1, true, false}, {2, false, true}}, nil},
		{"resent on the same connection after its headers (REFUSED_STREAM)", []try{{1, false, true}, {1, true, true}}, nil},
		{"resent on another connection after its headers (PROTOCOL_ERROR, GOAWAY, a reset)", []try{{1, false, true}, {2, false, true}}, errResentAfterSent},
		{"resent on the same connection, not reused, after its headers", []try{{1, false, true}, {1, false, true}}, errResentAfterSent},
		{"a third try, nothing written before", []try{{1, true, false}, {2, true, false}, {3, false, false}}, errResentTwice},
		{"a third try after a REFUSED_STREAM", []try{{1, false, true}, {1, true, true}, {1, true, true}}, errResentTwice},
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
					c = new(closeCounter)
					conns[tr.conn] = c
				}
				a.gotConn(httptrace.GotConnInfo{Conn: c, Reused: tr.reused})
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
			if tc.want != nil && (cause != tc.want || closed != 1) {
				t.Errorf("context ended with %v, %d connections closed; want %v, and the (HTTP/1) connection of the refused try closed", cause, closed, tc.want)
			}
		})
	}
}

// closeCounter is a net.Conn that counts its Close calls.
type closeCounter struct {
	net.Conn
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }
