// Package transport runs one attempt of a petstore call: it is the
// http.RoundTripper under go-retryablehttp. Each attempt gets its own time
// limit, reads the whole response body within that limit (so that a body cut
// short is a failed attempt the retry policy can see), never reads more than
// the SDK's size limits, and follows no redirect. Without a user's
// http.Client, it sends through one pooled transport shared by every Client.
//
// It exists apart from the client so that these rules, the part of the SDK
// that must hold against a hostile or broken server, can be read and tested
// as one piece.
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

// NewClient returns the http.Client that go-retryablehttp sends through: t,
// and no redirects followed.
func NewClient(t *Transport) *http.Client {
	return &http.Client{Transport: t, CheckRedirect: noRedirects}
}

// Transport is the SDK's http.RoundTripper for one Client. It sends through
// the user's transport (looked up on every request), bounds each attempt with
// the timeout, holds net/http to one request per attempt (see
// attempt.gotConn), and reads the whole body within the attempt: a body cut
// short is then an attempt that failed, which the retry policy can see. It
// does not implement CloseIdleConnections, so retryablehttp cannot flush the
// pool of a transport it does not own.
type Transport struct {
	User     *http.Client     // the user's client (WithHTTPClient), or nil for Shared
	Timeout  time.Duration    // per attempt; 0: none
	Source   string           // where Timeout came from, for its error: "WithTimeout", say
	Logger   *slog.Logger     // one Debug record per attempt; nil: silent
	Redactor *redact.Redactor // hides the key in what a server chose (the request ids logged)

	// Record, if set, is told what each attempt received, for an
	// observer: ctx is its request's context, status the response's (0
	// when none arrived), requestID its request id (see RequestID) with
	// the key redacted, d the time from sending the request to the end of
	// reading the response.
	Record func(ctx context.Context, status int, requestID string, d time.Duration)

	// Header, if set, returns the header of each attempt's request (body
	// says whether it has one): a map made once, shared by every attempt,
	// that nothing writes to. Only the shared transport (Shared, with
	// net/http's ProxyFromEnvironment), which never writes to a request,
	// is handed that map; through a user's client each attempt gets a map
	// of its own (with the same values, whose slices Header.Set and Add
	// replace rather than write to). RoundTripper's contract forbids
	// writing to the request, but a RoundTripper, or a user's
	// http.Transport's Proxy function, that did would race with every other
	// attempt on a shared map.
	// It is a function, so that printing a Transport never shows what it
	// sets (the key).
	Header func(body bool) http.Header
}

// Numbered is a context that knows which attempt of its call its request
// is, for the Debug record; a request whose context is not is logged as the
// first.
type Numbered interface {
	Attempt() int // 1 for the first attempt
}

// RequestID returns the request id of a response with header h: its
// X-Request-Id, else its Request-Id. It is h.Get of each, without the work
// of putting keys that are canonical already in canonical form.
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
// goroutines on one host. Should http.DefaultTransport have been replaced
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

// RoundTrip runs one attempt. It returns a response whose Body is already
// read into memory (see Contents), or an error. A request with a GetBody and
// no Body is sent with a body from GetBody (see NewBody), made afresh for
// each attempt.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	parent := req.Context()
	a := newAttempt(parent, t.Timeout)
	defer a.release()
	a.t = t
	base := t.Base()
	_, netHTTP := base.(*http.Transport)
	a.wrapped = !netHTTP
	req = req.WithContext(a.ctx())
	if req.Body == nil && req.GetBody != nil {
		body, err := req.GetBody() // see NewBody
		if err != nil {
			return nil, err
		}
		req.Body = body
	}
	hasBody := req.Body != nil && req.Body != http.NoBody
	if t.Header != nil {
		req.Header = t.Header(hasBody)
		if t.User != nil {
			h := make(http.Header, len(req.Header))
			maps.Copy(h, req.Header) // the values are not written, but replaced, by Set and Add
			req.Header = h
		}
	}
	if hasBody && (req.URL.Scheme != "http" || t.User != nil && plainHTTP2(base)) {
		// net/http sends a body again only through GetBody: over HTTP/2,
		// after a RST_STREAM or a GOAWAY; the attempt's refuses once the
		// request may have reached the server. (Over HTTP/1.1 net/http
		// resends a POST only when nothing of it was written: plain http
		// keeps the request's own GetBody, and an allocation.)
		a.body0, req.GetBody = req.GetBody, a.getBody
	}
	var start time.Time
	if t.Logger != nil || t.Record != nil {
		start = time.Now()
	}
	resp, err := base.RoundTrip(req)
	var status int
	var header http.Header
	switch {
	case err != nil:
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		resp = nil
	case resp == nil:
		err = errors.New("the http.RoundTripper returned no response and no error")
	default:
		status, header = resp.StatusCode, resp.Header
		if resp.Body == nil {
			resp.Body = http.NoBody
		}
		err = a.bufferBody(parent, resp)
	}
	switch refused := a.refusal(); {
	case refused != nil:
		err, resp, status, header = refused, nil, 0, nil
	case err == nil:
	case a.timedOut() && parent.Err() == nil:
		err = &TimeoutError{Limit: t.Timeout, Source: t.Source}
	}
	if t.Logger != nil || t.Record != nil {
		t.report(parent, req, status, header, err, time.Since(start))
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// report logs an attempt that ended with a response of status with header
// (0 and nil when none arrived) or with err, after d, and records it.
func (t *Transport) report(parent context.Context, req *http.Request, status int, header http.Header, err error, d time.Duration) {
	var id string
	if header != nil {
		// A server may echo the key (the request's bearer token) here.
		id = t.Redactor.String(RequestID(header))
	}
	if t.Logger != nil {
		number := 1
		if n, ok := parent.(Numbered); ok {
			number = n.Attempt()
		}
		logAttempt(parent, t.Logger, req, number, status, id, err, d)
	}
	if t.Record != nil {
		t.Record(parent, status, id, d)
	}
}

// TimeoutError is an attempt that ran out of its time (Transport.Timeout).
// It matches context.DeadlineExceeded, and is a net.Error timeout.
type TimeoutError struct {
	Limit  time.Duration
	Source string // where the limit came from, such as "WithTimeout"
}

func (e *TimeoutError) Error() string {
	return "attempt timed out after " + e.Limit.String() + " (" + e.Source + ")"
}

// Timeout reports true: the error is a timeout.
func (e *TimeoutError) Timeout() bool { return true }

// Is reports whether target is context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool {
	return target == context.DeadlineExceeded
}

// noRedirects makes a 3xx the answer of its attempt. The interface defines
// no redirect, so the SDK follows none: a 3xx comes back as an APIError, the
// key never goes to another host, a POST never turns into a GET, and one
// attempt is one request, which WithTimeout and the logs count.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
