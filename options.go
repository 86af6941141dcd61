package petstore

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore-go/internal/retry"
)

// Option configures a Client. Make one with a With function of this package
// ([WithBaseURL], [WithHTTPClient], [WithMaxRetries], [WithRetryWait],
// [WithTimeout], [WithUserAgent], [WithLogger], [WithInsecureHTTP],
// [WithObserver]) and pass it to [NewClient] or [Client.With]: its parameter
// is an unexported type, so there is no other way to make one that does
// something. Options only record a value: NewClient (or With) checks them
// all and returns an error for a bad one. Later options override earlier
// ones, and a nil Option is ignored.
type Option func(*config)

// config is what the options record, before NewClient checks it.
type config struct {
	baseURL      string // "" or blank: not given
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
	// observer is a pointer, so that config stays comparable: Option's
	// parameter is part of the API (.ci/api), and a func field would
	// change that.
	observer *func(context.Context, Attempt)
}

// envBaseURL is the environment variable NewClient reads when it is given no
// WithBaseURL.
const envBaseURL = "PETSTORE_BASE_URL"

// envInsecureHTTP is the environment variable that does what WithInsecureHTTP
// does, for programs configured only through the environment.
const envInsecureHTTP = "PETSTORE_INSECURE_HTTP"

// Defaults of the options.
const (
	defaultMaxRetries   = 2
	defaultRetryWaitMin = 500 * time.Millisecond
	defaultRetryWaitMax = 8 * time.Second
	defaultTimeout      = 30 * time.Second
)

// WithBaseURL sets the address of the API, including its version segment,
// for example [StagingURL] or a test server's "http://127.0.0.1:8080/v1".
// Without it, or with "" (like an empty apiKey), NewClient uses
// $PETSTORE_BASE_URL, else [ProductionURL]. The URL must be https, or http
// to a loopback host (see [WithInsecureHTTP]), with no user info, query or
// fragment.
func WithBaseURL(u string) Option {
	return func(c *config) { c.baseURL = u }
}

// WithHTTPClient makes the Client send its requests through hc's Transport
// (http.DefaultTransport when it is nil). The Transport is looked up on each
// request, so a mock installed in hc after NewClient still takes effect; hc
// itself is never modified. hc's non-zero Timeout is the per-attempt timeout
// unless [WithTimeout] is given. hc's CheckRedirect and Jar are not used: the
// SDK follows no redirect (the interface defines none) and sends no cookies.
// The SDK closes a response body when the context or the attempt's time ends,
// whatever the Transport does; until a response arrives, the Transport must
// itself give up when the request's context ends, as net/http's does. The
// SDK counts, through net/http's httptrace, every request sent with an
// attempt's context, so that nothing below it sends a CreatePet again
// without proof that the server cannot have processed it (a RoundTripper
// that retries or hedges is stopped before its second send is written): a
// Transport that sends other requests of its own (to fetch a token, say)
// should give them a context of their own. Like any RoundTripper, the
// Transport must not modify the request it is handed, nor must an
// *http.Transport's Proxy function: the SDK shares one header map among the
// requests of a Client. For the HTTP/2 health pings of the default transport
// (Go 1.24 or later; see the package doc), set them on your own transport:
//
//	tr := http.DefaultTransport.(*http.Transport).Clone()
//	tr.HTTP2 = &http.HTTP2Config{SendPingTimeout: 10 * time.Second, PingTimeout: 5 * time.Second}
//	c, err := petstore.NewClient("", petstore.WithHTTPClient(&http.Client{Transport: tr}))
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
// host, path, attempt, status, duration, request id) and a Warn when a deprecated
// operation is used or a response says it is deprecated. Headers, bodies and
// the API key are never logged. Without it, or with nil, the SDK logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithInsecureHTTP allows an http:// base URL to a host that is not loopback.
// The API key then travels in clear text: use it only on a network you trust.
// Setting $PETSTORE_INSECURE_HTTP to 1 or true does the same, for a program
// configured only through the environment (a CI job whose fake runs at
// http://petstore-fake:8080/v1, say); 0, false or empty leave it off, and
// any other value is an error that names the variable.
func WithInsecureHTTP() Option {
	return func(c *config) { c.insecureHTTP = true }
}

// newConfig returns the defaults with opts applied, in order.
func newConfig(opts []Option) config {
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
	return cfg
}

// check returns an error naming the option that holds a bad value; the base
// URL is checked by petsURL.
func (cfg *config) check() error {
	switch {
	case cfg.httpSet && cfg.httpClient == nil:
		return &ConfigError{Option: "WithHTTPClient", Reason: "nil *http.Client"}
	case cfg.maxRetries < 0:
		return &ConfigError{Option: "WithMaxRetries", Reason: strconv.Itoa(cfg.maxRetries) + " is negative"}
	case cfg.retryWaitMin < 0 || cfg.retryWaitMin > cfg.retryWaitMax:
		return &ConfigError{Option: "WithRetryWait", Reason: fmt.Sprintf("want 0 <= min <= max, got min %s, max %s", cfg.retryWaitMin, cfg.retryWaitMax)}
	case cfg.timeoutSet && cfg.timeout < 0:
		return &ConfigError{Option: "WithTimeout", Reason: cfg.timeout.String() + " is negative"}
	case strings.IndexFunc(cfg.userAgent, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		return &ConfigError{Option: "WithUserAgent", Reason: "contains a control character"}
	}
	return nil
}

// With returns a Client with c's settings and opts applied on top of them,
// later ones winning, as [NewClient] applies its own; c is not changed. It
// checks the result as NewClient does, but does not read the environment
// again: c's key and what its variables said stay. The new Client sends
// through c's transport (one connection pool; a new [WithHTTPClient] client
// aside) and shares c's once-per-client deprecation warnings. It is cheap
// enough to call per request, for one call that differs:
// c.With(WithMaxRetries(0)) for a CreatePet that must not be retried, or
// c.With(WithObserver(f)) to read the request id of one call.
func (c *Client) With(opts ...Option) (*Client, error) {
	n := new(Client)
	*n = *c
	for _, opt := range opts {
		if opt != nil {
			opt(&n.cfg)
		}
	}
	if err := n.cfg.check(); err != nil {
		return nil, err
	}
	var pets *url.URL
	if strings.TrimSpace(n.cfg.baseURL) != "" {
		var err error
		if pets, err = parsePetsURL(n.cfg.baseURL, "", n.cfg.insecureHTTP); err != nil {
			return nil, err
		}
		n.cfg.baseURL = ""
	}
	n.settle(pets, c)
	return n, nil
}

// sameTransport reports whether a Client with the options cfg sends as one
// with other does: they differ at most in retries and observer.
func (cfg *config) sameTransport(other *config) bool {
	a := *cfg
	a.maxRetries, a.retryWaitMin, a.retryWaitMax, a.observer = other.maxRetries, other.retryWaitMin, other.retryWaitMax, other.observer
	return a == *other
}

// attemptTimeout returns the time limit of one attempt and where it comes
// from: WithTimeout's, else the WithHTTPClient client's non-zero Timeout,
// else the default.
func (cfg *config) attemptTimeout() (time.Duration, string) {
	switch {
	case cfg.timeoutSet:
		return cfg.timeout, "WithTimeout"
	case cfg.httpClient != nil && cfg.httpClient.Timeout > 0:
		return cfg.httpClient.Timeout, "the WithHTTPClient client's Timeout"
	}
	return defaultTimeout, "the default limit per attempt"
}

// petsURL returns the URL of the pets collection under the base URL (from
// WithBaseURL, else $PETSTORE_BASE_URL, else ProductionURL). It sets
// cfg.insecureHTTP to what $PETSTORE_INSECURE_HTTP says too, so that
// [Client.With] need not read the environment again.
func (cfg *config) petsURL() (*url.URL, error) {
	rawBase, env := cfg.baseURL, ""
	if strings.TrimSpace(rawBase) == "" {
		rawBase, env = os.Getenv(envBaseURL), envBaseURL
		if strings.TrimSpace(rawBase) == "" {
			rawBase, env = ProductionURL, ""
		}
	}
	insecure, err := cfg.allowInsecureHTTP()
	if err != nil {
		return nil, err
	}
	cfg.insecureHTTP = insecure
	return parsePetsURL(rawBase, env, insecure)
}

// parsePetsURL returns the URL of the pets collection under rawBase, which
// came from env ("": from WithBaseURL), parsed from its string as
// http.NewRequest would parse it, so that every request's URL can start as a
// copy of it.
func parsePetsURL(rawBase, env string, insecure bool) (*url.URL, error) {
	base, err := parseBaseURL(rawBase, insecure)
	if err != nil {
		return nil, &ConfigError{Option: "WithBaseURL", Env: env, Reason: err.Error()}
	}
	pets, err := url.Parse(base.JoinPath("pets").String())
	if err != nil {
		return nil, &ConfigError{Option: "WithBaseURL", Env: env, Reason: err.Error()}
	}
	if strings.LastIndex(pets.Host, ":") > strings.LastIndex(pets.Host, "]") {
		pets.Host = strings.TrimSuffix(pets.Host, ":") // as http.NewRequest drops an empty port
	}
	return pets, nil
}

// WithObserver makes the Client call f once per attempt of every call: on
// the calling goroutine, with the call's context, after the attempt has
// ended and the SDK has decided whether to retry it, and before any wait;
// never concurrently for one call. It is how a program counts attempts and
// retries, records latency per status, or reads the request id of a call
// that succeeded. f should return quickly: the call waits for it. Without
// it, or with nil, the SDK costs nothing more.
//
// f sees attempts, not calls. Retry is the SDK's decision to retry: when the
// call's context ends during the wait that follows, no attempt follows and f
// is not called again, so Retry counts decisions, not attempts made. The
// call's outcome is what the method returns: count calls, their errors and
// their duration around the method (see ExampleWithObserver_callMetrics).
func WithObserver(f func(ctx context.Context, a Attempt)) Option {
	return func(c *config) {
		c.observer = nil
		if f != nil {
			c.observer = &f
		}
	}
}

// Attempt describes one attempt of a call, handed to the [WithObserver]
// function after the attempt ends and the SDK has decided whether to retry.
// It holds no header, no body and never the key.
type Attempt struct {
	Operation string        // "ListPets", "CreatePet" or "GetPet"
	Method    string        // "GET" or "POST"
	Host      string        // the base URL's host (with port, if any)
	Path      string        // e.g. "/v1/pets/7", without the query
	Number    int           // 1 for the first attempt of a call
	Status    int           // the response's HTTP status; 0 when no response arrived
	Err       error         // why it failed without a usable response (transport error, timeout, body cut short or too large)
	RequestID string        // X-Request-Id (or Request-Id) of the response, if any
	Duration  time.Duration // from sending the request to the end of reading the response
	Retry     bool          // the SDK makes another attempt
	Wait      time.Duration // how long it waits before that attempt (when Retry)
}

// observe hands the observer the attempt of call cl that has just ended,
// with the retry policy's decision.
func (c *Client) observe(cl *call) {
	o, r := &operations[cl.op], &cl.last
	a := Attempt{
		Operation: o.name,
		Method:    o.method,
		Host:      c.pets.Host,
		Path:      c.path(cl),
		Number:    int(cl.attempts),
		Status:    int(r.Status),
		Duration:  r.Duration,
		Retry:     cl.decision.Retry,
		Wait:      cl.decision.Wait,
		RequestID: cl.id,
	}
	switch {
	case r.Err != nil:
		a.Err = c.lastError(cl)
	case r.Cut != nil: // only a body that is not 2xx is kept when cut short
		a.Err = &transportError{method: o.method, path: a.Path, err: &cutError{n: len(r.Body), err: redactError(r.Cut, c.red)}}
	}
	c.observer(cl.req.Context(), a)
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
// 8594): a Warn record with the dates they give, never another header.
func (c *Client) warnDeprecationHeaders(cl *call, h http.Header) {
	if h.Get("Deprecation") == "" && h.Get("Sunset") == "" {
		return
	}
	c.warned.header[cl.op].Do(func() {
		attrs := []slog.Attr{slog.String("method", operations[cl.op].method), slog.String("path", c.path(cl))}
		if t, ok := parseDeprecation(h.Get("Deprecation")); ok {
			attrs = append(attrs, slog.Time("deprecated_since", t))
		}
		if t, err := http.ParseTime(h.Get("Sunset")); err == nil {
			attrs = append(attrs, slog.Time("sunset", t))
		}
		c.logger.LogAttrs(cl.req.Context(), slog.LevelWarn, "petstore: the server says this endpoint is deprecated", attrs...)
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

// ConfigError is the error of an option, environment variable or key that
// [NewClient] or [Client.With] refuses. Its text names where the value came
// from; a program that names its own flags maps Option and Env to them
// rather than rewriting the text.
type ConfigError struct {
	Option string // the option, as "WithBaseURL", "WithRetryWait", "WithTimeout", "WithMaxRetries", …; "apiKey" for NewClient's argument
	Env    string // the environment variable the value came from ("PETSTORE_BASE_URL", …); "" if none
	Reason string // never empty
}

func (e *ConfigError) Error() string {
	name := cmp.Or(e.Env, e.Option)
	if e.Option == "apiKey" {
		name = strings.TrimSuffix("API key from "+e.Env, " from ")
	}
	return "petstore: " + name + ": " + e.Reason
}

// retriedStatus reports whether the retry policy retries an answer of
// status to a request of method: [Retryable]'s answer for an [*APIError].
func retriedStatus(method string, status int) bool {
	return retry.RetryableStatus(method == http.MethodGet, status)
}
