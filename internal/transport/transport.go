// Package transport runs one attempt of a petstore call and hands back
// what it got as a value (see [Result]): the request sent, again only as
// the resend gate allows (see gate.go), under a context that carries the
// attempt's time limit; the response body read within that limit and the
// SDK's size limits. Without a user's http.Client, it sends through one
// pooled transport shared by every Client. It knows nothing of retries, of
// the API's operations or of errors for the caller: the packages above it
// decide from the Result. Apart, these rules, which must hold against a
// hostile or broken server, are read and tested as one piece.
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

	// Header, if set, returns the header of each attempt's request (body
	// says whether it has one): a map made once, shared by every attempt,
	// that nothing writes to. Through a RoundTripper other than an
	// *http.Transport (which only reads a request), each attempt gets a copy:
	// one that set a header anyway, against RoundTripper's contract, would
	// race with other attempts. A function, so that printing a Transport
	// never shows what it sets (the key).
	Header func(body bool) http.Header

	timeout *TimeoutError // the cause of an attempt's context that ran out of time
}

// New returns a Transport with t's settings.
func New(t Transport) *Transport {
	t.timeout = &TimeoutError{Limit: t.Timeout, Source: t.Source}
	return &t
}

// Result is what one attempt got: a response (its status, header and body,
// read into memory), or why it got none.
type Result struct {
	Header http.Header // the response's header; nil when none arrived
	Body   []byte      // the body: up to MaxSuccessBody of a 2xx, MaxErrorBody of any other
	Cut    error       // what cut a non-2xx body short, if anything did (its Body is what arrived)

	// Err is why the attempt got no usable response: a transport error, a
	// *TimeoutError, the call's context's error, a 2xx body cut short or
	// over MaxSuccessBody. Body and Cut are then unset; Status and Header
	// are those of a response whose body failed.
	Err error

	Duration time.Duration // from sending the request to the end of reading the response (when measured)
	Status   int32         // the response's status; 0 when none arrived

	// Reached, with Err: the request may have been processed. A response
	// arrived, or a send wrote its headers (through a RoundTripper that
	// reports no connection: failed other than in a dial), and nothing
	// proved the server dropped it (see gate.go). Refused, with Err, is its
	// opposite: every send had no connection (DNS, dial, TLS handshake,
	// proxy CONNECT: not sent) or was proven unprocessed (its body never
	// read, REFUSED_STREAM, …): a POST may be sent again, with waits.
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

// Shared returns the transport of every Client made without
// WithHTTPClient: a clone of http.DefaultTransport (proxy from the
// environment, same dial and TLS settings), with an idle pool sized for many
// goroutines on one host and, built with Go 1.24 or later, HTTP/2 health
// pings (see PingAfter). Should http.DefaultTransport have been replaced
// (by a mock, say) when it is first needed, it starts from the settings
// net/http's default has instead: a mock must not become the SDK's for good.
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
	health(t) // HTTP/2 health pings, from Go 1.24 (health_go124.go)
	return t
})

// Base returns the http.RoundTripper an attempt sends through now: the user's
// client's Transport (http.DefaultTransport when nil), or Shared.
func (t *Transport) Base() http.RoundTripper {
	if t.User == nil {
		return Shared()
	}
	if t.User.Transport != nil {
		return t.User.Transport
	}
	return http.DefaultTransport
}

// CloseIdleConnections closes the idle connections of what the attempts
// send through: the user's client's transport, as http.Client's
// CloseIdleConnections does, or Shared.
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
	defer a.end()
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
		// A response whose body failed keeps its status and header.
		r.Body, r.Cut = nil, nil
		r.Reached, r.Err = a.failure(err)
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
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// TimeoutError is an attempt that ran out of its time (Transport.Timeout),
// the cause of its context: it matches context.DeadlineExceeded.
type TimeoutError struct {
	Limit  time.Duration
	Source string // where the limit came from, such as "WithTimeout"
}

func (e *TimeoutError) Error() string {
	return "attempt timed out after " + e.Limit.String() + " (" + e.Source + ")"
}

// Timeout reports true (a net.Error timeout).
func (e *TimeoutError) Timeout() bool { return true }

// Is reports whether target is context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool {
	return target == context.DeadlineExceeded
}

// NoRedirects is the CheckRedirect of the http.Client an attempt runs
// under: the interface defines no redirect, so a 3xx is the attempt's
// answer; the key never goes to another host, a POST never becomes a GET.
func NoRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// errNoResponse is a RoundTripper that broke its contract.
var errNoResponse = errors.New("the http.RoundTripper returned no response and no error")
