// Package errbody reads the body of an error response (not 2xx) for the
// SDK's APIError: the Error shape's code and message where they stand
// whole, and a description of anything else (JSON of another shape, a body
// cut at what the SDK reads of it, a body that is not JSON). It is a room of
// its own, apart from errors.go's APIError, because reading any JSON, or the
// start of some, tolerantly and exactly as encoding/json would is a job of
// its own: FuzzDecodeErrorBody (decode_fuzz_test.go, in the root package)
// holds Decode to encoding/json.
package errbody

import (
	"errors"
	"mime"
	"strconv"

	"github.com/petstore/petstore-go/internal/jsonscan"
)

// Describe says what a body that is not JSON is, without quoting it.
func Describe(contentType string, n int) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || mt == "" {
		mt = "unknown type"
	}
	return "non-JSON body (" + mt + ", " + strconv.Itoa(n) + " bytes)"
}

// Body is what Decode read of an error body that is JSON, or
// the start of JSON when the body was cut at what the transport reads.
type Body struct {
	Kind          jsonscan.Kind // of the top-level value: never Invalid
	Code, Message Member        // of an object: its last "code" and "message"
	Cut           bool          // the body ends inside its top-level value
}

// Member is the value of an object's last Member with a given name, as
// encoding/json matches names to fields (folding case).
type Member struct {
	// kind is the value's kind; Invalid when there is no such Member, or
	// its value is null (which encoding/json decodes as no value), or the
	// body ends after its colon.
	Kind jsonscan.Kind
	Text string // a whole string's value; "" otherwise
	Cut  bool   // the body ends inside the value (a number at its very end included)
}

// Fields returns the Code and Message of an APIError whose body of n bytes
// is e, of which the SDK reads at most limit bytes. It keeps what can be kept and describes the rest:
//
//   - Code is the body's "code" when that is a whole string; "" for any
//     other value ({"code":400} is not the Error shape, whose code is a
//     string), or one the body ends inside of.
//   - Message is the body's "message" when that is a whole string. A
//     "message" of another type is described: `JSON body whose "message" is
//     an array (N bytes)` (or a number, a boolean, an object).
//   - A top-level value other than an object: "JSON array, not an Error
//     object (N bytes)" (or string, number, boolean, null).
//   - A body cut at limit (64 KiB, transport.MaxErrorBody, in the SDK)
//     keeps the code and message that stand whole
//     before the cut, the message as it is; otherwise it says where the cut
//     fell: `JSON body cut at 64 KiB inside its "message", a string (N
//     bytes)`, `JSON body cut at 64 KiB with no "message" before the cut (N
//     bytes)`, "JSON array, not an Error object, cut at 64 KiB (N bytes)".
//   - An object without a message: Message "" when the code is kept, else
//     `JSON body whose "code" is an array (N bytes)` when it holds another
//     type, else "JSON body without code or message (N bytes)".
func (e Body) Fields(n, limit int) (code, message string) {
	size := " (" + strconv.Itoa(n) + " bytes)"
	cutAt := "cut at " + strconv.Itoa(limit>>10) + " KiB"
	if e.Kind != jsonscan.Object {
		if e.Cut {
			return "", "JSON " + kindName(e.Kind) + ", not an Error object, " + cutAt + size
		}
		return "", "JSON " + kindName(e.Kind) + ", not an Error object" + size
	}
	keep := e.Code.Kind == jsonscan.String && !e.Code.Cut
	if keep {
		code = e.Code.Text
	}
	switch m := e.Message; {
	case m.Kind == jsonscan.String && !m.Cut:
		message = m.Text
	case m.Cut:
		message = `JSON body ` + cutAt + ` inside its "message", ` + aKindName(m.Kind) + size
	case m.Kind != jsonscan.Invalid:
		message = `JSON body whose "message" is ` + aKindName(m.Kind) + size
	case e.Cut:
		message = `JSON body ` + cutAt + ` with no "message" before the cut` + size
	case keep: // the code alone, even "", as Error() shows it
	case e.Code.Kind != jsonscan.Invalid:
		message = `JSON body whose "code" is ` + aKindName(e.Code.Kind) + size
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

// Decode decodes an error body: its top-level value's kind and, of
// an object, the members "code" and "message" ({code, message, status} is
// the Error shape), matched by name as encoding/json matches them to a
// struct's fields (folding case), the last of a repeated one winning, a null
// counting as none; other members are ignored. It accepts and refuses what
// encoding/json accepts and refuses; the fuzz test FuzzDecodeErrorBody (the root package's decode_fuzz_test.go)
// hold it to that.
//
// With more, data may be only the start of the body (it filled what the
// transport reads): data that ends inside its value, but is JSON up to
// there, is then no error but a result with cut set, with what stands whole
// before the end (see Member). A number that reaches the end of data is cut
// too: its next digit may be in the rest.
func Decode(data []byte, more bool) (Body, error) {
	d := jsonscan.NewDecoder(data)
	e := Body{Kind: d.Next()}
	var err error
	switch e.Kind {
	case jsonscan.Object:
		err = e.decodeObject(d, data)
	case jsonscan.Invalid: // not JSON, or only whitespace
		return Body{}, d.Skip()
	default:
		err = d.Skip()
	}
	if err == nil {
		err = d.End()
	}
	if err != nil {
		if !more || !endsEarly(err, data) {
			return Body{}, err
		}
		e.Cut = true
		return e, nil
	}
	if e.Kind == jsonscan.Number && more && !isSpace(data[len(data)-1]) {
		e.Cut = true // the number reaches the end
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

// decodeObject reads an error body's object into e.Code and e.Message.
func (e *Body) decodeObject(d *jsonscan.Decoder, data []byte) error {
	obj := d.Object(errorFields)
	for obj.Next() {
		var m *Member
		switch obj.Field() {
		case errorCode:
			m = &e.Code
		case errorMessage:
			m = &e.Message
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

// decode reads a Member's value, the next in d, which reads data. On an
// error, m is what stands whole before it (for Body.cut).
func (m *Member) decode(d *jsonscan.Decoder, data []byte) error {
	*m = Member{Kind: d.Next()}
	switch m.Kind {
	case jsonscan.String:
		s, err := d.Str()
		if err != nil {
			m.Cut = true
			return err
		}
		m.Text = s.String()
	case jsonscan.Number:
		if err := d.Skip(); err != nil {
			m.Cut = true
			return err
		}
		if d.Offset() == len(data) {
			m.Cut = true // its next digit may be in what was not read
		}
	case jsonscan.Null, jsonscan.Invalid:
		*m = Member{}
		return d.Skip()
	default:
		if err := d.Skip(); err != nil {
			m.Cut = true
			return err
		}
	}
	return nil
}
