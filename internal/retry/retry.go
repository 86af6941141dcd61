// Package retry holds the retry policy that petstore plugs into
// go-retryablehttp: which failures are retried, for which methods, how long
// to wait between attempts, and the Retry-After header. It exists apart from
// the client so that the policy can be read, and tested, as one piece.
package retry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore-go/internal/transport"
)

// ErrNotRetryable marks an error that no retry can cure (for example a body
// over the size limit). Policy never retries an error that wraps it.
var ErrNotRetryable = errors.New("not retryable")

// Policy is the retry policy of one kind of request: its CheckRetry decides,
// after each attempt, whether to make another, and waits before it.
//
// The wait happens in CheckRetry, not in go-retryablehttp (whose Backoff
// must then be [NoBackoff]), because only CheckRetry sees the context: a
// wait that would end after the context's deadline is not started, and
// should the context end during a wait, the call still knows the outcome of
// the attempt it was waiting to retry (see [Call.Interrupted]).
type Policy struct {
	Idempotent       bool          // GET: see Retryable
	MaxRetries       int           // retries after the first attempt
	MinWait, MaxWait time.Duration // see Backoff; a Retry-After over MaxWait is not waited for
	Observer         Observer      // nil: none
}

// Call is what a Policy keeps across the attempts of one call: go-retryablehttp
// keeps nothing between its CheckRetry calls. The context of every request
// that CheckRetry sees carries it, by implementing [Carrier].
type Call struct {
	last     *http.Response
	lastErr  error
	after    time.Duration // the last response's Retry-After, when hasAfter
	attempts int32
	hasAfter bool
	pending  bool // the last outcome was to be retried, and no attempt has followed
}

// Carrier is a context that carries the Call of its request.
type Carrier interface {
	RetryCall() *Call
}

// Attempts returns how many attempts of the call have ended.
func (c *Call) Attempts() int { return int(c.attempts) }

// Interrupted reports whether the context ended while the call waited to
// retry (or as it was about to wait), and if so returns the outcome of the
// attempt it was to retry: a response, or a transport error.
func (c *Call) Interrupted() (*http.Response, error, bool) {
	return c.last, c.lastErr, c.pending
}

// RetryAfter returns the Retry-After of the last attempt's response, if it
// was not 2xx: the header is parsed once, when the attempt ends.
func (c *Call) RetryAfter() RetryAfter {
	return RetryAfter{Wait: c.after, OK: c.hasAfter}
}

// RetryAfter is the wait a response's Retry-After header asks for.
type RetryAfter struct {
	Wait time.Duration
	OK   bool // the header holds a valid value
}

// Observer is told of each attempt of a call once the Policy has decided
// whether to retry it, before any wait: ctx is the request's (a Carrier),
// resp or err the attempt's outcome, wait the wait before the retry.
type Observer func(ctx context.Context, resp *http.Response, err error, retry bool, wait time.Duration)

// CheckRetry is the retryablehttp.CheckRetry of p.
//
// Nothing is retried once ctx is done; but a response that needs no retry
// is the answer even then (a 201 that arrives as ctx ends is a success). A
// wait that would end after ctx's deadline is not started: the last
// attempt's outcome is the answer at once. The Observer, if any, hears of
// the attempt before the wait.
func (p Policy) CheckRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	call := new(Call) // only for a context that carries none; go-retryablehttp's RetryMax then stops the retries
	if c, ok := ctx.(Carrier); ok {
		call = c.RetryCall()
	}
	call.ended(resp, err)
	again, wait, answer := p.decide(ctx, call)
	if p.Observer != nil {
		p.Observer(ctx, resp, err, again, wait)
	}
	if !again {
		return false, answer
	}
	call.pending = true // until the next attempt ends: the context may end first
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-t.C:
		}
	}
	return true, nil
}

// ended records the outcome of an attempt: resp or err.
func (c *Call) ended(resp *http.Response, err error) {
	c.attempts++
	c.last, c.lastErr, c.pending = resp, err, false
	c.after, c.hasAfter = 0, false
	if resp != nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		c.after, c.hasAfter = ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
}

// decide returns whether to retry the call's last attempt, and after what
// wait; when not, the error CheckRetry returns (nil: the outcome is the
// answer).
func (p Policy) decide(ctx context.Context, call *Call) (bool, time.Duration, error) {
	resp, err := call.last, call.lastErr
	var asked RetryAfter // Retry-After counts for the retries only on 429 and 503
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		asked = call.RetryAfter()
	}
	if !Retryable(p.Idempotent, p.MaxWait, resp, err, asked) || call.Attempts() > p.MaxRetries {
		if err == nil {
			return false, 0, nil
		}
		return false, 0, ctx.Err() // nil, unless ctx has ended: then its error is the answer
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		call.pending = err == nil || !errors.Is(err, ctxErr)
		return false, 0, ctxErr
	}
	wait := Backoff(p.MinWait, p.MaxWait, call.Attempts()-1, asked)
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
		return false, 0, nil
	}
	return true, wait, nil
}

// NoBackoff is the retryablehttp.Backoff to use with Policy.CheckRetry,
// which has waited already.
func NoBackoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration { return 0 }

// Retryable reports whether the outcome of an attempt is worth another.
//
// Idempotent requests (GET) are retried on 408, 429, 500, 502, 503 and 504 and
// on transport errors, timeouts included. Other requests (POST) are retried
// only when the server cannot have acted on them: on 429, and when the
// connection could not be made (dial or DNS failure).
//
// A 429 or 503 whose Retry-After (asked) asks for more than maxWait is not
// retried: the caller gets that response, and with it the wait the server
// asked for.
func Retryable(idempotent bool, maxWait time.Duration, resp *http.Response, err error, asked RetryAfter) bool {
	switch {
	case err != nil && idempotent:
		return retryableTransportError(err)
	case err != nil:
		return IsDialError(err)
	case resp == nil || !RetryableStatus(idempotent, resp.StatusCode):
		return false
	}
	return !asked.OK || asked.Wait <= maxWait
}

// RetryableStatus reports whether a response status is worth another attempt.
func RetryableStatus(idempotent bool, status int) bool {
	switch status {
	case http.StatusTooManyRequests:
		return true
	case http.StatusRequestTimeout, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return idempotent
	}
	return false
}

// retryableTransportError reports whether a transport error may go away on
// its own. Certificate problems, a body over the size limit and errors
// marked ErrNotRetryable will not.
func retryableTransportError(err error) bool {
	if errors.Is(err, ErrNotRetryable) || errors.Is(err, transport.ErrBodyTooLarge) {
		return false
	}
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalidCert      x509.CertificateInvalidError
		verification     *tls.CertificateVerificationError
	)
	switch {
	case errors.As(err, &unknownAuthority), errors.As(err, &hostname),
		errors.As(err, &invalidCert), errors.As(err, &verification):
		return false
	}
	return true
}

// IsDialError reports whether err says that no connection could be made, so
// that the request cannot have reached the server: a refused or failed dial
// or a failed DNS lookup. A timeout never counts, even during the dial: the
// caller asked for the attempt to end, and that is not retried for POST.
func IsDialError(err error) bool {
	if err == nil || errors.Is(err, ErrNotRetryable) {
		return false
	}
	var timeout interface{ Timeout() bool }
	if errors.As(err, &timeout) && timeout.Timeout() {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// Backoff is the wait before the next attempt: the server's Retry-After on
// a 429 or 503 (asked) when it gives one (never more than max), otherwise
// min doubled for each attempt already made, capped at max, plus jitter: up
// to half as much again, picked uniformly, still capped at max. So the first
// wait is between min and 1.5·min, and clients that failed together do not
// retry together.
func Backoff(min, max time.Duration, attempt int, asked RetryAfter) time.Duration {
	if asked.OK {
		return clamp(asked.Wait, 0, max)
	}
	d := exponential(min, max, attempt)
	if half := d / 2; half > 0 {
		d += rand.N(half + 1)
	}
	return clamp(d, min, max)
}

// exponential returns min·2^attempt, capped at max without overflowing.
func exponential(min, max time.Duration, attempt int) time.Duration {
	d := min
	for i := 0; i < attempt && d < max; i++ {
		if d > max/2 {
			return max
		}
		d *= 2
	}
	return clamp(d, 0, max)
}

func clamp(d, lo, hi time.Duration) time.Duration {
	if d < lo {
		d = lo
	}
	if d > hi {
		d = hi
	}
	return d
}

// maxRetryAfterSeconds bounds the seconds form, so that any value fits a
// time.Duration; it is far above any wait a client would make.
const maxRetryAfterSeconds = 1 << 32

// ParseRetryAfter parses a Retry-After value: a number of seconds (digits
// only) or an HTTP date, which counts from now and gives 0 when it is past.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if isDigits(v) {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n > maxRetryAfterSeconds {
			n = maxRetryAfterSeconds
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	if d < 0 {
		d = 0
	}
	return d, true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
