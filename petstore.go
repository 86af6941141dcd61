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
// A call the SDK refuses before sending fails with an error that wraps
// [ErrInvalidParams]. A response whose status is not 2xx becomes an
// [*APIError]: use errors.As to read it, or errors.Is with [ErrBadRequest],
// [ErrUnauthorized] or [ErrNotFound]. Transport and context errors are
// wrapped, so errors.Is(err, context.DeadlineExceeded) works.
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
// created (429, or no connection could be made). By default a call makes up
// to 3 attempts, waits 500ms to 8s between them, and each attempt times out
// after 30s; see [WithMaxRetries], [WithRetryWait] and [WithTimeout]. The
// context passed to each method bounds the whole call. [WithObserver] sees
// every attempt, for metrics and request ids.
//
// # Testing
//
// Package petstoretest runs an in-memory Pet Store; point a Client at it with
// WithBaseURL. To mock at the HTTP level, pass a client whose Transport is a
// mock (such as httpmock's) with [WithHTTPClient].
package petstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
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
const Version = "0.2.0"

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
	cred      credential // a func: printing a Client never shows the key
	pets      url.URL    // <base>/pets: every request's URL starts as a copy
	plainPath bool       // pets.Path needs no escaping: it is the escaped path
	userAgent []string
	headers   func(body bool) http.Header // see newHeaders
	get, post *retryablehttp.Client       // the retry policy differs by method
	logger    *slog.Logger                // nil: silent
	observer  func(context.Context, Attempt)
	warned    *warnings
	red       *redact.Redactor // finds the key in what a server sends; never prints it
}

// warnings makes each deprecation Warn happen once per Client.
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
	red := redact.New(key)
	c := &Client{
		cred:      cred,
		pets:      *pets,
		plainPath: pets.RawPath == "" && pets.EscapedPath() == pets.Path,
		userAgent: []string{userAgent(cfg.userAgent)},
		logger:    cfg.logger,
		warned:    new(warnings),
		red:       red,
	}
	_, auth := cred()
	c.headers = newHeaders(auth, c.userAgent)
	timeout, source := cfg.attemptTimeout()
	t := &transport.Transport{User: cfg.httpClient, Timeout: timeout, Source: source, Logger: cfg.logger, Redactor: red, Header: c.headers}
	var observe retry.Observer
	if cfg.observer != nil {
		c.observer, observe, t.Record = *cfg.observer, c.observe, record
	}
	hc := transport.NewClient(t)
	c.get = newRetryClient(hc, cfg, true, observe)
	c.post = newRetryClient(hc, cfg, false, observe)
	return c, nil
}

// newRetryClient configures a retryablehttp.Client from nothing but what the
// SDK sets, so none of its defaults (a logger on stderr, a retry policy that
// retries POST, uncapped Retry-After, a status-losing error handler, a
// pooled transport of its own) comes through. The policy waits between
// attempts itself (see retry.Policy); RetryMax only backs it up. observe,
// if not nil, hears of every attempt.
func newRetryClient(hc *http.Client, cfg config, idempotent bool, observe retry.Observer) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient: hc,
		RetryMax:   cfg.maxRetries,
		CheckRetry: retry.Policy{
			Idempotent: idempotent,
			MaxRetries: cfg.maxRetries,
			MinWait:    cfg.retryWaitMin,
			MaxWait:    cfg.retryWaitMax,
			Observer:   observe,
		}.CheckRetry,
		Backoff:      retry.NoBackoff,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
}

// userAgent builds the User-Agent header value.
func userAgent(prefix string) string {
	ua := "petstore-go/" + Version + " (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	if prefix = strings.TrimSpace(prefix); prefix != "" {
		ua = prefix + " " + ua
	}
	return ua
}

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

// call is one call of an operation: the caller's context, which its
// requests carry as theirs (so that the retry policy finds the call's state
// in it, see retry.Carrier, and the transport the attempt's number), that
// state, the request with its URL, and what the last attempt received, for
// the observer, all in one allocation. Its 560 bytes and the 8-byte header
// the runtime gives an object over 512 bytes fill the 576-byte size class:
// a field more would cost 64 bytes per call (TestCallSize).
type call struct {
	context.Context
	retry retry.Call
	rr    retryablehttp.Request
	req   http.Request
	u     url.URL
	op    op

	// What the transport recorded of the last attempt (see record).
	status    int32
	requestID string
	duration  time.Duration
}

// path returns the path of cl's request, escaped, as errors, logs and
// observers show it.
func (c *Client) path(cl *call) string {
	if c.plainPath {
		return cl.u.Path // the pet id adds nothing to escape
	}
	return cl.u.EscapedPath()
}

// RetryCall returns the call's retry state.
func (cl *call) RetryCall() *retry.Call { return &cl.retry }

// Attempt returns the number of the attempt being made (see
// transport.Numbered): one more than the attempts that have ended.
func (cl *call) Attempt() int { return cl.retry.Attempts() + 1 }

// noHeader is the header of every call's request: the transport sets the
// real ones (see newHeaders) on each attempt's request, so net/http's
// client has nothing to copy for redirects, which the SDK never follows.
// Nothing writes to it.
var noHeader = http.Header{}

// newCall builds the request of a call of o (with id, the pet id of an
// operation by id, and query, the encoded query string) as
// retryablehttp.NewRequest would from the URL string, without formatting
// and parsing that string: the URL is a copy of c.pets, with the pet id
// appended and the query.
func (c *Client) newCall(ctx context.Context, o op, id int64, query string, body []byte) *call {
	cl := &call{Context: ctx, u: c.pets, op: o}
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
		// http.Client's send would copy the URL to set a Host.
	}
	cl.req = *tmpl.WithContext(cl)
	cl.rr.Request = &cl.req
	if body != nil {
		// The transport gives each attempt a body from GetBody (see
		// transport.NewBody). Given the bytes, retryablehttp would box
		// them, close over them twice, and make two readers per attempt.
		cl.req.GetBody, cl.req.ContentLength = transport.NewBody(body), int64(len(body))
	}
	return cl
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
	rc := c.get
	if method != http.MethodGet {
		rc = c.post
	}
	resp, err := rc.Do(&cl.rr)
	if resp != nil {
		defer resp.Body.Close()
	}
	if err != nil {
		if last, lastErr, ok := cl.retry.Interrupted(); ok {
			// The context ended before the retry: say so, and keep the
			// outcome that was to be retried.
			return &retryWaitError{method: method, path: c.path(cl), ctx: err, last: c.callError(cl, last, lastErr)}
		}
		return c.callError(cl, nil, err)
	}
	if c.logger != nil {
		c.warnDeprecationHeaders(cl, resp.Header)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return c.callError(cl, resp, nil)
	}
	data, err := transport.Contents(resp.Body)
	if err != nil {
		return c.callError(cl, nil, err)
	}
	if err := decode(data); err != nil {
		return fmt.Errorf("petstore: %s %s: unexpected response body: %w", method, c.path(cl), err)
	}
	return nil
}

// callError is the error of call cl whose last attempt ended with resp, a
// response that is not 2xx, or else with err.
func (c *Client) callError(cl *call, resp *http.Response, err error) error {
	method := operations[cl.op].method
	if resp == nil {
		if err == nil {
			err = errors.New("no response") // not from net/http; never fails silently
		}
		return &transportError{method: method, path: c.path(cl), err: redactError(err, c.red)}
	}
	data, cut := transport.Contents(resp.Body)
	e := newAPIError(method, c.path(cl), resp, data, cut, cl.retry.RetryAfter(), c.red)
	if !operations[cl.op].byID && e.Status == http.StatusNotFound {
		e.Message = collectionNotFound(e.Message, e.Path)
	}
	return e
}

// warnDeprecated logs, once per Client, that the deprecated GetPet is used.
func (c *Client) warnDeprecated(ctx context.Context) {
	if c.logger == nil {
		return
	}
	c.warned.getPet.Do(func() {
		c.logger.LogAttrs(ctx, slog.LevelWarn, "petstore: GetPet is deprecated and will be removed on 5 December 2030; use ListPets with a Status filter",
			slog.String("operation", "GetPet"))
	})
}

// warnDeprecationHeaders logs, once per Client and operation, that the
// response to cl carried a Deprecation or Sunset header (RFC 9745, RFC
// 8594).
func (c *Client) warnDeprecationHeaders(cl *call, h http.Header) {
	dep, sunset := h.Get("Deprecation"), h.Get("Sunset")
	if dep == "" && sunset == "" {
		return
	}
	c.warned.header[cl.op].Do(func() {
		attrs := []slog.Attr{slog.String("method", operations[cl.op].method), slog.String("path", c.path(cl))}
		if t, ok := parseDeprecation(dep); ok {
			attrs = append(attrs, slog.Time("deprecated_since", t))
		}
		if t, err := http.ParseTime(sunset); err == nil {
			attrs = append(attrs, slog.Time("sunset", t))
		}
		c.logger.LogAttrs(cl.Context, slog.LevelWarn, "petstore: the server says this endpoint is deprecated", attrs...)
	})
}

// parseDeprecation reads a Deprecation header: "@<unix seconds>" (RFC 9745)
// or an HTTP date (earlier drafts).
func parseDeprecation(v string) (time.Time, bool) {
	if s, ok := strings.CutPrefix(v, "@"); ok {
		n, err := strconv.ParseInt(s, 10, 64)
		return time.Unix(n, 0).UTC(), err == nil
	}
	t, err := http.ParseTime(v)
	return t, err == nil
}
