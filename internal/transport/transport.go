// Package transport runs one attempt of a petstore call and hands back what
// it got as a value ([Result]): the request sent, again only as the resend
// gate allows (gate.go), under a context with the attempt's time limit; the
// response body read within that limit and the SDK's size limits. Without a
// user's http.Client, it sends through one pooled transport shared by every
// Client. It knows nothing of retries, operations or the caller's errors:
// the packages above decide from the Result.
package transport

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/petstore/petstore-go/internal/redact"
)

// Transport is what every attempt of one Client shares: where it sends,
// its time limit, its headers and its log. Make it with [New].
type Transport struct {
	User     *http.Client     // the user's client (WithHTTPClient), or nil for Shared
	Timeout  time.Duration    // per attempt; 0: none
	Source   string           // where Timeout came from, for its error: "WithTimeout", say
	Logger   *slog.Logger     // one Debug record per attempt; nil: silent
	Redactor *redact.Redactor // hides the key in what a server chose (the request ids logged)
	Timed    bool             // measure Result.Duration even without a Logger (for an observer)

	// Header, if set, returns the header of each attempt's request (body: it
	// has one), made once, written by nothing: through a RoundTripper other
	// than an *http.Transport, each attempt gets a copy (one that set a header
	// would race with others). A function: a printed Transport hides the key.
	Header func(body bool) http.Header

	timeout *timeoutError // the cause of an attempt's context that ran out of time
}

// New returns a Transport with t's settings.
func New(t Transport) *Transport {
	t.timeout = &timeoutError{Limit: t.Timeout, Source: t.Source}
	return &t
}

// Result is what one attempt got: a response (its status, header and body,
// read into memory), or why it got none.
type Result struct {
	Header http.Header // the response's header; nil when none arrived
	Body   []byte      // the body: up to MaxSuccessBody of a 2xx, MaxErrorBody of any other
	Cut    error       // what cut a non-2xx body short, if anything did (its Body is what arrived)

	// Err is why the attempt got no usable response: a transport error, a
	// timeout (a net.Error matching context.DeadlineExceeded), the call's
	// context's error, a 2xx body cut short or over MaxSuccessBody. Body and
	// Cut are then unset; Status and Header are a failed body's response's.
	Err error

	Duration time.Duration // from sending the request to the end of reading the response (when measured)
	Status   int32         // the response's status; 0 when none arrived

	// Reached, with Err: the request may have been processed (a response
	// arrived, or a send wrote its headers and nothing proved it dropped:
	// gate.go). Refused, with Err, is its opposite: every send had no
	// connection (DNS, dial, TLS handshake, proxy CONNECT) or was proven
	// unprocessed: a POST may be sent again, with waits.
	Reached, Refused bool
}

// RequestID returns h's X-Request-Id, else its Request-Id (h.Get of each,
// without canonicalising keys that are canonical already).
func RequestID(h http.Header) string {
	if v := h["X-Request-Id"]; len(v) > 0 && v[0] != "" {
		return v[0]
	}
	if v := h["Request-Id"]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Shared returns the transport of every Client made without WithHTTPClient:
// a clone of http.DefaultTransport, with an idle pool sized for many
// goroutines on one host and, from Go 1.24, HTTP/2 health pings (PingAfter).
// Should http.DefaultTransport have been replaced (by a mock, say), it starts
// from net/http's default settings: a mock must not become the SDK's for good.
var Shared = sync.OnceValue(func() *http.Transport {
	t, ok := http.DefaultTransport.(*http.Transport)
	if ok {
		t = t.Clone()
	} else {
		t = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:     true,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		}
	}
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 128
	health(t)
	return t
})

// Base returns what an attempt sends through now: the user's client's
// Transport (http.DefaultTransport when nil), or Shared.
func (t *Transport) Base() http.RoundTripper {
	if t.User == nil {
		return Shared()
	}
	if t.User.Transport != nil {
		return t.User.Transport
	}
	return http.DefaultTransport
}

// CloseIdleConnections closes the idle connections of the user's client's
// transport (as http.Client's does), or Shared's.
func (t *Transport) CloseIdleConnections() {
	if t.User != nil {
		t.User.CloseIdleConnections()
		return
	}
	Shared().CloseIdleConnections()
}

// Send runs one attempt, number (1 for the first) of its call, of req,
// whose context is the call's, with body as its body (nil: none), and
// returns what it got. req is not modified: each send is a copy of it.
func (t *Transport) Send(req *http.Request, body []byte, number int) Result {
	a := newAttempt(t, req.Context(), t.Base(), body, req.URL.Scheme)
	defer a.cancel() // ends net/http's work on the attempt's requests
	header := t.header(body != nil)
	var start time.Time
	if t.Logger != nil || t.Timed {
		start = time.Now()
	}
	resp, err := a.send(req, header)
	var r Result
	if err == nil {
		r.Status, r.Header = int32(resp.StatusCode), resp.Header
		r.Body, r.Cut, err = a.read(resp)
	}
	if err != nil {
		r.Reached, r.Err = a.failure(err) // a response whose body failed keeps its status and header
		r.Reached = r.Reached || r.Status != 0
		r.Refused = !r.Reached
	}
	if !start.IsZero() {
		r.Duration = time.Since(start)
	}
	if t.Logger != nil && t.Logger.Enabled(req.Context(), slog.LevelDebug) {
		id := t.Redactor.String(RequestID(r.Header)) // a server may echo the key (the bearer token) here
		logAttempt(req.Context(), t.Logger, req, number, int(r.Status), id, r.Err, r.Duration)
	}
	return r
}

// header returns the header of an attempt's request (see Header).
func (t *Transport) header(body bool) http.Header {
	if t.Header == nil {
		return http.Header{}
	}
	h := t.Header(body)
	if _, reads := t.Base().(*http.Transport); !reads {
		h = maps.Clone(h) // the values are not written, but replaced, by Set and Add
	}
	return h
}

// IsDialError reports whether err says that no connection could be made (a
// failed dial or DNS lookup): the request cannot have reached the server.
func IsDialError(err error) bool {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	return errors.As(err, &dnsErr) || errors.As(err, &opErr) && opErr.Op == "dial"
}

// timeoutError is an attempt that ran out of its time (Transport.Timeout),
// the cause of its context: a net.Error timeout, context.DeadlineExceeded.
type timeoutError struct {
	Limit  time.Duration
	Source string // where the limit came from, such as "WithTimeout"
}

func (e *timeoutError) Error() string {
	return "attempt timed out after " + e.Limit.String() + " (" + e.Source + ")"
}
func (e *timeoutError) Timeout() bool        { return true }
func (e *timeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// NoRedirects is the CheckRedirect of the http.Client a call runs under: a
// 3xx is the attempt's answer (the key never goes to another host).
func NoRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

var errNoResponse = errors.New("the http.RoundTripper returned no response and no error")
