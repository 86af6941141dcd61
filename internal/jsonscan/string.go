package jsonscan

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Str is a JSON string as it stands in the input, between its quotes, still
// escaped. Its methods give its value as encoding/json unescapes it.
type Str struct {
	raw   []byte
	plain bool // no backslash, valid UTF-8: raw is the value
}

// Raw returns the string's bytes as they stand in the input, escapes
// included. For a Str that is [Str.Plain], they are its value.
func (s Str) Raw() []byte { return s.raw }

// Plain reports that the string has no escape and is valid UTF-8 (so
// ASCII, or non-ASCII letters as they are), so that [Str.Raw] is its
// value.
func (s Str) Plain() bool { return s.plain }

// Str reads a string.
func (d *Decoder) Str() (Str, error) {
	if d.ws() != '"' {
		return Str{}, d.TypeError("a string")
	}
	return d.str()
}

// StrOrNull reads a string, or a null (ok is false), as encoding/json
// decodes into a *string.
func (d *Decoder) StrOrNull() (s Str, ok bool, err error) {
	switch d.ws() {
	case '"':
		s, err = d.str()
		return s, err == nil, err
	case 'n':
		return Str{}, false, d.literal("null")
	}
	return Str{}, false, d.TypeError("a string")
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

// hex4 reads the 4 hex digits of a \u escape that str checked.
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

// nextRune decodes one character of the raw string contents s (checked by
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

// AppendTo appends the string's value to dst.
func (s Str) AppendTo(dst []byte) []byte {
	raw := s.raw
	if s.plain {
		return append(dst, raw...)
	}
	for i := 0; i < len(raw); {
		if strPlain[raw[i]] {
			j := i + 1
			for j < len(raw) && strPlain[raw[j]] {
				j++
			}
			dst = append(dst, raw[i:j]...)
			i = j
			continue
		}
		r, n, copy := nextRune(raw, i)
		if copy {
			dst = append(dst, raw[i:i+n]...)
		} else {
			dst = utf8.AppendRune(dst, r)
		}
		i += n
	}
	return dst
}

// Len returns the length in bytes of the string's value.
func (s Str) Len() int {
	if s.plain {
		return len(s.raw)
	}
	size := 0
	for i := 0; i < len(s.raw); {
		r, n, copy := nextRune(s.raw, i)
		if copy {
			size += n
		} else {
			size += utf8.RuneLen(r)
		}
		i += n
	}
	return size
}

// String returns the string's value.
func (s Str) String() string {
	if s.plain {
		return string(s.raw)
	}
	var buf [64]byte
	return string(s.AppendTo(buf[:0]))
}

// EqualFold reports whether the string, a member name, names the field
// name as encoding/json matches them when it decodes into a struct: equal
// once both are folded, ASCII letters to upper case and every other rune
// to the smallest rune of its Unicode simple-fold orbit (so U+017F, long s,
// matches "s" and "S", and U+212A, the Kelvin sign, "k" and "K").
func (s Str) EqualFold(name string) bool {
	raw := s.raw
	i, j := 0, 0
	for i < len(raw) && j < len(name) {
		var a, b rune
		if c := raw[i]; c < utf8.RuneSelf && (s.plain || c != '\\') {
			a = rune(c)
			i++
		} else {
			r, n, _ := nextRune(raw, i)
			a, i = r, i+n
		}
		if c := name[j]; c < utf8.RuneSelf {
			b = rune(c)
			j++
		} else {
			r, n := utf8.DecodeRuneInString(name[j:])
			b, j = r, j+n
		}
		if a != b && foldRune(a) != foldRune(b) {
			return false
		}
	}
	return i == len(raw) && j == len(name)
}

// foldRune returns the rune that stands for r's case-folding orbit, as
// encoding/json's foldName does: an ASCII letter's upper case, and for
// other runes the smallest rune of the orbit.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		return r
	}
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}
