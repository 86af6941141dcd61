// Package jsonscan reads JSON without reflection, one token at a time:
// whitespace, literals, strings, int64 numbers, objects member by member and
// arrays element by element, and any value skipped. It accepts and rejects
// what encoding/json accepts and rejects, and yields the same values:
//
//   - the whole input is one JSON value with only JSON whitespace around it
//     (see [Decoder.End]), nested at most [MaxDepth] levels deep;
//   - strings are unescaped as encoding/json unescapes them: a lone
//     surrogate, or a byte that is not valid UTF-8, becomes U+FFFD;
//   - [Decoder.Int64] takes what encoding/json takes for an int64 field: no
//     fraction, no exponent, in range;
//   - [Str.EqualFold] matches a member name to a field name as encoding/json
//     does, folding case as it does (so "ſtatus", with U+017F, is "status").
//
// It knows nothing of the API's types: the SDK walks its three shapes with
// it, in pets.go ([]Pet and Pet) and internal/errbody (the Error body), and
// the root package's fuzz tests hold each shape to encoding/json.
//
// It exists because decoding is most of what a call costs: 85-90 % of the
// instructions of a ListPets call that returns 100 pets (121k of 139k, in
// process). It decodes that 8.3 KB body at 14.5 instructions per byte, with
// two allocations; go-faster/jx, as ogen's client decodes it, takes 2.3
// times as many instructions, and encoding/json 10.6 times. What makes it
// fast: member names matched against the expected next field in one
// 17-byte window, strings scanned eight bytes at a time, integers read up to
// eight digits at once, and plain strings (no escape, valid UTF-8) used as
// they stand in the input, with no unescaping.
// internal/bench/decode.sh counts the decoders alone; run.sh counts whole
// calls of every client, in process, with garbage collection off:
//
//	cd internal/bench && CGO_ENABLED=0 go build -o /tmp/cg ./cmd/callgrind
//	GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
//		--callgrind-out-file=/dev/null /tmp/cg -client sdk -op ListPets -n 500
//
// and subtract the same run with -n 0; divide by 500.
package jsonscan

import "strconv"

// MaxDepth is how deeply encoding/json lets arrays and objects nest.
const MaxDepth = 10000

// SyntaxError is input that is not valid JSON, or holds a value of another
// type than the one asked for.
type SyntaxError struct {
	Msg    string // what is wrong
	Offset int    // where in the input it was found
}

// Error returns the message and the offset.
func (e *SyntaxError) Error() string {
	return e.Msg + " at offset " + strconv.Itoa(e.Offset)
}

// Kind is the type of a JSON value, as its first byte tells.
type Kind uint8

// The kinds of JSON values.
const (
	Invalid Kind = iota // the end of the input, or a byte no value starts with
	Null
	Bool
	Number
	String
	Array
	Object
)

// kinds maps the first byte of a value to its kind.
var kinds = [256]Kind{
	'n': Null, 't': Bool, 'f': Bool, '"': String, '[': Array, '{': Object,
	'-': Number, '0': Number, '1': Number, '2': Number, '3': Number, '4': Number,
	'5': Number, '6': Number, '7': Number, '8': Number, '9': Number,
}

// Decoder reads one JSON document from a byte slice, which it never
// modifies. The strings it returns point into that slice.
type Decoder struct {
	data  []byte
	pos   int   // the next byte to read
	depth int   // the arrays and objects open at pos
	err   error // the error that ended the last Iter that failed
}

// NewDecoder returns a Decoder that reads data.
func NewDecoder(data []byte) *Decoder {
	return &Decoder{data: data}
}

func (d *Decoder) errorf(msg string) error { return &SyntaxError{Msg: msg, Offset: d.pos} }

// syntaxError reports the byte at d.pos, or the end of the input.
func (d *Decoder) syntaxError() error {
	if d.pos >= len(d.data) {
		return d.errorf("unexpected end of JSON input")
	}
	return d.errorf("invalid character " + strconv.QuoteRune(rune(d.data[d.pos])))
}

// TypeError returns the error for a value, at the current offset, that is
// not what the caller wants: "want " + want.
func (d *Decoder) TypeError(want string) error { return d.errorf("want " + want) }

// Offset returns where d is in its input: the offset of the next byte it
// reads.
func (d *Decoder) Offset() int { return d.pos }

// ws skips JSON whitespace and returns the next byte, or 0 at the end. It
// is small enough to inline: it only looks at one byte when there is no
// whitespace, as in most JSON.
func (d *Decoder) ws() byte {
	if d.pos < len(d.data) && d.data[d.pos] > ' ' {
		return d.data[d.pos]
	}
	return d.skipWS()
}

// skipWS is ws when there may be whitespace.
func (d *Decoder) skipWS() byte {
	for d.pos < len(d.data) {
		switch c := d.data[d.pos]; c {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return c
		}
	}
	return 0
}

// Next skips whitespace and returns the kind of the value that follows,
// without reading it.
func (d *Decoder) Next() Kind {
	return kinds[d.ws()]
}

// End checks that only whitespace is left: call it after the top-level
// value.
func (d *Decoder) End() error {
	if d.ws(); d.pos != len(d.data) {
		return d.errorf("invalid character after top-level value")
	}
	return nil
}

// literal consumes the literal lit (true, false or null) at d.pos.
func (d *Decoder) literal(lit string) error {
	if len(d.data)-d.pos >= len(lit) && string(d.data[d.pos:d.pos+len(lit)]) == lit {
		d.pos += len(lit)
		return nil
	}
	for i := 0; i < len(lit); i++ {
		if d.pos >= len(d.data) || d.data[d.pos] != lit[i] {
			return d.syntaxError()
		}
		d.pos++
	}
	return nil
}

// Null reads a null.
func (d *Decoder) Null() error {
	if d.ws() != 'n' {
		return d.TypeError("null")
	}
	return d.literal("null")
}

// Skip reads any value and discards it.
func (d *Decoder) Skip() error {
	switch d.ws() {
	case '{':
		obj := d.Object(nil)
		for obj.Next() {
			if err := d.Skip(); err != nil {
				return err
			}
		}
		return obj.Err()
	case '[':
		arr := d.Array()
		for arr.Next() {
			if err := d.Skip(); err != nil {
				return err
			}
		}
		return arr.Err()
	case '"':
		_, err := d.str()
		return err
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return d.skipNumber()
	}
	return d.syntaxError()
}
