package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// Reading a string: finding its end, checking its escapes and its UTF-8
// (see Str for its value).

// strPlain[c] is true for bytes that stand for themselves inside a JSON
// string and are ASCII: no quote, backslash, control character or byte of a
// multi-byte sequence.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// strText[c] is true for bytes that stand for themselves inside a JSON
// string: no quote, backslash or control character.
var strText = func() (t [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str reads the string that starts at d.pos (at its quote). Most strings
// hold nothing but ASCII that stands for itself: it looks at eight bytes at
// a time for the first byte that does not, and returns if it is the
// closing quote.
func (d *Decoder) str() (Str, error) {
	data := d.data
	start := d.pos + 1
	i := start
	for ; i <= len(data)-8; i += 8 {
		if m := special(binary.LittleEndian.Uint64(data[i:])); m != 0 {
			i += bits.TrailingZeros64(m) / 8
			if data[i] == '"' {
				d.pos = i + 1
				return Str{raw: data[start:i], plain: true}, nil
			}
			return d.strRest(start, i)
		}
	}
	for i < len(data) && strPlain[data[i]] {
		i++
	}
	return d.strRest(start, i)
}

// strRest is str from data[i], where the string does not end, or has an
// escape, a control character or a byte >= 0x80. It checks the UTF-8 of
// the bytes >= 0x80 rune by rune while no escape was seen: it then tells
// whether the string is plain; after an escape, it only looks for the end.
func (d *Decoder) strRest(start, i int) (Str, error) {
	data := d.data
	plain := true
	for {
		switch {
		case i >= len(data):
			d.pos = i
			return Str{}, d.syntaxError()
		case data[i] == '"':
			d.pos = i + 1
			return Str{raw: data[start:i], plain: plain}, nil
		case data[i] == '\\':
			plain = false
			n, err := d.escape(i)
			if err != nil {
				return Str{}, err
			}
			i += n
		case data[i] < 0x20:
			d.pos = i
			return Str{}, d.errorf("control character in string")
		case plain: // a byte >= 0x80: any is accepted, invalid UTF-8 included
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 {
				plain = false // to become U+FFFD
			}
			i += n
		default:
			i++
		}
		i = runEnd(data, i, !plain)
	}
}

// runEnd returns the index of the first byte at or after i that strPlain
// refuses, or with text set, that strText refuses; or len(data).
func runEnd(data []byte, i int, text bool) int {
	stop := &strPlain
	if text {
		stop = &strText
	}
	for ; i <= len(data)-8; i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		m := special(w)
		if text {
			m = specialText(w)
		}
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(data) && stop[data[i]] {
		i++
	}
	return i
}

// escape checks the escape at d.data[i] (a backslash) and returns its
// length.
func (d *Decoder) escape(i int) (int, error) {
	data := d.data
	if i+1 >= len(data) {
		d.pos = i + 1
		return 0, d.syntaxError()
	}
	switch data[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, nil
	case 'u':
		for k := i + 2; k < i+6; k++ {
			if k >= len(data) || unhex(data[k]) < 0 {
				d.pos = k
				return 0, d.syntaxError()
			}
		}
		return 6, nil
	}
	d.pos = i + 1
	return 0, d.errorf("invalid escape in string")
}

// special returns a word whose lowest set bit is the high bit of the first
// byte of x (little-endian) that strPlain refuses: a quote, a backslash, a
// control character or a byte >= 0x80. Higher bits may be set spuriously.
//
// Byte by byte, with no borrow from below: q-1 has its high bit set when
// the byte is a quote (q is 0) or >= 0x80 (q >= 0x81), b-1 likewise for a
// backslash, x-0x20 when it is below 0x20 or >= 0xA0, and x when it is >=
// 0x80. A borrow only comes from a byte below that is one of these.
func special(x uint64) uint64 {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return ((q - ones) | (b - ones) | (x - ones*0x20) | x) & high
}

// specialText is special for the bytes that strText refuses: a byte >= 0x80
// is text. Byte by byte, with no borrow from below: q-1 has its high bit set
// without q's when the byte is a quote, b-1 likewise for a backslash, and
// x-0x20 without x's when it is below 0x20.
func specialText(x uint64) uint64 {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (x-ones*0x20)&^x) & high
}
