package petstore

import (
	"log/slog"
	"net/http"
	"time"
)

// Option configures a Client. Options only record a value: NewClient checks
// them all and returns an error for a bad one. Later options override
// earlier ones, and a nil Option is ignored.
type Option func(*config)

// config is what the options record, before NewClient checks it.
type config struct {
	baseURL      string
	baseURLSet   bool
	httpClient   *http.Client
	httpSet      bool
	maxRetries   int
	retryWaitMin time.Duration
	retryWaitMax time.Duration
	timeout      time.Duration
	timeoutSet   bool
	userAgent    string
	logger       *slog.Logger
	insecureHTTP bool
}

// Defaults of the options.
const (
	defaultMaxRetries   = 2
	defaultRetryWaitMin = 500 * time.Millisecond
	defaultRetryWaitMax = 8 * time.Second
	defaultTimeout      = 30 * time.Second
)

// WithBaseURL sets the address of the API, including its version segment,
// for example [StagingURL] or a test server's "http://127.0.0.1:8080/v1".
// Without it, NewClient uses $PETSTORE_BASE_URL, else [ProductionURL].
// The URL must be https, or http to a loopback host (see [WithInsecureHTTP]),
// with no user info, query or fragment.
func WithBaseURL(u string) Option {
	return func(c *config) { c.baseURL, c.baseURLSet = u, true }
}

// WithHTTPClient makes the Client send its requests through hc's Transport
// (http.DefaultTransport when it is nil). The Transport is looked up on each
// request, so a mock installed in hc after NewClient still takes effect; hc
// itself is never modified. hc's non-zero Timeout is the per-attempt timeout
// unless [WithTimeout] is given. hc's CheckRedirect and Jar are not used: the
// SDK follows no redirect (the interface defines none) and sends no cookies.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.httpClient, c.httpSet = hc, true }
}

// WithMaxRetries sets how many times a failed request is retried after the
// first attempt: 0 disables retries; negative is an error. The default is 2.
// CreatePet is retried only when the animal cannot have been created.
func WithMaxRetries(n int) Option {
	return func(c *config) { c.maxRetries = n }
}

// WithRetryWait sets the wait between attempts: it starts at min and doubles
// with each retry, up to max, with jitter. A server's Retry-After replaces the
// computed wait; one longer than max is not waited for (the call returns the
// [APIError], with RetryAfter set). It needs 0 <= min <= max. The defaults
// are 500ms and 8s.
func WithRetryWait(min, max time.Duration) Option {
	return func(c *config) { c.retryWaitMin, c.retryWaitMax = min, max }
}

// WithTimeout limits each attempt, from sending the request to reading the
// whole response; 0 means no limit per attempt. The context given to each
// method bounds the whole call, retries and waits included. The default is
// 30s, or the Timeout of the [WithHTTPClient] client when it is not zero.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout, c.timeoutSet = d, true }
}

// WithUserAgent puts s, such as "myapp/1.2", in front of the User-Agent the
// SDK sends ("petstore-go/<Version> (<Go version>; <GOOS>/<GOARCH>)").
func WithUserAgent(s string) Option {
	return func(c *config) { c.userAgent = s }
}

// WithLogger makes the Client log to l: one Debug record per attempt (method,
// path, attempt, status, duration, request id) and a Warn when a deprecated
// operation is used or a response says it is deprecated. Headers, bodies and
// the API key are never logged. Without it, or with nil, the SDK logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithInsecureHTTP allows an http:// base URL to a host that is not loopback.
// The API key then travels in clear text: use it only on a network you trust.
func WithInsecureHTTP() Option {
	return func(c *config) { c.insecureHTTP = true }
}
