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
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/petstore/petstore-go/internal/redact"
	"github.com/petstore/petstore-go/internal/retry"
)

// Version is the version of this SDK (semantic versioning, no "v" prefix).
// It is sent in the User-Agent header.
const Version = "0.1.0"

// APIVersion is the version of the Pet Store interface this SDK speaks.
const APIVersion = "1.0.0"

// Base URLs of the two deployments. Both serve the same interface.
const (
	ProductionURL = "https://petstore.example.com/v1"         // production
	StagingURL    = "https://staging.petstore.example.com/v1" // staging
)

// envBaseURL is the environment variable NewClient reads when it is given no
// WithBaseURL.
const envBaseURL = "PETSTORE_BASE_URL"

// maxSuccessBody is the largest 2xx body the SDK reads.
const maxSuccessBody = 10 << 20

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
// apiKey is empty (else it returns [ErrMissingAPIKey]). The base URL is the
// one given with [WithBaseURL], else $PETSTORE_BASE_URL, else [ProductionURL].
// The environment is read here and only here. NewClient checks every option
// and returns an error for a bad one; it never panics.
func NewClient(apiKey string, opts ...Option) (*Client, error) {
	cfg := config{
		maxRetries:   defaultMaxRetries,
		retryWaitMin: defaultRetryWaitMin,
		retryWaitMax: defaultRetryWaitMax,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}

	cred, err := resolveAPIKey(apiKey)
	if err != nil {
		return nil, err
	}
	key, _ := cred()
	red := redact.New(key)
	rawBase, source := cfg.baseURL, "WithBaseURL"
	if !cfg.baseURLSet {
		rawBase, source = os.Getenv(envBaseURL), envBaseURL
		if strings.TrimSpace(rawBase) == "" {
			rawBase, source = ProductionURL, "ProductionURL"
		}
	}
	base, err := parseBaseURL(rawBase, cfg.insecureHTTP)
	if err != nil {
		return nil, fmt.Errorf("petstore: %s: %w", source, err)
	}
	if cfg.httpSet && cfg.httpClient == nil {
		return nil, errors.New("petstore: WithHTTPClient: nil *http.Client")
	}
	if cfg.maxRetries < 0 {
		return nil, fmt.Errorf("petstore: WithMaxRetries: %d is negative", cfg.maxRetries)
	}
	if cfg.retryWaitMin < 0 || cfg.retryWaitMin > cfg.retryWaitMax {
		return nil, fmt.Errorf("petstore: WithRetryWait: want 0 <= min <= max, got min %s, max %s", cfg.retryWaitMin, cfg.retryWaitMax)
	}
	timeout := defaultTimeout
	switch {
	case cfg.timeoutSet:
		if cfg.timeout < 0 {
			return nil, fmt.Errorf("petstore: WithTimeout: %s is negative", cfg.timeout)
		}
		timeout = cfg.timeout
	case cfg.httpClient != nil && cfg.httpClient.Timeout > 0:
		timeout = cfg.httpClient.Timeout
	}
	if strings.IndexFunc(cfg.userAgent, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return nil, errors.New("petstore: WithUserAgent: contains a control character")
	}

	// Every request's URL starts as a copy of pets, parsed from its string as
	// http.NewRequest would parse it, so that requests are the same.
	pets, err := url.Parse(base.JoinPath("pets").String())
	if err != nil {
		return nil, fmt.Errorf("petstore: base URL: %w", err)
	}
	if strings.LastIndex(pets.Host, ":") > strings.LastIndex(pets.Host, "]") {
		pets.Host = strings.TrimSuffix(pets.Host, ":") // as http.NewRequest drops an empty port
	}
	petsPath := pets.EscapedPath()
	if !strings.HasPrefix(petsPath, "/") {
		petsPath = "/" + petsPath // a base URL with no path at all
	}
	c := &Client{
		cred:      cred,
		pets:      *pets,
		petsPath:  petsPath,
		userAgent: []string{userAgent(cfg.userAgent)},
		logger:    cfg.logger,
		warned:    new(warnings),
		red:       red,
	}
	hc := &http.Client{
		Transport:     &transport{user: cfg.httpClient, timeout: timeout, logger: cfg.logger, red: red},
		CheckRedirect: noRedirects,
	}
	c.get = newRetryClient(hc, cfg, true)
	c.post = newRetryClient(hc, cfg, false)
	return c, nil
}

// newRetryClient configures every field of a retryablehttp.Client, so none
// of its defaults (a logger on stderr, a retry policy that retries POST,
// uncapped Retry-After, a status-losing error handler) comes through. The
// policy waits between attempts itself (see retry.Policy); RetryMax only
// backs it up.
func newRetryClient(hc *http.Client, cfg config, idempotent bool) *retryablehttp.Client {
	rc := retryablehttp.NewClient()
	rc.HTTPClient = hc
	rc.Logger = nil
	rc.RetryMax = cfg.maxRetries
	rc.RetryWaitMin = cfg.retryWaitMin
	rc.RetryWaitMax = cfg.retryWaitMax
	rc.CheckRetry = retry.Policy{
		Idempotent: idempotent,
		MaxRetries: cfg.maxRetries,
		MinWait:    cfg.retryWaitMin,
		MaxWait:    cfg.retryWaitMax,
	}.CheckRetry
	rc.Backoff = retry.NoBackoff
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler
	return rc
}

// parseBaseURL checks a base URL: absolute https, or http to a loopback host
// unless insecure allows any host; no user info, query or fragment.
func parseBaseURL(raw string, insecure bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error quotes the URL, which may hold a password: say less.
		return nil, fmt.Errorf("invalid URL %q", redactUserinfo(raw))
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fmt.Errorf("URL %q: scheme must be https or http", redactUserinfo(raw))
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "",
		strings.Contains(u.Hostname(), ":") && !strings.HasPrefix(u.Host, "["): // "https://::": a colon, not a host
		return nil, fmt.Errorf("URL %q has no host", redactUserinfo(raw))
	case u.User != nil:
		return nil, fmt.Errorf("URL %q must not contain user info", redactUserinfo(raw))
	case u.RawQuery != "" || u.ForceQuery || strings.Contains(raw, "?"):
		return nil, fmt.Errorf("URL %q must not contain a query", redactUserinfo(raw))
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, fmt.Errorf("URL %q must not contain a fragment", redactUserinfo(raw))
	case u.Scheme == "http" && !insecure && !isLoopback(u.Hostname()):
		return nil, fmt.Errorf("URL %q: http to a host that is not loopback would send the API key in clear text; use https, or WithInsecureHTTP", redactUserinfo(raw))
	}
	return u, nil
}

// redactUserinfo returns raw, a base URL NewClient refuses, as its error may
// quote it: with nothing before its last "@", and nothing after a "?" or "#"
// (a query or fragment may hold a key too, as in "?api_key=..."). What comes
// before an "@" may be user info even where url.Parse finds none: a reader
// takes "https:/admin:secret@host" (one slash) or "https:admin:secret@host"
// for a URL with a password, and the scheme itself may be one.
func redactUserinfo(raw string) string {
	tail := ""
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw, tail = raw[:i], raw[i:i+1]+"[REDACTED]"
	}
	if i := strings.LastIndex(raw, "@"); i >= 0 {
		raw = "[REDACTED]" + raw[i:]
	}
	return raw + tail
}

// isLoopback reports whether host is localhost, in 127.0.0.0/8, or ::1.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// userAgent builds the User-Agent header value.
func userAgent(prefix string) string {
	ua := "petstore-go/" + Version + " (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	if prefix = strings.TrimSpace(prefix); prefix != "" {
		ua = prefix + " " + ua
	}
	return ua
}

// noRedirects makes a 3xx the answer of its attempt. The interface defines
// no redirect, so the SDK follows none: a 3xx comes back as an APIError, the
// key never goes to another host, a POST never turns into a GET, and one
// attempt is one request, which WithTimeout and the logs count.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

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
// in it, see retry.Carrier), the retry state, and the request with its URL,
// all in one allocation.
type call struct {
	context.Context
	retry retry.Call
	rr    retryablehttp.Request
	u     url.URL
}

// RetryCall returns the call's retry state.
func (cl *call) RetryCall() *retry.Call { return &cl.retry }

// newCall builds the request of a call as retryablehttp.NewRequest would
// from the URL string, without formatting and parsing that string: the URL
// is a copy of c.pets, with the pet id appended for GetPet and the query.
func (c *Client) newCall(ctx context.Context, o op, id int64, query string, body []byte) (*call, error) {
	cl := &call{Context: ctx, u: c.pets}
	cl.u.RawQuery = query
	if o == opGetPet {
		var buf [64]byte
		cl.u.Path = string(strconv.AppendInt(append(append(buf[:0], c.pets.Path...), '/'), id, 10))
		if c.pets.RawPath != "" {
			cl.u.RawPath = c.pets.RawPath + "/" + strconv.FormatInt(id, 10)
		}
	}
	h := make(http.Header, 4)
	_, h["Authorization"] = c.cred()
	h["Accept"] = jsonMediaType
	h["User-Agent"] = c.userAgent
	if body != nil {
		h["Content-Type"] = jsonMediaType
	}
	tmpl := http.Request{
		Method:     o.method(),
		URL:        &cl.u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     h,
		Host:       c.pets.Host,
	}
	cl.rr.Request = tmpl.WithContext(cl)
	var raw any
	if body != nil {
		raw = body
	}
	if err := cl.rr.SetBody(raw); err != nil {
		return nil, err
	}
	return cl, nil
}

// do sends one call of operation o (with id, the pet id of GetPet, and
// query, the encoded query string), with body as its JSON body when it is
// not nil. It returns the 2xx body for the caller to decode; any other
// outcome is an error.
func (c *Client) do(ctx context.Context, o op, id int64, query string, body []byte) ([]byte, error) {
	method := o.method()
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context.Context", ErrInvalidParams)
	}
	if err := ctx.Err(); err != nil {
		return nil, &transportError{method: method, path: c.path(o, id), err: err}
	}
	cl, err := c.newCall(ctx, o, id, query, body)
	if err != nil {
		return nil, fmt.Errorf("petstore: %s %s: %w", method, c.path(o, id), err)
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
			return nil, &retryWaitError{method: method, path: c.path(o, id), ctx: err, last: c.callError(o, id, last, lastErr)}
		}
		return nil, c.callError(o, id, nil, err)
	}
	if c.logger != nil {
		c.warnDeprecationHeaders(ctx, o, method, c.path(o, id), resp.Header)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, c.callError(o, id, resp, nil)
	}
	return bodyBytes(resp.Body), nil
}

// callError is the error of a call whose last attempt ended with resp, a
// response that is not 2xx, or else with err.
func (c *Client) callError(o op, id int64, resp *http.Response, err error) error {
	if resp == nil {
		if err == nil {
			err = errors.New("no response") // not from net/http; never fails silently
		}
		return &transportError{method: o.method(), path: c.path(o, id), err: redactError(err, c.red)}
	}
	data, cut := bodyContents(resp.Body)
	return newAPIError(o.method(), c.path(o, id), resp, data, cut, c.red)
}

var jsonMediaType = []string{"application/json"}

// transportError is a failure without an HTTP response: a transport,
// size or context error. It reads "petstore: GET /v1/pets: <cause>" and
// unwraps to the cause, so errors.Is(err, context.Canceled) and
// errors.As(err, new(*url.Error)) work.
type transportError struct {
	method, path string
	err          error
}

func (e *transportError) Error() string {
	cause := e.err
	var ue *url.Error
	if errors.As(cause, &ue) {
		cause = ue.Err // its URL repeats what we print
	}
	return "petstore: " + e.method + " " + e.path + ": " + cause.Error()
}

func (e *transportError) Unwrap() error { return e.err }

// retryWaitError is a call whose context ended while it waited to retry
// (or as it was about to): it matches the context's error, and carries the
// error of the attempt it was to retry, an *APIError or a transport error.
type retryWaitError struct {
	method, path string
	ctx          error // the context's error
	last         error
}

func (e *retryWaitError) Error() string {
	last := strings.TrimPrefix(e.last.Error(), "petstore: "+e.method+" "+e.path+": ")
	return "petstore: " + e.method + " " + e.path + ": " + e.ctx.Error() + " while waiting to retry after: " + last
}

func (e *retryWaitError) Unwrap() []error { return []error{e.ctx, e.last} }

// redactError returns err, or, should its text hold the key in any form red
// finds, an error with that text redacted. net/http quotes a malformed
// response line ("malformed MIME header: missing colon: ..."), which a
// server may have made of the Authorization header it was sent. Such an
// error keeps its *url.Error, but not what that wrapped, which would still
// hold the key.
func redactError(err error, red *redact.Redactor) error {
	text := err.Error()
	if red.String(text) == text {
		return err
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return &url.Error{Op: ue.Op, URL: ue.URL, Err: errors.New(red.String(ue.Err.Error()))}
	}
	return errors.New(red.String(text))
}

// transport is the SDK's http.RoundTripper for one Client. It sends through
// the user's transport (looked up on every request), bounds each attempt with
// the timeout, and reads the whole body within the attempt: a body cut short
// is then an attempt that failed, which the retry policy can see. It does not
// implement CloseIdleConnections, so retryablehttp cannot flush the pool of a
// transport it does not own.
type transport struct {
	user    *http.Client // WithHTTPClient's client, or nil
	timeout time.Duration
	logger  *slog.Logger
	red     *redact.Redactor // for the request ids logged
}

// sharedTransport is the transport of every Client made without
// WithHTTPClient: a clone of http.DefaultTransport (proxy from the
// environment, same dial and TLS settings), with an idle pool sized for many
// goroutines on one host. Should http.DefaultTransport have been replaced
// (by a mock, say) when it is first needed, it starts from the settings
// net/http's default has instead: a mock must not become the SDK's for good.
var sharedTransport = sync.OnceValue(func() *http.Transport {
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

func (t *transport) base() http.RoundTripper {
	if t.user == nil {
		return sharedTransport()
	}
	if t.user.Transport != nil {
		return t.user.Transport
	}
	return http.DefaultTransport
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	parent := req.Context()
	g := new(guard)
	if t.timeout > 0 {
		var ctx context.Context
		ctx, g.cancel = context.WithCancelCause(parent)
		g.timer = time.AfterFunc(t.timeout, g.timeUp)
		defer g.release()
		req = req.WithContext(ctx)
	}
	var start time.Time
	if t.logger != nil {
		start = time.Now()
	}
	resp, err := t.base().RoundTrip(req)
	switch {
	case err != nil:
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		resp = nil
	case resp == nil:
		err = errors.New("the http.RoundTripper returned no response and no error")
	default:
		if resp.Body == nil {
			resp.Body = http.NoBody
		}
		err = g.bufferBody(parent, resp)
	}
	if err != nil && g.timedOut() && parent.Err() == nil {
		err = &attemptTimeoutError{d: t.timeout}
	}
	if t.logger != nil {
		logAttempt(parent, t.logger, t.red, req, resp, err, time.Since(start))
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// attemptTimeoutError is an attempt that ran out of its WithTimeout time.
type attemptTimeoutError struct {
	d time.Duration
}

func (e *attemptTimeoutError) Error() string {
	return "attempt timed out after " + e.d.String() + " (WithTimeout)"
}
func (e *attemptTimeoutError) Timeout() bool { return true }
func (e *attemptTimeoutError) Is(target error) bool {
	return target == context.DeadlineExceeded
}

// guard ends one attempt when its time runs out or the call's context ends:
// it cancels the attempt's context (so that net/http stops dialling or
// waiting) and closes the body being read, whatever the transport does with
// the context. net/http, for one, stops watching it once it hands over the
// body of a 101 Switching Protocols; a RoundTripper may never watch it.
type guard struct {
	cancel context.CancelCauseFunc // of the attempt's context; nil without a timeout
	timer  *time.Timer

	mu      sync.Mutex
	body    io.Closer // the body being read
	ended   bool      // the attempt has ended: a body is closed at once
	expired bool      // its time ran out
}

// errAttemptTimeout is the cause of an attempt's context that ran out of time.
var errAttemptTimeout = errors.New("attempt timed out")

// timeUp runs when the attempt's time runs out.
func (g *guard) timeUp() {
	g.mu.Lock()
	g.expired = true
	g.mu.Unlock()
	g.cancel(errAttemptTimeout)
	g.end()
}

// end closes the body being read, if any, and any body watched later.
func (g *guard) end() {
	g.mu.Lock()
	body := g.body
	g.body, g.ended = nil, true
	g.mu.Unlock()
	if body != nil {
		body.Close()
	}
}

func (g *guard) timedOut() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.expired
}

// release stops the timer and cancels the attempt's context.
func (g *guard) release() {
	g.timer.Stop()
	g.cancel(context.Canceled)
}

// watch makes body the one to close should the attempt end, and reports
// false if it has ended already.
func (g *guard) watch(body io.Closer) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.body = body
	return !g.ended
}

// unwatch takes the body back from the guard: it reports true if the
// caller is to close it, false if the guard has closed it or is closing it.
func (g *guard) unwatch() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	mine := g.body != nil
	g.body = nil
	return mine
}

// err is the error of a read that the attempt's end may have cut short:
// the call's context's, or the attempt's timeout; nil if neither ended.
func (g *guard) err(parent context.Context) error {
	if err := parent.Err(); err != nil {
		return err
	}
	if g.timedOut() {
		return context.DeadlineExceeded
	}
	return nil
}

// bufferedBody is a response body read into memory.
type bufferedBody struct {
	data []byte
	off  int   // of the next Read
	cut  error // the error that cut a non-2xx body short, if any
}

func (b *bufferedBody) Read(p []byte) (int, error) {
	if b.off >= len(b.data) {
		return 0, io.EOF
	}
	n := copy(p, b.data[b.off:])
	b.off += n
	return n, nil
}

func (b *bufferedBody) Close() error { return nil }

// bodyBytes returns what a response body holds, without copying the ones
// transport read.
func bodyBytes(body io.ReadCloser) []byte {
	data, _ := bodyContents(body)
	return data
}

// bodyContents returns what a response body holds and, for a non-2xx body
// cut short, the error that cut it.
func bodyContents(body io.ReadCloser) ([]byte, error) {
	if b, ok := body.(*bufferedBody); ok {
		return b.data, b.cut
	}
	return io.ReadAll(io.LimitReader(body, maxSuccessBody))
}

// errBodyTooLarge is a 2xx body over the limit; it is not retried.
var errBodyTooLarge = fmt.Errorf("response body exceeds %d MiB: %w", maxSuccessBody>>20, retry.ErrNotRetryable)

// maxFirstBuffer bounds the buffer a Content-Length makes bufferBody start
// with: beyond it, the buffer grows with the bytes that arrive, so that a
// server that promises 10 MiB and sends nothing costs next to nothing.
const maxFirstBuffer = 32 << 10

// bufferBody replaces resp.Body by its contents: up to maxSuccessBody for a
// 2xx (more is an error), up to maxErrorBody otherwise (the rest is dropped).
// A 2xx body that cannot be read whole is an error; any other response keeps
// what could be read of its body, so that its status is not lost. Should the
// attempt end first (parent, the call's context, ends, or the attempt's time
// runs out), the body is closed and the read ends with the context's error.
// The original body is closed on every path.
func (g *guard) bufferBody(parent context.Context, resp *http.Response) error {
	body := resp.Body
	if !g.watch(body) {
		body.Close()
		return g.err(parent)
	}
	if parent.Done() != nil {
		stop := context.AfterFunc(parent, g.end)
		defer stop()
	}
	success := resp.StatusCode >= 200 && resp.StatusCode <= 299
	limit := int64(maxErrorBody)
	if success {
		limit = maxSuccessBody
	}
	size := int64(512)
	if resp.ContentLength >= 0 {
		size = min(resp.ContentLength, limit, maxFirstBuffer) + 1 // +1: room to see EOF
	}
	data, err := readAll(body, size, limit+1)
	if g.unwatch() {
		body.Close()
	}
	if err != nil {
		if ctxErr := g.err(parent); ctxErr != nil {
			return ctxErr
		}
		if success {
			return err
		}
	}
	if int64(len(data)) > limit {
		if limit == maxSuccessBody {
			return errBodyTooLarge
		}
		data = data[:limit]
	}
	resp.Body = &bufferedBody{data: data, cut: err}
	return nil
}

// readAll is io.ReadAll(io.LimitReader(r, max)) with a first buffer of size
// bytes: with an exact Content-Length, the body is read with one allocation.
func readAll(r io.Reader, size, max int64) ([]byte, error) {
	b := make([]byte, 0, size)
	for {
		if int64(len(b)) >= max {
			return b, nil // as io.LimitReader(r, max) would end
		}
		p := b[len(b):cap(b)]
		if rest := max - int64(len(b)); int64(len(p)) > rest {
			p = p[:rest]
		}
		n, err := r.Read(p)
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// logAttempt writes the Debug record of one attempt: never a header, a body
// or the URL's query. red hides the key in the request id.
func logAttempt(ctx context.Context, l *slog.Logger, red *redact.Redactor, req *http.Request, resp *http.Response, err error, d time.Duration) {
	if !l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attempt := 1
	if cr, ok := ctx.(retry.Carrier); ok {
		attempt += cr.RetryCall().Attempts() // the attempts that have ended
	}
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", req.URL.EscapedPath()),
		slog.Int("attempt", attempt),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", errorClass(err)))
	} else {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	attrs = append(attrs, slog.Duration("duration", d))
	if resp != nil {
		id := resp.Header.Get("X-Request-Id")
		if id == "" {
			id = resp.Header.Get("Request-Id")
		}
		if id != "" {
			// A server may echo the key (the request's bearer token) here.
			attrs = append(attrs, slog.String("request_id", red.String(id)))
		}
	}
	l.LogAttrs(ctx, slog.LevelDebug, "petstore: attempt", attrs...)
}

// errorClass names the kind of a transport error for a log record, without
// its text (which could quote a URL or a server's words).
func errorClass(err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, errBodyTooLarge):
		return "body too large"
	case errors.As(err, &dnsErr):
		return "dns"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "dial"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated response"
	}
	return "transport"
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
