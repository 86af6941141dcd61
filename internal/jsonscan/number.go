package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// Int64 reads a number that must be an int64, as encoding/json requires
// for an int64 field: no fraction, no exponent, in range.
func (d *Decoder) Int64() (int64, error) {
	if d.ws() == 'n' {
		return 0, d.syntaxError()
	}
	v, _, err := d.Int64OrNull()
	return v, err
}

// Int64OrNull reads an int64 as Int64 does, or a null (ok is false), as
// encoding/json decodes into a *int64.
//
// It first looks for what most numbers are: no whitespace, a sign or not,
// then one to seven digits, the first not 0, and the byte after them, in a
// window of nine bytes, the digits read at once (see digits8).
func (d *Decoder) Int64OrNull() (v int64, ok bool, err error) {
	if i := d.pos; i+9 <= len(d.data) {
		b := d.data[i : i+9 : i+9] // one bounds check for what follows
		w := binary.LittleEndian.Uint64(b[:8])
		neg := byte(w) == '-'
		if neg {
			w = binary.LittleEndian.Uint64(b[1:9])
			i++
		}
		if byte(w)-'1' <= 8 {
			u, n := digits8(w)
			if c := byte(w >> (8 * n & 63)); n < 8 && c != '.' && c != 'e' && c != 'E' {
				d.pos = i + n
				if neg {
					return -int64(u), true, nil
				}
				return int64(u), true, nil
			}
		}
	}
	if d.ws() == 'n' {
		return 0, false, d.literal("null")
	}
	v, err = d.int64()
	return v, err == nil, err
}

// int64 reads any int64 at d.pos.
func (d *Decoder) int64() (int64, error) {
	data := d.data
	i := d.pos
	neg := false
	if i < len(data) && data[i] == '-' {
		neg = true
		i++
	}
	if i >= len(data) || data[i]-'0' > 9 {
		d.pos = i
		return 0, d.syntaxError()
	}
	var u uint64
	start := i
	switch {
	case data[i] == '0':
		i++
	case i+8 <= len(data):
		var n int
		u, n = digits8(binary.LittleEndian.Uint64(data[i:]))
		if i += n; n < 8 {
			break
		}
		fallthrough
	default:
		for i < len(data) && data[i]-'0' <= 9 {
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

// digits8 returns the value of the decimal digits that w (eight bytes of
// input, little-endian) starts with, and how many there are, up to 8; its
// first byte must be a digit. A few multiplications instead of a loop.
func digits8(w uint64) (uint64, int) {
	const (
		ones = 0x0101010101010101
		high = 0xF0F0F0F0F0F0F0F0
	)
	// A byte is a digit when its high nibble is 3 and stays 3 with 6 added.
	// A carry out of a byte (>= 0xFA, no digit) only reaches bytes after
	// the first that is no digit, which do not count.
	t := (w&high | (w+6*ones)&high>>4) ^ (0x33 * ones)
	n := bits.TrailingZeros64(t) / 8 // 8 when all are digits
	// The n digits to the top, zeros before them: as many leading zeros.
	v := (w << ((64 - 8*n) & 63)) & (0x0F * ones) // n is 1 to 8
	v = v * (10<<8 + 1) >> 8 & 0x00FF00FF00FF00FF
	v = v * (100<<16 + 1) >> 16 & 0x0000FFFF0000FFFF
	return v * (10000<<32 + 1) >> 32, n
}

// skipNumber reads any JSON number at d.pos.
func (d *Decoder) skipNumber() error {
	data := d.data
	i := d.pos
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case !isDigit(data, i):
		d.pos = i
		return d.syntaxError()
	default:
		i = digits(data, i)
	}
	if i < len(data) && data[i] == '.' {
		i++
		if !isDigit(data, i) {
			d.pos = i
			return d.syntaxError()
		}
		i = digits(data, i)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !isDigit(data, i) {
			d.pos = i
			return d.syntaxError()
		}
		i = digits(data, i)
	}
	d.pos = i
	return nil
}

// isDigit reports whether data[i] is a decimal digit.
func isDigit(data []byte, i int) bool {
	return i < len(data) && data[i] >= '0' && data[i] <= '9'
}

// digits returns the index of the first byte at or after i that is not a
// decimal digit.
func digits(data []byte, i int) int {
	for isDigit(data, i) {
		i++
	}
	return i
}
