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
// # Retries and timeouts
//
// Reads (ListPets, GetPet) are retried on 408, 429, 500, 502, 503 and 504
// and on transport errors; CreatePet only when the animal cannot have been
// created (429, or no connection could be made). By default a call makes up
// to 3 attempts, waits 500ms to 8s between them, and each attempt times out
// after 30s; see [WithMaxRetries], [WithRetryWait] and [WithTimeout]. The
// context passed to each method bounds the whole call.
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
	petsPath  string     // its path, as errors and logs show it
	userAgent []string
	get, post *retryablehttp.Client // the retry policy differs by method
	logger    *slog.Logger          // nil: silent
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
	petsPath := pets.EscapedPath()
	if !strings.HasPrefix(petsPath, "/") {
		petsPath = "/" + petsPath // a base URL with no path at all
	}
	key, _ := cred()
	red := redact.New(key)
	c := &Client{
		cred:      cred,
		pets:      *pets,
		petsPath:  petsPath,
		userAgent: []string{userAgent(cfg.userAgent)},
		logger:    cfg.logger,
		warned:    new(warnings),
		red:       red,
	}
	timeout, source := cfg.attemptTimeout()
	hc := transport.NewClient(&transport.Transport{User: cfg.httpClient, Timeout: timeout, Source: source, Logger: cfg.logger, Redactor: red, SetHeader: c.setHeader})
	c.get = newRetryClient(hc, cfg, true)
	c.post = newRetryClient(hc, cfg, false)
	return c, nil
}

// newRetryClient configures a retryablehttp.Client from nothing but what the
// SDK sets, so none of its defaults (a logger on stderr, a retry policy that
// retries POST, uncapped Retry-After, a status-losing error handler, a
// pooled transport of its own) comes through. The policy waits between
// attempts itself (see retry.Policy); RetryMax only backs it up.
func newRetryClient(hc *http.Client, cfg config, idempotent bool) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient: hc,
		RetryMax:   cfg.maxRetries,
		CheckRetry: retry.Policy{
			Idempotent: idempotent,
			MaxRetries: cfg.maxRetries,
			MinWait:    cfg.retryWaitMin,
			MaxWait:    cfg.retryWaitMax,
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

// operations, for per-operation state.
type op int

const (
	opListPets op = iota
	opCreatePet
	opGetPet
	numOps
)

// method is the HTTP method of an operation.
func (o op) method() string {
	if o == opCreatePet {
		return http.MethodPost
	}
	return http.MethodGet
}

// path returns the path of a call, as errors and logs show it: the pets
// collection, or for GetPet the pet id.
func (c *Client) path(o op, id int64) string {
	if o == opGetPet {
		return c.petsPath + "/" + strconv.FormatInt(id, 10)
	}
	return c.petsPath
}

// call is one call of an operation: the caller's context, which its
// requests carry as theirs (so that the retry policy finds the call's state
// in it, see retry.Carrier, and the transport the attempt's number), that
// state, and the request with its URL, all in one allocation.
type call struct {
	context.Context
	retry retry.Call
	rr    retryablehttp.Request
	req   http.Request
	u     url.URL
}

// RetryCall returns the call's retry state.
func (cl *call) RetryCall() *retry.Call { return &cl.retry }

// Attempt returns the number of the attempt being made (see
// transport.Numbered): one more than the attempts that have ended.
func (cl *call) Attempt() int { return cl.retry.Attempts() + 1 }

// noHeader is the header of every call's request: the transport sets the
// real ones (see Client.setHeader) on each attempt's request, whose map is
// then the attempt's own, so net/http's client has nothing to copy for
// redirects, which the SDK never follows. Nothing writes to it.
var noHeader = http.Header{}

// newCall builds the request of a call to path (see Client.path) as
// retryablehttp.NewRequest would from the URL string, without formatting and
// parsing that string: the URL is a copy of c.pets, with the pet id appended
// for GetPet and the query.
func (c *Client) newCall(ctx context.Context, o op, id int64, path, query string, body []byte) (*call, error) {
	cl := &call{Context: ctx, u: c.pets}
	cl.u.RawQuery = query
	if o == opGetPet {
		// path, escaped, is also the URL's path when nothing in the base
		// path is escaped, as with the API's base URLs.
		cl.u.Path = path
		if c.pets.RawPath != "" || c.pets.Path != c.petsPath {
			cl.u.Path = c.pets.Path + "/" + strconv.FormatInt(id, 10)
			if c.pets.RawPath != "" {
				cl.u.RawPath = c.pets.RawPath + "/" + strconv.FormatInt(id, 10)
			}
		}
	}
	tmpl := http.Request{
		Method:     o.method(),
		URL:        &cl.u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     noHeader,
		Host:       c.pets.Host,
	}
	cl.req = *tmpl.WithContext(cl)
	cl.rr.Request = &cl.req
	var raw any
	if body != nil {
		raw = body
	}
	if err := cl.rr.SetBody(raw); err != nil {
		return nil, err
	}
	return cl, nil
}

// setHeader fills the header map of an attempt's request (see
// transport.Transport.SetHeader).
func (c *Client) setHeader(h http.Header, body bool) {
	_, h["Authorization"] = c.cred()
	h["Accept"] = jsonMediaType
	h["User-Agent"] = c.userAgent
	if body {
		h["Content-Type"] = jsonMediaType
	}
}

// do sends one call of operation o (with id, the pet id of GetPet, and
// query, the encoded query string), with body as its JSON body when it is
// not nil. It returns the 2xx body for the caller to decode; any other
// outcome is an error.
func (c *Client) do(ctx context.Context, o op, id int64, query string, body []byte) ([]byte, error) {
	method, path := o.method(), c.path(o, id)
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context.Context", ErrInvalidParams)
	}
	if err := ctx.Err(); err != nil {
		return nil, &transportError{method: method, path: path, err: err}
	}
	cl, err := c.newCall(ctx, o, id, path, query, body)
	if err != nil {
		return nil, fmt.Errorf("petstore: %s %s: %w", method, path, err)
	}

	rc := c.get
	if o == opCreatePet {
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
			return nil, &retryWaitError{method: method, path: path, ctx: err, last: c.callError(o, path, last, lastErr)}
		}
		return nil, c.callError(o, path, nil, err)
	}
	if c.logger != nil {
		c.warnDeprecationHeaders(ctx, o, method, path, resp.Header)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, c.callError(o, path, resp, nil)
	}
	data, err := transport.Contents(resp.Body)
	if err != nil {
		return nil, c.callError(o, path, nil, err)
	}
	return data, nil
}

// callError is the error of a call of o to path whose last attempt ended
// with resp, a response that is not 2xx, or else with err.
func (c *Client) callError(o op, path string, resp *http.Response, err error) error {
	if resp == nil {
		if err == nil {
			err = errors.New("no response") // not from net/http; never fails silently
		}
		return &transportError{method: o.method(), path: path, err: redactError(err, c.red)}
	}
	data, cut := transport.Contents(resp.Body)
	e := newAPIError(o.method(), path, resp, data, cut, c.red)
	if o != opGetPet && e.Status == http.StatusNotFound {
		e.Message = collectionNotFound(e.Message, e.Path)
	}
	return e
}

var jsonMediaType = []string{"application/json"}

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

// warnDeprecationHeaders logs, once per Client and operation, that a
// response carried a Deprecation or Sunset header (RFC 9745, RFC 8594).
func (c *Client) warnDeprecationHeaders(ctx context.Context, o op, method, path string, h http.Header) {
	dep, sunset := h.Get("Deprecation"), h.Get("Sunset")
	if dep == "" && sunset == "" {
		return
	}
	c.warned.header[o].Do(func() {
		attrs := []slog.Attr{slog.String("method", method), slog.String("path", path)}
		if t, ok := parseDeprecation(dep); ok {
			attrs = append(attrs, slog.Time("deprecated_since", t))
		}
		if t, err := http.ParseTime(sunset); err == nil {
			attrs = append(attrs, slog.Time("sunset", t))
		}
		c.logger.LogAttrs(ctx, slog.LevelWarn, "petstore: the server says this endpoint is deprecated", attrs...)
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
