package petstore

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore-go/internal/errbody"
	"github.com/petstore/petstore-go/internal/redact"
)

// Sentinel errors. Test for them with [errors.Is].
var (
	// ErrBadRequest matches an [*APIError] with Status 400: the server
	// refused the request's body.
	ErrBadRequest = errors.New("petstore: bad request")
	// ErrUnauthorized matches an [*APIError] with Status 401: the API key
	// is missing or invalid.
	ErrUnauthorized = errors.New("petstore: unauthorized")
	// ErrNotFound matches an [*APIError] with Status 404: from GetPet, no
	// such animal; from ListPets or CreatePet, whose path always exists, a
	// wrong base URL (its message says so).
	ErrNotFound = errors.New("petstore: not found")
	// ErrInvalidParams is wrapped by the error of a call that the SDK
	// refused before sending anything; the message names the field.
	ErrInvalidParams = errors.New("petstore: invalid parameters")
	// ErrMissingAPIKey is returned by [NewClient] when it was given no API
	// key and PETSTORE_API_KEY is unset or empty.
	ErrMissingAPIKey = errors.New("petstore: no API key: pass one to NewClient or set PETSTORE_API_KEY")
	// ErrOutcomeUnknown is matched by the error of a CreatePet whose
	// request may have reached the server but got no usable answer (a
	// timeout or cancellation, a reset or a closed connection after the
	// body went out) and was not sent again: the animal may or may not
	// exist. It is matched too when the server answered 2xx but the body
	// is not a Pet (empty, as many APIs answer a create; a proxy's HTML;
	// an id as a string): the animal exists and its id is unknown, as the
	// error's text says, with the status ("the server answered 201
	// (created) but the answer could not be read"). It is never an
	// [*APIError], and the error keeps its cause, so a timeout still
	// matches context.DeadlineExceeded and a body's decode error is
	// what it unwraps to. Check with [Client.ListPets] before creating the
	// animal again.
	ErrOutcomeUnknown = errors.New("petstore: outcome unknown: the animal may have been created")
	// ErrRateLimited matches an [*APIError] with Status 429: the server
	// asks for fewer requests (RetryAfter says when, if it said).
	ErrRateLimited = errors.New("petstore: rate limited")
	// ErrServerError matches an [*APIError] with a 5xx Status.
	ErrServerError = errors.New("petstore: server error")
)

// APIError is the error for a response whose status is not 2xx, whatever its
// body. Use [errors.As] to get it, or [errors.Is] with [ErrBadRequest],
// [ErrUnauthorized], [ErrNotFound], [ErrRateLimited] or [ErrServerError] to
// test its status; [Retryable] says whether to try again later. All its fields are
// exported, so that go-cmp compares two of them with no options.
//
// An error can match both an *APIError and a context error: when the
// context ends while the SDK waits to retry, the call's error matches
// context.Canceled (or context.DeadlineExceeded) and carries the last
// attempt's *APIError. Check the context error first.
type APIError struct {
	Status     int           // HTTP status code of the response (wins over the body's "status")
	Code       string        // body "code"; "" when the body is not the Error shape
	Message    string        // body "message"; for a body that is not the Error shape, a short description of it
	RequestID  string        // X-Request-Id (or Request-Id) response header, if any
	RetryAfter time.Duration // parsed Retry-After, if any
	Body       []byte        // the start of the raw body (at most 8 KiB), for diagnosis
	Method     string        // the request's method, e.g. "GET"
	Path       string        // the request's path, e.g. "/v1/pets/7"
}

// Error returns a one-line description, such as
// "petstore: GET /v1/pets/7: 404 not_found: pet 7 not found". With
// RetryAfter set, it ends with it, in whole seconds rounded up:
// "petstore: GET /v1/pets: 429 too_many_requests: slow down (retry after 30s)".
func (e *APIError) Error() string {
	if e == nil {
		return "petstore: <nil *APIError>"
	}
	var b strings.Builder
	b.WriteString("petstore: ")
	if e.Method != "" {
		b.WriteString(e.Method + " " + e.Path + ": ")
	}
	b.WriteString(strconv.Itoa(e.Status))
	switch {
	case e.Code != "":
		b.WriteString(" " + e.Code)
	case e.Message == "":
		if t := http.StatusText(e.Status); t != "" {
			b.WriteString(" " + t)
		}
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" (request id " + e.RequestID + ")")
	}
	if e.RetryAfter > 0 {
		// Whole seconds, rounded up: Retry-After counts in seconds, and
		// an HTTP date leaves a fraction.
		after := e.RetryAfter.Truncate(time.Second)
		if after < e.RetryAfter {
			after += time.Second
		}
		b.WriteString(" (retry after " + after.String() + ")")
	}
	return b.String()
}

// Is reports whether e has the status target stands for, so that
// errors.Is(err, ErrNotFound) holds for an APIError with Status 404.
func (e *APIError) Is(target error) bool {
	if e == nil {
		return false
	}
	switch target {
	case ErrBadRequest:
		return e.Status == http.StatusBadRequest
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	case ErrRateLimited:
		return e.Status == http.StatusTooManyRequests
	case ErrServerError:
		return e.Status >= 500 && e.Status <= 599
	}
	return false
}

// Retryable reports whether the call that returned err, made again later,
// is safe (it cannot create a second animal) and may succeed, by the SDK's
// own retry policy; the method is in the error. Case by case:
//
//	how the call ended                                  GET (ListPets, GetPet)  CreatePet
//	*APIError 429 (ErrRateLimited)                      true                    true
//	*APIError 408, 500, 502, 503, 504                   true                    false
//	*APIError, any other status (400, 401, 404, 501 …)  false                   false
//	no connection had (DNS, dial, TLS handshake, proxy  true                    true
//	  CONNECT): nothing was sent
//	every send proven unprocessed (REFUSED_STREAM, a    true                    true
//	  GOAWAY that excluded it)
//	any other transport error, an attempt that hit its  true                    false (ErrOutcomeUnknown)
//	  WithTimeout limit, a 2xx body cut short
//	an untrusted certificate, a 2xx body over 10 MiB    false                   false
//	the caller's context ended (context.Canceled or     false                   false
//	  its deadline), in an attempt or in a retry wait
//	ErrOutcomeUnknown, ErrInvalidParams (*ParamError),  false                   false
//	  ErrMissingAPIKey, *ConfigError, a 2xx body not
//	  of the documented shape, nil
//
// A 429 whose Retry-After is longer than [WithRetryWait]'s max is
// retryable too: after [APIError].RetryAfter.
func Retryable(err error) bool {
	var wait *retryWaitError
	var te *transportError
	var ae *APIError
	switch {
	case err == nil, errors.Is(err, ErrOutcomeUnknown), errors.As(err, &wait):
		return false // the context ended in a wait: the caller ended the call
	case errors.As(err, &te):
		return te.later
	case errors.As(err, &ae) && ae != nil:
		return retriedStatus(ae.Method, ae.Status)
	}
	return false
}

// ParamError is the error of a parameter the SDK refused before sending
// anything: errors.Is(err, ErrInvalidParams) holds. Its text names the
// field, as in "petstore: invalid parameters: ListPetsParams.Limit is 101;
// want 1..100, or 0 for the server's default".
type ParamError struct {
	Field  string // "ListPetsParams.Limit", "ListPetsParams.Status", "NewPet.Name" or "NewPet.Status"
	Value  string // the value given, as text, unquoted ("101", "lost", "" for an empty Name)
	Reason string // never empty, e.g. "want 1..100, or 0 for the server's default", "is empty"
}

// wantStatus is the Reason of a PetStatus refused.
const wantStatus = "want available, pending, sold or empty"

func (e *ParamError) Error() string {
	s := ErrInvalidParams.Error() + ": " + e.Field + " "
	if e.Value == "" {
		return s + e.Reason // "NewPet.Name is empty"
	}
	v := e.Value
	if e.Field != "ListPetsParams.Limit" {
		v = strconv.Quote(v) // a status, quoted as it may hold anything
	}
	return s + "is " + v + "; " + e.Reason
}

// Is reports whether target is ErrInvalidParams.
func (e *ParamError) Is(target error) bool { return target == ErrInvalidParams }

// maxErrorSample is how much of an error body APIError.Body keeps.
const maxErrorSample = 8 << 10

// answer is a response that is not 2xx, as an *APIError is made of it:
// what the call read of it, once.
type answer struct {
	status      int
	requestID   string        // X-Request-Id (or Request-Id), redacted already
	contentType string        // the Content-Type header
	retryAfter  time.Duration // the wait Retry-After asked for; 0: none
	body        []byte        // what was read of the body
	limit       int           // the most of a body that is read: one that long may go on
	cut         bool          // the connection cut the body short
}

// newAPIError builds the APIError of a call to method path answered with a.
// Should the server echo the API key, in the body or in a header, in any
// form red finds (escaped, in another case, cut off at the end of the Body
// sample), the APIError shows "[REDACTED]" instead.
//
// Code and Message come from the body as [errbody.Body.Fields] says. A body
// the connection cut short that does not decode says so ("response body
// cut short after N bytes"), an empty one too; one that is not JSON is
// described by its media type and size ("non-JSON body (text/html, N
// bytes)").
func newAPIError(method, path string, a answer, red *redact.Redactor) *APIError {
	e := &APIError{Status: a.status, Method: method, Path: path, RequestID: a.requestID, RetryAfter: a.retryAfter}
	body, cut := a.body, a.cut
	// A body that fills what the transport reads of it may go on: the
	// transport dropped the rest.
	more := !cut && len(body) >= a.limit
	switch shape, err := errbody.Decode(body, more); {
	case err != nil && cut:
		e.Message = "response body cut short after " + strconv.Itoa(len(body)) + " bytes"
	case len(bytes.TrimSpace(body)) == 0:
		e.Message = "empty response body"
	case err != nil:
		e.Message = errbody.Describe(a.contentType, len(body))
	default:
		e.Code, e.Message = shape.Fields(len(body), a.limit)
	}
	if len(body) > 0 {
		e.Body = bytes.Clone(body[:min(len(body), maxErrorSample)])
	}
	e.Code, e.Message = red.String(e.Code), red.String(e.Message)
	e.Body = red.Bytes(e.Body, cut || len(body) > maxErrorSample) // a cut body may end inside an echoed key
	return e
}

// collectionNotFound is the Message of a 404 from the pets collection at
// path whose body said msg. The interface never answers the collection with
// 404: the base URL is wrong, most often without its version segment.
func collectionNotFound(msg, path string) string {
	hint := "the API never answers " + path + " with 404: check the base URL and its /v1 segment"
	if msg == "" {
		return hint
	}
	return msg + " (" + hint + ")"
}

// cutError is a response body cut short after n bytes.
type cutError struct {
	n   int
	err error
}

func (e *cutError) Error() string {
	return "response body cut short after " + strconv.Itoa(e.n) + " bytes: " + e.err.Error()
}

func (e *cutError) Unwrap() error { return e.err }

// transportError is a failure without an HTTP response: a transport,
// size or context error. It reads "petstore: GET /v1/pets: <cause>" and
// unwraps to the cause, so errors.Is(err, context.Canceled) and
// errors.As(err, new(*url.Error)) work.
type transportError struct {
	method, path string
	err          error
	later        bool // Retryable: see callError
}

func (e *transportError) Error() string {
	cause := e.err
	if ue, ok := cause.(*url.Error); ok {
		cause = ue.Err // its URL repeats what we print; not errors.As, which would look past a redactedError
	}
	return "petstore: " + e.method + " " + e.path + ": " + cause.Error()
}

func (e *transportError) Unwrap() error { return e.err }

// outcomeError is the error of a CreatePet whose request may have reached
// the server and got no usable answer: it matches ErrOutcomeUnknown, and
// unwraps to the transportError, so that its cause still matches.
type outcomeError struct{ *transportError }

func (e *outcomeError) Error() string {
	return e.transportError.Error() + " (" + strings.TrimPrefix(ErrOutcomeUnknown.Error(), "petstore: ") + ")"
}

func (e *outcomeError) Is(target error) bool { return target == ErrOutcomeUnknown }

func (e *outcomeError) Unwrap() error { return e.transportError }

// unreadError is the error of a CreatePet answered with a 2xx whose body
// is not a Pet (empty, a proxy's HTML, an id as a string): the animal
// exists, but its id is unknown. It matches ErrOutcomeUnknown, so that the
// caller lists before creating again, and unwraps to the decode error.
type unreadError struct {
	method, path string
	status       int
	empty        bool // the body was empty, or only white space
	err          error
}

func (e *unreadError) Error() string {
	status := strconv.Itoa(e.status)
	if t := http.StatusText(e.status); t != "" {
		status += " (" + strings.ToLower(t) + ")"
	}
	what := "unexpected response body: " + e.err.Error()
	if e.empty {
		what = "empty response body"
	}
	return "petstore: " + e.method + " " + e.path + ": the server answered " + status +
		" but the answer could not be read, so the animal exists and its id is unknown: " + what
}

func (e *unreadError) Is(target error) bool { return target == ErrOutcomeUnknown }

func (e *unreadError) Unwrap() error { return e.err }

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
// finds, an error with that text redacted that keeps err's chain. net/http
// quotes a malformed response line ("malformed MIME header: missing colon:
// ..."), which a server may have made of the Authorization header it was
// sent, and a short key (a fake's "test") may stand as a word in any text. A
// *url.Error is rebuilt with its URL and its Err redacted, so that
// errors.As(err, new(*url.Error)) finds one that prints no key and says
// whether it timed out; what it wrapped stays reachable, by errors.Is and
// errors.As, as the cause.
func redactError(err error, red *redact.Redactor) error {
	text := err.Error()
	redacted := red.String(text)
	if redacted == text {
		return err
	}
	if ue, ok := err.(*url.Error); ok {
		// No form of a key spans the space, quote and colon between the
		// parts.
		return &url.Error{Op: red.String(ue.Op), URL: red.String(ue.URL), Err: redactError(ue.Err, red)}
	}
	return &redactedError{text: redacted, err: err}
}

// redactedError is an error whose text held the key: it reads as that text
// redacted, whatever the fmt verb, and unwraps to the error.
type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }

func (e *redactedError) Unwrap() error { return e.err }

// Format prints the redacted text, never the error it wraps: %#v too.
func (e *redactedError) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, fmt.FormatString(f, verb), e.text)
}

// Timeout reports whether the error it wraps is a timeout, as a *url.Error
// asks of its Err.
func (e *redactedError) Timeout() bool {
	t, ok := e.err.(interface{ Timeout() bool })
	return ok && t.Timeout()
}
