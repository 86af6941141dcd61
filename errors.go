package petstore

import (
	"bytes"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore-go/internal/jsonscan"
	"github.com/petstore/petstore-go/internal/redact"
	"github.com/petstore/petstore-go/internal/retry"
	"github.com/petstore/petstore-go/internal/transport"
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
	ErrMissingAPIKey = errors.New("petstore: no API key: pass one to NewClient or set " + envAPIKey)
)

// APIError is the error for a response whose status is not 2xx, whatever its
// body. Use [errors.As] to get it, or [errors.Is] with [ErrBadRequest],
// [ErrUnauthorized] or [ErrNotFound] to test its status. All its fields are
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
// "petstore: GET /v1/pets/7: 404 not_found: pet 7 not found".
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
	}
	return false
}

// maxErrorSample is how much of an error body APIError.Body keeps.
const maxErrorSample = 8 << 10

// newAPIError builds the APIError for a non-2xx response whose body (up to
// transport.MaxErrorBody) is body, cut short by cut if that is not nil, and
// whose Retry-After, parsed when the attempt ended, is after. Should the server echo the API key, in the body or in a header, in any form
// red finds (escaped, in another case, cut off at the end of the Body
// sample), the APIError shows "[REDACTED]" instead.
//
// Code and Message come from the body as [errorBody.apiFields] says. A body
// the connection cut short that does not decode says so ("response body
// cut short after N bytes"), an empty one too; one that is not JSON is
// described by its media type and size ("non-JSON body (text/html, N
// bytes)").
func newAPIError(method, path string, resp *http.Response, body []byte, cut error, after retry.RetryAfter, red *redact.Redactor) *APIError {
	e := &APIError{Status: resp.StatusCode, Method: method, Path: path, RequestID: transport.RequestID(resp.Header)}
	if after.OK {
		e.RetryAfter = after.Wait
	}
	// A body that fills what the transport reads of it may go on: the
	// transport dropped the rest.
	more := cut == nil && len(body) >= transport.MaxErrorBody
	switch shape, err := decodeErrorBody(body, more); {
	case err != nil && cut != nil:
		e.Message = "response body cut short after " + strconv.Itoa(len(body)) + " bytes"
	case len(bytes.TrimSpace(body)) == 0:
		e.Message = "empty response body"
	case err != nil:
		e.Message = describeBody(resp.Header.Get("Content-Type"), len(body))
	default:
		e.Code, e.Message = shape.apiFields(len(body))
	}
	if len(body) > 0 {
		e.Body = bytes.Clone(body[:min(len(body), maxErrorSample)])
	}
	e.Code, e.Message, e.RequestID = red.String(e.Code), red.String(e.Message), red.String(e.RequestID)
	e.Body = red.Bytes(e.Body, cut != nil || len(body) > maxErrorSample) // a cut body may end inside an echoed key
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

// describeBody says what a body that is not JSON is, without quoting it.
func describeBody(contentType string, n int) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || mt == "" {
		mt = "unknown type"
	}
	return "non-JSON body (" + mt + ", " + strconv.Itoa(n) + " bytes)"
}

// errorBody is what decodeErrorBody read of an error body that is JSON, or
// the start of JSON when the body was cut at what the transport reads.
type errorBody struct {
	kind          jsonscan.Kind // of the top-level value: never Invalid
	code, message member        // of an object: its last "code" and "message"
	cut           bool          // the body ends inside its top-level value
}

// member is the value of an object's last member with a given name, as
// encoding/json matches names to fields (folding case).
type member struct {
	// kind is the value's kind; Invalid when there is no such member, or
	// its value is null (which encoding/json decodes as no value), or the
	// body ends after its colon.
	kind jsonscan.Kind
	text string // a whole string's value; "" otherwise
	cut  bool   // the body ends inside the value (a number at its very end included)
}

// apiFields returns the Code and Message of an APIError whose body of n
// bytes is e. It keeps what can be kept and describes the rest:
//
//   - Code is the body's "code" when that is a whole string; "" for any
//     other value ({"code":400} is not the Error shape, whose code is a
//     string), or one the body ends inside of.
//   - Message is the body's "message" when that is a whole string. A
//     "message" of another type is described: `JSON body whose "message" is
//     an array (N bytes)` (or a number, a boolean, an object).
//   - A top-level value other than an object: "JSON array, not an Error
//     object (N bytes)" (or string, number, boolean, null).
//   - A body cut at 64 KiB, what the SDK reads of an error body (see
//     transport.MaxErrorBody), keeps the code and message that stand whole
//     before the cut, the message as it is; otherwise it says where the cut
//     fell: `JSON body cut at 64 KiB inside its "message", a string (N
//     bytes)`, `JSON body cut at 64 KiB with no "message" before the cut (N
//     bytes)`, "JSON array, not an Error object, cut at 64 KiB (N bytes)".
//   - An object without a message: Message "" when the code is kept, else
//     `JSON body whose "code" is an array (N bytes)` when it holds another
//     type, else "JSON body without code or message (N bytes)".
func (e errorBody) apiFields(n int) (code, message string) {
	size := " (" + strconv.Itoa(n) + " bytes)"
	cutAt := "cut at " + strconv.Itoa(transport.MaxErrorBody>>10) + " KiB"
	if e.kind != jsonscan.Object {
		if e.cut {
			return "", "JSON " + kindName(e.kind) + ", not an Error object, " + cutAt + size
		}
		return "", "JSON " + kindName(e.kind) + ", not an Error object" + size
	}
	keep := e.code.kind == jsonscan.String && !e.code.cut
	if keep {
		code = e.code.text
	}
	switch m := e.message; {
	case m.kind == jsonscan.String && !m.cut:
		message = m.text
	case m.cut:
		message = `JSON body ` + cutAt + ` inside its "message", ` + aKindName(m.kind) + size
	case m.kind != jsonscan.Invalid:
		message = `JSON body whose "message" is ` + aKindName(m.kind) + size
	case e.cut:
		message = `JSON body ` + cutAt + ` with no "message" before the cut` + size
	case keep: // the code alone, even "", as Error() shows it
	case e.code.kind != jsonscan.Invalid:
		message = `JSON body whose "code" is ` + aKindName(e.code.kind) + size
	default:
		message = "JSON body without code or message" + size
	}
	return code, message
}

// kindName names a kind of JSON value.
func kindName(k jsonscan.Kind) string {
	switch k {
	case jsonscan.Null:
		return "null"
	case jsonscan.Bool:
		return "boolean"
	case jsonscan.Number:
		return "number"
	case jsonscan.String:
		return "string"
	case jsonscan.Array:
		return "array"
	case jsonscan.Object:
		return "object"
	}
	return "value"
}

// aKindName names a kind of JSON value with its article: "an array".
func aKindName(k jsonscan.Kind) string {
	if k == jsonscan.Array || k == jsonscan.Object {
		return "an " + kindName(k)
	}
	return "a " + kindName(k)
}

// decodeErrorBody decodes an error body: its top-level value's kind and, of
// an object, the members "code" and "message" ({code, message, status} is
// the Error shape), matched by name as encoding/json matches them to a
// struct's fields (folding case), the last of a repeated one winning, a null
// counting as none; other members are ignored. It accepts and refuses what
// encoding/json accepts and refuses; the fuzz tests in decode_fuzz_test.go
// hold it to that.
//
// With more, data may be only the start of the body (it filled what the
// transport reads): data that ends inside its value, but is JSON up to
// there, is then no error but a result with cut set, with what stands whole
// before the end (see member). A number that reaches the end of data is cut
// too: its next digit may be in the rest.
func decodeErrorBody(data []byte, more bool) (errorBody, error) {
	d := jsonscan.NewDecoder(data)
	e := errorBody{kind: d.Next()}
	var err error
	switch e.kind {
	case jsonscan.Object:
		err = e.decodeObject(d, data)
	case jsonscan.Invalid: // not JSON, or only whitespace
		return errorBody{}, d.Skip()
	default:
		err = d.Skip()
	}
	if err == nil {
		err = d.End()
	}
	if err != nil {
		if !more || !endsEarly(err, data) {
			return errorBody{}, err
		}
		e.cut = true
		return e, nil
	}
	if e.kind == jsonscan.Number && more && !isSpace(data[len(data)-1]) {
		e.cut = true // the number reaches the end
	}
	return e, nil
}

// endsEarly reports whether err, from a Decoder of data, is data ending
// inside a value: data is then the start of some JSON. jsonscan reports
// every such error at the end of its input, and any other before it.
func endsEarly(err error, data []byte) bool {
	var se *jsonscan.SyntaxError
	return errors.As(err, &se) && se.Offset == len(data)
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// errorFields are the members of an Error body that the SDK reads; it
// ignores its status, as the HTTP status line wins.
var errorFields = jsonscan.NewFields("code", "message")

// The members of an Error body, as errorFields numbers them.
const (
	errorCode = iota
	errorMessage
)

// decodeObject reads an error body's object into e.code and e.message.
func (e *errorBody) decodeObject(d *jsonscan.Decoder, data []byte) error {
	obj := d.Object(errorFields)
	for obj.Next() {
		var m *member
		switch obj.Field() {
		case errorCode:
			m = &e.code
		case errorMessage:
			m = &e.message
		default:
			if err := d.Skip(); err != nil {
				return err
			}
			continue
		}
		if err := m.decode(d, data); err != nil {
			return err
		}
	}
	return obj.Err()
}

// decode reads a member's value, the next in d, which reads data. On an
// error, m is what stands whole before it (for errorBody.cut).
func (m *member) decode(d *jsonscan.Decoder, data []byte) error {
	*m = member{kind: d.Next()}
	switch m.kind {
	case jsonscan.String:
		s, err := d.Str()
		if err != nil {
			m.cut = true
			return err
		}
		m.text = s.String()
	case jsonscan.Number:
		if err := d.Skip(); err != nil {
			m.cut = true
			return err
		}
		if d.Offset() == len(data) {
			m.cut = true // its next digit may be in what was not read
		}
	case jsonscan.Null, jsonscan.Invalid:
		*m = member{}
		return d.Skip()
	default:
		if err := d.Skip(); err != nil {
			m.cut = true
			return err
		}
	}
	return nil
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
