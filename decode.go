package petstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// This file decodes the three JSON shapes the API returns ([]Pet, Pet and the
// Error body) without reflection. It accepts and rejects exactly what
// encoding/json accepts and rejects when it decodes into structs with pointer
// fields (see wirePet in decode_test.go, and the differential fuzz tests
// there), and produces the same values:
//
//   - the whole input must be one valid JSON value, with only JSON whitespace
//     around it, nested at most 10000 levels deep;
//   - field names match case-insensitively, as encoding/json folds them
//     (including U+017F and U+212A, which fold to "s" and "k");
//   - unknown fields are skipped, whatever their value;
//   - for a repeated field the last value wins, and a null resets it;
//   - integers must fit int64 and have no fraction or exponent; strings are
//     unescaped as encoding/json does (invalid surrogates and invalid UTF-8
//     become U+FFFD).

// maxDepth is how deeply encoding/json lets arrays and objects nest.
const maxDepth = 10000

// jsonError is a body that is not valid JSON, or not of the expected shape.
type jsonError struct {
	msg string
	off int
}

func (e *jsonError) Error() string {
	return e.msg + " at offset " + strconv.Itoa(e.off)
}

// field identifies a known object member.
type field uint8

const (
	fieldUnknown field = iota
	fieldID
	fieldName
	fieldCategoryID
	fieldStatus
	fieldCode
	fieldMessage
)

// strPlain[c] is true for bytes that stand for themselves inside a JSON
// string and are ASCII: no quote, backslash, control character or byte of a
// multi-byte sequence.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// decoder walks one JSON document.
type decoder struct {
	data []byte
	pos  int
}

func (d *decoder) errorf(msg string) error { return &jsonError{msg: msg, off: d.pos} }

func (d *decoder) syntaxError() error {
	if d.pos >= len(d.data) {
		return d.errorf("unexpected end of JSON input")
	}
	return &jsonError{msg: "invalid character " + strconv.QuoteRune(rune(d.data[d.pos])), off: d.pos}
}

// ws skips JSON whitespace and returns the next byte, or 0 at the end.
func (d *decoder) ws() byte {
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

// end checks that only whitespace follows the top-level value.
func (d *decoder) end() error {
	if d.ws(); d.pos != len(d.data) {
		return d.errorf("invalid character after top-level value")
	}
	return nil
}

// literal consumes the literal lit (true, false or null) at d.pos.
func (d *decoder) literal(lit string) error {
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

// str consumes the string that starts at d.pos (at its quote) and returns
// its raw contents, still escaped. plain reports that they need no
// unescaping: no backslash, and only ASCII.
func (d *decoder) str() (raw []byte, plain bool, err error) {
	data := d.data
	start := d.pos + 1
	i := start
	plain = true
	for {
		// Eight bytes at a time while none needs a look, then one by one.
		for i+8 <= len(data) {
			x := binary.LittleEndian.Uint64(data[i:])
			m := special(x)
			if m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		for i < len(data) && strPlain[data[i]] {
			i++
		}
		if i >= len(data) {
			d.pos = i
			return nil, false, d.syntaxError()
		}
		switch c := data[i]; {
		case c == '"':
			d.pos = i + 1
			return data[start:i], plain, nil
		case c == '\\':
			plain = false
			if i+1 >= len(data) {
				d.pos = i + 1
				return nil, false, d.syntaxError()
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				i += 2
				for k := 0; k < 4; k++ {
					if i >= len(data) || unhex(data[i]) < 0 {
						d.pos = i
						return nil, false, d.syntaxError()
					}
					i++
				}
			default:
				d.pos = i + 1
				return nil, false, d.errorf("invalid escape in string")
			}
		case c < 0x20:
			d.pos = i
			return nil, false, d.errorf("control character in string")
		default: // a byte >= 0x80: any is accepted, invalid UTF-8 included
			plain = false
			i++
		}
	}
}

// special returns a word whose lowest set bit is the high bit of the first
// byte of x (little-endian) that strPlain refuses: a quote, a backslash, a
// control character or a byte >= 0x80. Higher bits may be set spuriously.
func special(x uint64) uint64 {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (x - ones*0x20) | x) & high
}

func unhex(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// hex4 reads the 4 hex digits of a \u escape that str validated.
func hex4(b []byte) rune {
	return unhex(b[0])<<12 | unhex(b[1])<<8 | unhex(b[2])<<4 | unhex(b[3])
}

// escaped returns the byte a one-character escape stands for.
func escaped(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // '"', '\\', '/'
}

// nextRune decodes one character of the raw string contents s (validated by
// str) at i, as encoding/json does: escapes, surrogate pairs, and U+FFFD for
// a lone surrogate or a byte that is not valid UTF-8. It returns the rune and
// how many bytes of s it used; copy is true when the rune is the bytes
// s[i:i+n] as they are.
func nextRune(s []byte, i int) (r rune, n int, copy bool) {
	c := s[i]
	if c < utf8.RuneSelf {
		if c != '\\' {
			return rune(c), 1, true
		}
		if s[i+1] != 'u' {
			return rune(escaped(s[i+1])), 2, false
		}
		r = hex4(s[i+2 : i+6])
		if utf16.IsSurrogate(r) {
			if i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
				if dec := utf16.DecodeRune(r, hex4(s[i+8:i+12])); dec != utf8.RuneError {
					return dec, 12, false
				}
			}
			return utf8.RuneError, 6, false
		}
		return r, 6, false
	}
	r, n = utf8.DecodeRune(s[i:])
	if r == utf8.RuneError && n == 1 {
		return utf8.RuneError, 1, false
	}
	return r, n, true
}

// unquote appends the unescaped form of the raw string contents s to dst.
func unquote(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		if strPlain[s[i]] {
			j := i + 1
			for j < len(s) && strPlain[s[j]] {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		r, n, copy := nextRune(s, i)
		if copy {
			dst = append(dst, s[i:i+n]...)
		} else {
			dst = utf8.AppendRune(dst, r)
		}
		i += n
	}
	return dst
}

// unquotedLen is len(unquote(nil, s)).
func unquotedLen(s []byte) int {
	size := 0
	for i := 0; i < len(s); {
		if strPlain[s[i]] {
			size++
			i++
			continue
		}
		r, n, copy := nextRune(s, i)
		if copy {
			size += n
		} else {
			size += utf8.RuneLen(r)
		}
		i += n
	}
	return size
}

// matchField returns the field a member name (raw, as str returned it)
// stands for. Like encoding/json, it first folds the name: ASCII letters
// to one case, and every other rune to the smallest rune of its Unicode
// simple-fold orbit. The only runes outside ASCII that fold into it are
// U+017F (long s, folds with S) and U+212A (Kelvin sign, folds with K).
func matchField(raw []byte, plain bool) field {
	switch string(raw) { // the usual spelling first
	case "id":
		return fieldID
	case "name":
		return fieldName
	case "categoryId":
		return fieldCategoryID
	case "status":
		return fieldStatus
	}
	if plain {
		return matchFolded(raw)
	}
	var buf [10]byte // as long as the longest name, "categoryId"
	n := 0
	for i := 0; i < len(raw); {
		r, size, _ := nextRune(raw, i)
		i += size
		switch {
		case r < utf8.RuneSelf:
		case r == 0x17F:
			r = 's'
		case r == 0x212A:
			r = 'k'
		default:
			return fieldUnknown
		}
		if n == len(buf) {
			return fieldUnknown
		}
		buf[n] = byte(r)
		n++
	}
	return matchFolded(buf[:n])
}

// matchFolded matches an ASCII name case-insensitively.
func matchFolded(k []byte) field {
	switch len(k) {
	case 2:
		if equalFold(k, "id") {
			return fieldID
		}
	case 4:
		if equalFold(k, "name") {
			return fieldName
		}
		if equalFold(k, "code") {
			return fieldCode
		}
	case 6:
		if equalFold(k, "status") {
			return fieldStatus
		}
	case 7:
		if equalFold(k, "message") {
			return fieldMessage
		}
	case 10:
		if equalFold(k, "categoryid") {
			return fieldCategoryID
		}
	}
	return fieldUnknown
}

// equalFold reports whether k is lower (all lower-case ASCII letters) in
// any case: c|0x20 equals a lower-case letter only for that letter and its
// upper case.
func equalFold(k []byte, lower string) bool {
	for i := 0; i < len(k); i++ {
		if k[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}

// int64Value consumes a JSON number that must be an int64, as
// encoding/json requires for an int64 field: no fraction, no exponent, in
// range.
func (d *decoder) int64Value() (int64, error) {
	data := d.data
	i := d.pos
	neg := false
	if i < len(data) && data[i] == '-' {
		neg = true
		i++
	}
	if i >= len(data) || data[i] < '0' || data[i] > '9' {
		d.pos = i
		return 0, d.syntaxError()
	}
	var u uint64
	if data[i] == '0' {
		i++
	} else {
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			u = u*10 + uint64(data[i]-'0') // wraps past 20 digits, refused below
			i++
		}
		if i-start > 19 {
			d.pos = start
			return 0, d.errorf("number out of int64 range")
		}
	}
	if i < len(data) && (data[i] == '.' || data[i] == 'e' || data[i] == 'E') {
		d.pos = i
		return 0, d.errorf("number is not an integer")
	}
	d.pos = i
	if neg {
		if u > 1<<63 {
			return 0, d.errorf("number out of int64 range")
		}
		return int64(-u), nil
	}
	if u > 1<<63-1 {
		return 0, d.errorf("number out of int64 range")
	}
	return int64(u), nil
}

// skipNumber consumes a JSON number.
func (d *decoder) skipNumber() error {
	data := d.data
	i := d.pos
	if data[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		return i > start
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case !digits():
		d.pos = i
		return d.syntaxError()
	}
	if i < len(data) && data[i] == '.' {
		i++
		if !digits() {
			d.pos = i
			return d.syntaxError()
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !digits() {
			d.pos = i
			return d.syntaxError()
		}
	}
	d.pos = i
	return nil
}

// skip consumes any JSON value at d.pos (after whitespace); depth is the
// nesting level an array or object there would have.
func (d *decoder) skip(depth int) error {
	switch d.ws() {
	case '{':
		if depth > maxDepth {
			return d.errorf("exceeded max depth")
		}
		d.pos++
		if d.ws() == '}' {
			d.pos++
			return nil
		}
		for {
			if d.ws() != '"' {
				return d.syntaxError()
			}
			if _, _, err := d.str(); err != nil {
				return err
			}
			if d.ws() != ':' {
				return d.syntaxError()
			}
			d.pos++
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			switch d.ws() {
			case ',':
				d.pos++
			case '}':
				d.pos++
				return nil
			default:
				return d.syntaxError()
			}
		}
	case '[':
		if depth > maxDepth {
			return d.errorf("exceeded max depth")
		}
		d.pos++
		if d.ws() == ']' {
			d.pos++
			return nil
		}
		for {
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			switch d.ws() {
			case ',':
				d.pos++
			case ']':
				d.pos++
				return nil
			default:
				return d.syntaxError()
			}
		}
	case '"':
		_, _, err := d.str()
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

// isNull consumes a null at d.pos if there is one (after whitespace).
func (d *decoder) isNull() (bool, error) {
	if d.ws() != 'n' {
		return false, nil
	}
	return true, d.literal("null")
}

// stringValue consumes a string or null (ok false) for a string field.
func (d *decoder) stringValue() (raw []byte, plain, ok bool, err error) {
	switch d.ws() {
	case '"':
		raw, plain, err = d.str()
		return raw, plain, err == nil, err
	case 'n':
		return nil, false, false, d.literal("null")
	}
	// Any other value is the wrong type: encoding/json refuses it too.
	return nil, false, false, d.errorf("want a string")
}

// wirePetFields is one Pet object as read: its last value for each field,
// with strings still raw.
type wirePetFields struct {
	id, categoryID         int64
	name, status           []byte
	namePlain, statusPlain bool
	hasID, hasName, hasCat bool
	hasStatus              bool
}

// object reads a Pet object at d.pos (its '{', after whitespace); depth is
// the object's nesting level.
func (d *decoder) object(w *wirePetFields, depth int) error {
	if depth > maxDepth {
		return d.errorf("exceeded max depth")
	}
	d.pos++ // '{'
	if d.ws() == '}' {
		d.pos++
		return nil
	}
	for {
		if d.ws() != '"' {
			return d.syntaxError()
		}
		f, err := d.key()
		if err != nil {
			return err
		}
		if d.ws() != ':' {
			return d.syntaxError()
		}
		d.pos++
		switch f {
		case fieldID:
			w.hasID, err = d.intField(&w.id)
		case fieldCategoryID:
			w.hasCat, err = d.intField(&w.categoryID)
		case fieldName:
			w.name, w.namePlain, w.hasName, err = d.stringValue()
		case fieldStatus:
			w.status, w.statusPlain, w.hasStatus, err = d.stringValue()
		default:
			err = d.skip(depth + 1)
		}
		if err != nil {
			return err
		}
		switch d.ws() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.syntaxError()
		}
	}
}

// key reads a member name at d.pos (at its quote) and returns the field
// it names. The usual spellings are recognized without scanning.
func (d *decoder) key() (field, error) {
	rest := d.data[d.pos:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == `"id"`:
		d.pos += 4
		return fieldID, nil
	case len(rest) >= 6 && string(rest[:6]) == `"name"`:
		d.pos += 6
		return fieldName, nil
	case len(rest) >= 12 && string(rest[:12]) == `"categoryId"`:
		d.pos += 12
		return fieldCategoryID, nil
	case len(rest) >= 8 && string(rest[:8]) == `"status"`:
		d.pos += 8
		return fieldStatus, nil
	}
	raw, plain, err := d.str()
	if err != nil {
		return fieldUnknown, err
	}
	return matchField(raw, plain), nil
}

// intField reads an int64 or null into *v; ok is false for null.
func (d *decoder) intField(v *int64) (ok bool, err error) {
	if null, err := d.isNull(); null || err != nil {
		return false, err
	}
	*v, err = d.int64Value()
	return err == nil, err
}

// check reports a missing required field.
func (w *wirePetFields) check() error {
	switch {
	case !w.hasID:
		return errors.New("pet has no id")
	case !w.hasName:
		return errors.New("pet has no name")
	case !w.hasCat:
		return errors.New("pet has no categoryId")
	}
	return nil
}

// petStatus returns the status a raw JSON string holds, without allocating
// for the three known values.
func petStatus(raw []byte, plain bool) PetStatus {
	if !plain {
		var buf [16]byte
		raw = unquote(buf[:0], raw)
	}
	switch string(raw) {
	case "available":
		return PetStatusAvailable
	case "pending":
		return PetStatusPending
	case "sold":
		return PetStatusSold
	}
	return PetStatus(raw)
}

// minPetLen is the length of the shortest Pet object that has its three
// required fields, `{"id":0,"name":"","categoryId":0}`, plus a comma.
const minPetLen = 34

// decodePets decodes a JSON array of Pet objects; every element must be an
// object with the required fields. All the names share one allocation.
func decodePets(data []byte) ([]Pet, error) {
	d := decoder{data: data}
	if d.ws() != '[' {
		if d.pos < len(data) && data[d.pos] == 'n' {
			if err := d.literal("null"); err != nil {
				return nil, err
			}
			return nil, errors.New("null instead of an array of pets")
		}
		return nil, d.errorf("want an array of pets")
	}
	d.pos++
	// Room for every object: each has a '{', and takes minPetLen bytes.
	n := min(bytes.Count(data[d.pos:], []byte{'{'}), len(data)/minPetLen+1)
	pets := make([]Pet, 0, n)
	// The names are copied, at the end, into one string that every Pet's
	// Name is a slice of: one allocation for all of them. Until then,
	// rawNames holds each name as it stands in data (maybe escaped).
	rawNames := make([][]byte, 0, n)
	namesLen := 0
	if d.ws() == ']' {
		d.pos++
	} else {
	elems:
		for {
			if d.ws() != '{' {
				if d.pos < len(data) && data[d.pos] == 'n' {
					return nil, errors.New("pet " + strconv.Itoa(len(pets)) + " is null")
				}
				return nil, d.errorf("want a pet object")
			}
			var w wirePetFields
			if err := d.object(&w, 2); err != nil {
				return nil, err
			}
			if err := w.check(); err != nil {
				return nil, errors.New("pet " + strconv.Itoa(len(pets)) + ": " + err.Error())
			}
			p := Pet{ID: w.id, CategoryID: w.categoryID}
			if w.hasStatus {
				p.Status = petStatus(w.status, w.statusPlain)
			}
			if !w.namePlain {
				w.name = unquote(nil, w.name) // rare: a name with escapes
			}
			namesLen += len(w.name)
			pets = append(pets, p)
			rawNames = append(rawNames, w.name)
			switch d.ws() {
			case ',':
				d.pos++
			case ']':
				d.pos++
				break elems
			default:
				return nil, d.syntaxError()
			}
		}
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.Grow(namesLen)
	for _, name := range rawNames {
		b.Write(name)
	}
	names, off := b.String(), 0
	for i, name := range rawNames {
		pets[i].Name = names[off : off+len(name)]
		off += len(name)
	}
	return pets, nil
}

// decodePet decodes one Pet object; its required fields must be present.
func decodePet(data []byte) (*Pet, error) {
	d := decoder{data: data}
	switch d.ws() {
	case '{':
	case 'n':
		if err := d.literal("null"); err != nil {
			return nil, err
		}
		if err := d.end(); err != nil {
			return nil, err
		}
		return nil, errors.New("null instead of a pet")
	default:
		return nil, d.errorf("want a pet object")
	}
	var w wirePetFields
	if err := d.object(&w, 1); err != nil {
		return nil, err
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	if err := w.check(); err != nil {
		return nil, err
	}
	n := len(w.name)
	if !w.namePlain {
		n = unquotedLen(w.name)
	}
	p, buf := newPet(n)
	p.ID, p.CategoryID = w.id, w.categoryID
	if n > 0 {
		if w.namePlain {
			copy(buf, w.name)
		} else if out := unquote(buf[:0], w.name); len(out) != n || &out[0] != &buf[0] {
			return nil, errors.New("petstore: internal error: name length")
		}
		// The string shares the allocation of p, as strings.Builder shares
		// its buffer: sound, since nothing writes buf after this line.
		p.Name = unsafe.String(&buf[0], n)
	}
	if w.hasStatus {
		p.Status = petStatus(w.status, w.statusPlain)
	}
	return p, nil
}

// newPet allocates a Pet and n bytes for its name, together when the name
// is short: one allocation instead of two, of the same size class or one
// class up.
func newPet(n int) (*Pet, []byte) {
	switch {
	case n == 0:
		return new(Pet), nil
	case n <= 16:
		s := new(struct {
			pet  Pet
			name [16]byte
		})
		return &s.pet, s.name[:n]
	case n <= 32:
		s := new(struct {
			pet  Pet
			name [32]byte
		})
		return &s.pet, s.name[:n]
	case n <= 48:
		s := new(struct {
			pet  Pet
			name [48]byte
		})
		return &s.pet, s.name[:n]
	}
	return new(Pet), make([]byte, n)
}

// errorBody is what decodeErrorBody read from an Error body.
type errorBody struct {
	code, message       string
	hasCode, hasMessage bool
}

// decodeErrorBody decodes an Error body {code, message, status}, as
// encoding/json would into a struct with *string code and message fields:
// other members are ignored, and a top-level null is an empty result.
func decodeErrorBody(data []byte) (errorBody, error) {
	e, err := readErrorBody(data)
	if err != nil {
		return errorBody{}, err
	}
	return e, nil
}

func readErrorBody(data []byte) (errorBody, error) {
	var e errorBody
	d := decoder{data: data}
	switch d.ws() {
	case 'n':
		if err := d.literal("null"); err != nil {
			return e, err
		}
		return e, d.end()
	case '{':
	default:
		return e, d.errorf("want an object")
	}
	d.pos++
	if d.ws() == '}' {
		d.pos++
		return e, d.end()
	}
	var code, message []byte
	var codePlain, messagePlain bool
	for {
		if d.ws() != '"' {
			return e, d.syntaxError()
		}
		key, plain, err := d.str()
		if err != nil {
			return e, err
		}
		if d.ws() != ':' {
			return e, d.syntaxError()
		}
		d.pos++
		switch matchField(key, plain) {
		case fieldCode:
			code, codePlain, e.hasCode, err = d.stringValue()
		case fieldMessage:
			message, messagePlain, e.hasMessage, err = d.stringValue()
		default:
			err = d.skip(2)
		}
		if err != nil {
			return e, err
		}
		c := d.ws()
		d.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			d.pos--
			return e, d.syntaxError()
		}
	}
	if err := d.end(); err != nil {
		return e, err
	}
	if e.hasCode {
		e.code = unquoteString(code, codePlain)
	}
	if e.hasMessage {
		e.message = unquoteString(message, messagePlain)
	}
	return e, nil
}

// unquoteString returns the string the raw contents of a JSON string hold.
func unquoteString(raw []byte, plain bool) string {
	if plain {
		return string(raw)
	}
	return string(unquote(make([]byte, 0, unquotedLen(raw)), raw))
}
