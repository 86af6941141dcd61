// Package petstore is a client for the Pet Store API (interface version
// 1.0.0): list animals, add one, and get one by id.
//
//	c, err := petstore.NewClient("", petstore.WithBaseURL(petstore.StagingURL))
//	pets, err := c.ListPets(ctx, petstore.ListPetsParams{Status: petstore.PetStatusAvailable})
//
// # Authentication
//
// Every request carries the API key as a bearer token. [NewClient] takes the
// key as its argument, or else from the PETSTORE_API_KEY environment variable;
// the base URL comes from [WithBaseURL], else PETSTORE_BASE_URL, else
// [ProductionURL]. The key never appears in errors, logs or printed values.
//
// # Errors
//
// A parameter the SDK refuses is a [*ParamError] ([ErrInvalidParams]); a
// non-2xx response, an [*APIError] (errors.As), which errors.Is matches with
// [ErrBadRequest], [ErrUnauthorized], [ErrNotFound], [ErrRateLimited] or
// [ErrServerError]. [Retryable] says whether to try again later. Transport
// and context errors are wrapped: errors.Is(err, context.DeadlineExceeded).
//
// A CreatePet whose request may have reached the server and got no usable
// answer (a reset, a closed connection or a timeout after the body went
// out) fails with an error that matches [ErrOutcomeUnknown]: the animal may
// or may not exist. So does one answered 2xx with a body that is not a Pet:
// the animal exists, and its id is unknown.
//
// One error matches both: when the context ends while the SDK waits to
// retry, the error matches context.Canceled (or context.DeadlineExceeded)
// and carries the last attempt's [*APIError] too. Test the context error
// first, so that a call given up on is not taken for the server's answer.
//
// # Retries and timeouts
//
// Reads (ListPets, GetPet) are retried on 408, 429, 500, 502, 503 and 504
// and on transport errors; CreatePet only when the animal cannot have been
// created (429, or no connection was had: DNS, dial, TLS handshake, proxy
// CONNECT). By default a call makes up to 3 attempts, waits 500ms to 8s
// between them, and each attempt times out after 30s; see [WithMaxRetries],
// [WithRetryWait] and [WithTimeout]. The context passed to each method
// bounds the whole call. [WithObserver] sees every attempt.
//
// Within an attempt, a read may be sent up to seven times (net/http's own
// bound; the third and later after pauses of 1s, 2s, 4s …). A CreatePet is
// sent again, up to the same bound, only on proof that the server cannot
// have processed the earlier send: its body never read, a REFUSED_STREAM, a
// GOAWAY that excluded it, a failed write on an HTTP/1.1 connection.
//
// Built with Go 1.24 or later, the default transport pings an HTTP/2
// connection that has received nothing for 10s, and closes it if no answer
// comes within 5s: a connection dropped silently costs at most 15s, not a
// call's attempts. A [WithHTTPClient] client is never modified (see there).
//
// # Testing
//
// Package petstoretest runs an in-memory Pet Store; point a Client at it with
// WithBaseURL. To mock at the HTTP level, pass a client whose Transport is a
// mock (such as httpmock's) with [WithHTTPClient].
package petstore

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/petstore/petstore-go/internal/redact"
	"github.com/petstore/petstore-go/internal/retry"
	"github.com/petstore/petstore-go/internal/transport"
)

// Version is the version of this SDK (semantic versioning, no "v" prefix).
// It is sent in the User-Agent header.
const Version = "0.4.0"

// APIVersion is the version of the Pet Store interface this SDK speaks.
const APIVersion = "1.0.0"

// Base URLs of the two deployments. Both serve the same interface.
const (
	ProductionURL = "https://petstore.example.com/v1"         // production
	StagingURL    = "https://staging.petstore.example.com/v1" // staging
)

// Client calls the Pet Store API. Create it with [NewClient]. It is immutable
// and safe for concurrent use by multiple goroutines; reuse one Client, so
// that connections are reused too.
type Client struct {
	cred      credential              // a func: printing a Client never shows the key
	pets      url.URL                 // <base>/pets: every request's URL starts as a copy
	plainPath bool                    // pets.Path needs no escaping: it is the escaped path
	transport *transport.Transport    // runs each attempt: sends[0], or sends[1] for an observer
	sends     [2]*transport.Transport // untimed and timed, alike else; shared with the Clients of With
	cfg       config                  // the options, resolved: baseURL "" (see pets), insecureHTTP with the environment's
	policies  [numOps]retry.Policy    // the retry policy of each operation
	logger    *slog.Logger            // nil: silent
	observer  func(context.Context, Attempt)
	warned    *warnings
	red       *redact.Redactor // finds the key in what a server sends; never prints it
}

// warnings makes each deprecation Warn happen once per Client (and the
// Clients made from it by With).
type warnings struct {
	getPet sync.Once
	header [numOps]sync.Once // per operation: a response said Deprecation or Sunset
}

// NewClient returns a Client that uses apiKey, or $PETSTORE_API_KEY when
// apiKey is empty (else it returns [ErrMissingAPIKey]). A key that a bearer
// token cannot hold (RFC 6750: letters, digits and -._~+/, then = padding)
// is refused, with its position, never the key, in the error. The base URL
// is the one given with [WithBaseURL], else $PETSTORE_BASE_URL, else
// [ProductionURL]. The environment is read here and only here. NewClient
// checks every option and returns an error for a bad one; it never panics.
func NewClient(apiKey string, opts ...Option) (*Client, error) {
	cfg := newConfig(opts)
	cred, err := resolveAPIKey(apiKey)
	if err != nil {
		return nil, err
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	pets, err := cfg.petsURL()
	if err != nil {
		return nil, err
	}
	key, _ := cred()
	c := &Client{cred: cred, cfg: cfg, warned: new(warnings), red: redact.New(key)}
	c.cfg.baseURL = "" // resolved: c.pets
	c.settle(pets, nil)
	return c, nil
}

// settle sets what c derives from c.cfg, and c.pets from pets unless it is
// nil. c keeps the transports of from, the Client With made it from (nil:
// none), unless their settings differ in what the transports depend on.
func (c *Client) settle(pets *url.URL, from *Client) {
	cfg := &c.cfg
	if pets != nil {
		c.pets, c.plainPath = *pets, pets.RawPath == "" && pets.EscapedPath() == pets.Path
	}
	c.logger, c.observer = cfg.logger, nil
	if cfg.observer != nil {
		c.observer = *cfg.observer
	}
	for o, op := range operations {
		c.policies[o] = retry.Policy{Idempotent: op.method == http.MethodGet, MaxRetries: cfg.maxRetries, MinWait: cfg.retryWaitMin, MaxWait: cfg.retryWaitMax}
	}
	if from == nil || !cfg.sameTransport(&from.cfg) {
		c.newSends()
	}
	c.transport = c.sends[0]
	if c.observer != nil {
		c.transport = c.sends[1]
	}
}

// CloseIdleConnections closes the connections kept open for reuse that no
// call is using: those of the transport shared by every Client made
// without [WithHTTPClient], or else those of that client's transport, as
// [http.Client.CloseIdleConnections] does. Calls in flight are not
// affected, and the Client stays usable. Call it at the end of a test that
// checks for leaked goroutines (goleak), whose pooled connections would
// otherwise count as leaks.
func (c *Client) CloseIdleConnections() { c.transport.CloseIdleConnections() }

// op numbers the API's operations, for per-operation state.
type op uint8

const (
	opListPets op = iota
	opCreatePet
	opGetPet
	numOps
)

// operation is what the SDK knows of one of the API's operations; the
// table below is the one place that tells them apart.
type operation struct {
	name   string // as Attempt.Operation says it
	method string
	byID   bool // its path ends in a pet id: a 404 means no such pet, not a wrong base URL
}

var operations = [numOps]operation{
	opListPets:  {"ListPets", http.MethodGet, false},
	opCreatePet: {"CreatePet", http.MethodPost, false},
	opGetPet:    {"GetPet", http.MethodGet, true},
}

// call is one call of an operation, and the retry loop that makes it:
// go-retryablehttp's, in a retryablehttp.Client made for the call, whose
// hooks are the call's methods (checkRetry, backoff) and whose http.Client
// sends through the call itself (RoundTrip runs one attempt). So the
// call's state is a value the hooks read: what each attempt got is a
// transport.Result, read once when the attempt ends. What go-retryablehttp
// and http.Client are handed is the call's own response, with the
// attempt's real status and header. The wait between attempts is
// go-retryablehttp's: backoff returns the wait the policy decided in
// checkRetry, after the observer has heard of the attempt, and
// go-retryablehttp waits on the call's context (its request's), as it
// documents. All of it is one allocation of 968 bytes (TestCallSize).
type call struct {
	c        *Client
	body     []byte // the JSON body; nil: none
	op       op
	attempts int32        // made so far
	u        url.URL      // the request's URL
	req      http.Request // every attempt's request is a copy of it; its context is the call's
	rr       retryablehttp.Request
	rc       retryablehttp.Client
	hc       http.Client      // rc's; its Transport is the call
	resp     http.Response    // the last attempt's response, as RoundTrip returns it
	last     transport.Result // what the last attempt got
	after    retry.RetryAfter // last's Retry-After, when its status is not 2xx
	id       string           // last's request id, redacted; read only when needed (see RoundTrip)
	err      error            // last's error, once built (see lastError)
	decision retry.Decision   // the policy's, after the last attempt
}

// path returns the path of cl's request, escaped, as errors, logs and
// observers show it.
func (c *Client) path(cl *call) string {
	if c.plainPath {
		return cl.u.Path // the pet id adds nothing to escape
	}
	return cl.u.EscapedPath()
}

// noHeader is the header of every call's request: the transport sets the
// real ones (see newHeaders) on each attempt's request. Nothing writes to it.
var noHeader = http.Header{}

// newCall returns a call of o, with id, the pet id of an operation by id,
// query, the encoded query string, and body, the JSON body, if not nil. Its
// request is built as retryablehttp.NewRequest would build it from the URL
// string, without formatting and parsing that string: the URL is a copy of
// c.pets, with the pet id appended and the query.
func (c *Client) newCall(ctx context.Context, o op, id int64, query string, body []byte) *call {
	cl := &call{c: c, op: o, body: body, u: c.pets}
	cl.u.RawQuery = query
	if operations[o].byID {
		id := strconv.FormatInt(id, 10)
		cl.u.Path = c.pets.Path + "/" + id
		if c.pets.RawPath != "" {
			cl.u.RawPath = c.pets.RawPath + "/" + id
		}
	}
	tmpl := http.Request{
		Method:     operations[o].method,
		URL:        &cl.u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     noHeader,
		// No Host: net/http sends URL.Host then, the same host, and
		// http.Client's send would copy the URL to set a Host. No Body:
		// the transport gives each attempt's request one of its own.
	}
	cl.req = *tmpl.WithContext(ctx)
	cl.rr.Request = &cl.req
	cl.hc.Transport, cl.hc.CheckRedirect = cl, transport.NoRedirects
	cl.rc.HTTPClient = &cl.hc
	cl.rc.RetryMax = c.policies[o].MaxRetries
	cl.rc.CheckRetry, cl.rc.Backoff = cl.checkRetry, cl.backoff
	cl.rc.ErrorHandler = retryablehttp.PassthroughErrorHandler // the call's error is made from cl.last; no Logger: it logs nothing
	return cl
}

// RoundTrip runs one attempt of the call, with req, the call's request as
// go-retryablehttp and http.Client hand it down, and keeps what it got in
// cl.last, with what is read of it once: its request id (when an observer
// or an *APIError shows it) and the Retry-After of a status not 2xx. It
// returns the attempt's error, or cl.resp: the attempt's status code and
// header (which nothing writes to), without the body (in cl.last). Their
// defaults, which the call replaces, would read the real status; the
// call's http.Client hands a redirect back as it is (NoRedirects).
func (cl *call) RoundTrip(req *http.Request) (*http.Response, error) {
	cl.attempts++
	r := &cl.last
	*r = cl.c.transport.Send(req, cl.body, int(cl.attempts))
	cl.after, cl.id, cl.err = retry.RetryAfter{}, "", nil
	notOK := r.Err == nil && (r.Status < 200 || r.Status > 299) // its error is an *APIError
	if r.Header != nil && (notOK || cl.c.observer != nil) {
		cl.id = cl.c.red.String(transport.RequestID(r.Header)) // a server may echo the key here
	}
	if r.Err != nil {
		return nil, r.Err
	}
	if notOK {
		cl.after = retry.FromHeader(r.Header, time.Now())
	}
	cl.resp = http.Response{StatusCode: int(r.Status), Header: r.Header, Body: http.NoBody, Request: req}
	return &cl.resp, nil
}

// checkRetry is the call's retryablehttp.CheckRetry: the policy decides on
// the last attempt, and the observer, if any, hears of it and of the
// decision, before any wait.
func (cl *call) checkRetry(ctx context.Context, _ *http.Response, _ error) (bool, error) {
	cl.decision = cl.c.policies[cl.op].Decide(ctx, int(cl.attempts), &cl.last, cl.after)
	if cl.c.observer != nil {
		cl.c.observe(cl)
	}
	return cl.decision.Retry, nil
}

// backoff is the call's retryablehttp.Backoff: the wait checkRetry decided.
func (cl *call) backoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	return cl.decision.Wait
}

// do makes one call of o, with id, the pet id of an operation by id, query,
// the encoded query string, and body, the JSON body, if not nil. It retries
// as the policy says and hands a 2xx body to decode; any other outcome is an
// error, and so is decode's.
func (c *Client) do(ctx context.Context, o op, id int64, query string, body []byte, decode func([]byte) error) error {
	if ctx == nil {
		return fmt.Errorf("%w: nil context.Context", ErrInvalidParams)
	}
	cl := c.newCall(ctx, o, id, query, body)
	method := operations[o].method
	if err := ctx.Err(); err != nil {
		return &transportError{method: method, path: c.path(cl), err: err}
	}
	_, err := cl.rc.Do(&cl.rr) // it returns what cl.last holds, unless the context ended in a wait
	r := &cl.last
	switch {
	case (cl.decision.Retry || cl.decision.Interrupted) && ctx.Err() != nil:
		// The context ended before the retry: say so, and keep the
		// outcome that was to be retried.
		return &retryWaitError{method: method, path: c.path(cl), ctx: ctx.Err(), last: c.lastError(cl)}
	case cl.attempts == 0: // go-retryablehttp made none: not expected
		return &transportError{method: method, path: c.path(cl), err: err}
	case r.Err != nil:
		return c.lastError(cl)
	}
	if c.logger != nil {
		c.warnDeprecationHeaders(cl, r.Header)
	}
	if r.Status < 200 || r.Status > 299 {
		return c.lastError(cl)
	}
	if err := decode(r.Body); err != nil {
		if method == http.MethodPost { // created, but which animal?
			return &unreadError{method: method, path: c.path(cl), status: int(r.Status), empty: len(bytes.TrimSpace(r.Body)) == 0, err: err}
		}
		return fmt.Errorf("petstore: %s %s: unexpected response body: %w", method, c.path(cl), err)
	}
	return nil
}

// lastError returns the error of call cl whose last attempt got no usable
// response, or one that is not 2xx: built the first time it is asked for
// (by the observer, then by do, say), then kept.
func (c *Client) lastError(cl *call) error {
	if cl.err == nil {
		cl.err = c.callError(cl)
	}
	return cl.err
}

// callError builds the error of call cl whose last attempt got no usable
// response, or one that is not 2xx (see lastError).
func (c *Client) callError(cl *call) error {
	method, r := operations[cl.op].method, &cl.last
	if r.Err != nil {
		// Wrapped as http.Client wraps what its RoundTripper returns.
		op := method[:1] + strings.ToLower(method[1:])
		cause := redactError(&url.Error{Op: op, URL: cl.u.String(), Err: r.Err}, c.red)
		err := &transportError{method: method, path: c.path(cl), err: cause,
			later: cl.req.Context().Err() == nil && retry.Later(method == http.MethodGet, r)}
		if method == http.MethodPost && r.Reached && (r.Status == 0 || r.Status/100 == 2) {
			// It may have been created, or was (a 2xx whose body did not
			// arrive); any other status is the server's answer.
			return &outcomeError{err}
		}
		return err
	}
	a := answer{status: int(r.Status), requestID: cl.id, contentType: r.Header.Get("Content-Type"),
		body: r.Body, limit: transport.MaxErrorBody, cut: r.Cut != nil}
	if cl.after.OK {
		a.retryAfter = cl.after.Wait
	}
	e := newAPIError(method, c.path(cl), a, c.red)
	if !operations[cl.op].byID && e.Status == http.StatusNotFound {
		e.Message = collectionNotFound(e.Message, e.Path)
	}
	return e
}
