// Package retry holds the retry policy that petstore plugs into
// go-retryablehttp: which failures are retried, for which methods, how long
// to wait between attempts, and the Retry-After header. It decides from
// what an attempt got ([transport.Result]); it does not wait: go-retryablehttp
// does, for the wait its Backoff hook returns (Decision.Wait), on the call's
// context. It exists apart from the client so that the policy can be read,
// and tested, as one piece.
package retry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore-go/internal/transport"
)

// Policy is the retry policy of one kind of request: Decide says, after
// each attempt, whether to make another and how long to wait first.
type Policy struct {
	Idempotent       bool          // GET: see retryableOutcome
	MaxRetries       int           // retries after the first attempt
	MinWait, MaxWait time.Duration // see backoff; a Retry-After over MaxWait is not waited for
}

// Decision is what a Policy makes of an attempt's outcome.
type Decision struct {
	Wait  time.Duration // after this wait (when Retry)
	Retry bool          // make another attempt
	// Interrupted: the outcome was to be retried, but the context ended
	// first. The call's error is then the context's, and carries the
	// outcome's.
	Interrupted bool
}

// RetryAfter is the wait a response's Retry-After header asks for.
type RetryAfter struct {
	Wait time.Duration
	OK   bool // the header holds a valid value
}

// FromHeader returns the wait that the Retry-After of a response with
// header h asks for, counted from now (see parseRetryAfter). The caller
// reads it once per response, for Decide and for its error.
func FromHeader(h http.Header, now time.Time) RetryAfter {
	var after RetryAfter
	if v := h["Retry-After"]; len(v) > 0 { // h.Get, without the work of putting a canonical key in canonical form
		after.Wait, after.OK = parseRetryAfter(v[0], now)
	}
	return after
}

// Decide returns what to do after attempt number n (1 for the first) of a
// call whose context is ctx ended with r, whose Retry-After (see
// FromHeader) asked for after; it counts only on 429 and 503.
//
// Nothing is retried once ctx is done; but a response that needs no retry
// is the answer even then (a 201 that arrives as ctx ends is a success). A
// wait that would end after ctx's deadline is not started: the last
// attempt's outcome is the answer at once.
func (p Policy) Decide(ctx context.Context, n int, r *transport.Result, after RetryAfter) Decision {
	var d Decision
	var asked RetryAfter // Retry-After counts for the retries only on 429 and 503
	if r.Err == nil && (r.Status == http.StatusTooManyRequests || r.Status == http.StatusServiceUnavailable) {
		asked = after
	}
	if !p.retryable(r, asked) || n > p.MaxRetries {
		return d
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		d.Interrupted = r.Err == nil || !errors.Is(r.Err, ctxErr)
		return d
	}
	wait := backoff(p.MinWait, p.MaxWait, n-1, asked)
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
		return d
	}
	d.Retry, d.Wait = true, wait
	return d
}

// retryable reports whether r is worth another attempt (see
// retryableOutcome).
func (p Policy) retryable(r *transport.Result, asked RetryAfter) bool {
	if r.Err != nil && !p.Idempotent {
		// Only when every send had no connection or was dropped unread:
		// nothing was created. A dial error after a send that may have
		// been processed (a RoundTripper's own retry) is no proof; an
		// untrusted certificate does not go away.
		return r.Refused && !isTimeout(r.Err) && retryableTransportError(r.Err)
	}
	return retryableOutcome(p.Idempotent, p.MaxWait, int(r.Status), r.Err, asked)
}

// retryableOutcome reports whether the outcome of an attempt, a response
// with status or an error err, is worth another.
//
// Idempotent requests (GET) are retried on 408, 429, 500, 502, 503 and 504 and
// on transport errors, timeouts included. Other requests (POST) are retried
// only when the server cannot have acted on them: on 429, and, with an
// error, only when transport.Result.Refused says every send had no
// connection or was dropped unread (see retryable): a dial error alone is
// no proof, a RoundTripper's own retry may follow a processed send.
//
// A 429 or 503 whose Retry-After (asked) asks for more than maxWait is not
// retried: the caller gets that response, and with it the wait the server
// asked for.
func retryableOutcome(idempotent bool, maxWait time.Duration, status int, err error, asked RetryAfter) bool {
	switch {
	case err != nil && idempotent:
		return retryableTransportError(err)
	case err != nil:
		return false // a POST's: see retryable (transport.Result.Refused)
	case !RetryableStatus(idempotent, status):
		return false
	}
	return !asked.OK || asked.Wait <= maxWait
}

// RetryableStatus reports whether a response with status is worth another
// attempt of a request that is idempotent (a GET) or not (a POST), by the
// policy: 429 for both; 408, 500, 502, 503 and 504 for a GET. It is
// exported for the public Retryable, which judges an *APIError by its
// Method and Status; a Retry-After over the longest wait is not its to
// judge.
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
// its own. Certificate problems and a body over the size limit will not.
func retryableTransportError(err error) bool {
	if errors.Is(err, transport.ErrBodyTooLarge) {
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

// isTimeout reports whether err is a timeout or the end of a context.
func isTimeout(err error) bool {
	var timeout interface{ Timeout() bool }
	if errors.As(err, &timeout) && timeout.Timeout() {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// backoff is the wait before the next attempt: the server's Retry-After on
// a 429 or 503 (asked) when it gives one (never more than max), otherwise
// min doubled for each attempt already made, capped at max, plus jitter: up
// to half as much again, picked uniformly, still capped at max. So the first
// wait is between min and 1.5·min, and clients that failed together do not
// retry together.
func backoff(min, max time.Duration, attempt int, asked RetryAfter) time.Duration {
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

// parseRetryAfter parses a Retry-After value: a number of seconds (digits
// only) or an HTTP date, which counts from now and gives 0 when it is past.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
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
