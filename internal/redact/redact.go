// Package redact hides a secret, the API key, in text a server chose: an
// error body, a header value, a transport error's text. It exists because a
// server may echo the key in a form other than the one it was sent in, and
// an exact match misses those: JSON-escaped ("\/" for "/", "\u002B" or
// "\u002b" for "+", any character as \uXXXX), percent-encoded as a
// form-encoded error or a link writes it ("%2F" for "/", "%2B" or "%2b" for
// "+", "%3D" for "=", any character as %XX), as HTML character references
// as an HTML page (html/template) writes them ("&#43;" for "+", "&#x2F;",
// "&#X2f;" or "&sol;" for "/", "&equals;" for "=", any character as &#DD;
// or &#xHH;), all these mixed, in another letter case (a media type,
// lower-cased by mime.ParseMediaType), or cut off at the end of a sample of
// a longer body. It has one job: find every such form of one key and
// replace it with "[REDACTED]", and nothing else: the marker is never
// redacted again, and a key shorter than [MinFolded] characters (a fake's
// "1" or "test") is found only as given, byte for byte, and only as a whole
// token, so that it does not eat digits and words. A token may follow "="
// (in a b64token "=" is only padding at its end): "access_token=KEY" is
// redacted. The trade-off: with the key "1", "limit=1" is redacted too,
// "limit=[REDACTED]"; hiding a key comes before showing a value.
//
// It runs on error paths and on the request id of a logged attempt, on texts
// up to 64 KiB: the scan is linear (Knuth-Morris-Pratt over the text read as
// characters), and a text that does not hold the key is returned as it is,
// without allocating.
package redact

import (
	"fmt"
	"io"
)

// Writer returns a writer that writes to w what it is given, with every form
// of the key replaced. Each Write is redacted on its own: give it whole
// lines or records (a log.Logger or slog handler writes one per Write, a
// JSON encoder one per Encode), so that a key is never split between two.
func (r *Redactor) Writer(w io.Writer) io.Writer { return &writer{w: w, r: r} }

type writer struct {
	w io.Writer
	r *Redactor
}

// Write writes p, redacted, and reports all of p written.
func (w *writer) Write(p []byte) (int, error) {
	if _, err := w.w.Write(w.r.Bytes(p, false)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// marker replaces each form of the key.
const marker = "[REDACTED]"

// Redactor finds one key in texts. Make it with [New], once per key; it is
// safe for concurrent use. Printing it, with any fmt verb, never shows the
// key.
type Redactor struct {
	key   []byte // lower-cased (ASCII letters only), unless exact
	next  []int  // next[i]: the length of the longest proper prefix of key[:i+1] that ends it
	exact bool   // a short key: found only as given, as a whole token
}

// MinFolded is the length from which a key is found in every form: a
// shorter one (a fake's "1" or "test") is found only byte for byte as
// given and as a whole token (see standsAlone), so that it does not eat
// digits and words.
const MinFolded = 8

// New returns a Redactor for key. An empty key is found nowhere.
func New(key string) *Redactor {
	r := &Redactor{key: []byte(key), next: make([]int, len(key)), exact: len(key) < MinFolded}
	for i := range r.key {
		if !r.exact {
			r.key[i] = lower(r.key[i])
		}
	}
	for i, k := 1, 0; i < len(r.key); i++ {
		for k > 0 && r.key[i] != r.key[k] {
			k = r.next[k-1]
		}
		if r.key[i] == r.key[k] {
			k++
		}
		r.next[i] = k
	}
	return r
}

// Format prints the Redactor without its key, whatever the verb.
func (r Redactor) Format(f fmt.State, _ rune) {
	io.WriteString(f, "redact.Redactor{"+marker+"}")
}

// String returns s with every form of the key replaced by "[REDACTED]", or
// s itself when it holds none.
func (r *Redactor) String(s string) string {
	if r == nil || len(r.key) == 0 || len(s) < len(r.key) {
		return s // every form of the key is at least as long as the key
	}
	if !r.exact {
		s = redact(r, s, true, false)
	}
	return redact(r, s, false, false)
}

// Bytes returns b with every form of the key replaced by "[REDACTED]", and,
// when cut says b is the start of a longer text, also a start of a form of
// the key that b ends with (not for a key shorter than [MinFolded], found
// only whole and as given). It returns b itself when there is nothing to
// replace, and otherwise a new slice: it never changes b.
func (r *Redactor) Bytes(b []byte, cut bool) []byte {
	if r == nil || len(r.key) == 0 {
		return b
	}
	if r.exact {
		return redact(r, b, false, false)
	}
	b = redact(r, b, true, cut)
	return redact(r, b, false, cut)
}

// redact is one pass over s. With escapes, it reads JSON escapes (\/,
// \uXXXX, ...), percent escapes (%XX) and HTML character references
// (&#47;, &#x2F;, &sol;) as the character they stand for; without, every
// byte as itself. String and Bytes make both passes: a text that is not
// JSON may hold the key literally right after a backslash, where the first
// pass reads an escape (key "u0041b" in `C:\u0041b`), and a key may start
// with what follows a percent sign (key "2Fab" in "%2Fab") or an ampersand
// (key "43ab" in "&#43ab"). No key holds a backslash, a percent sign or an
// ampersand (NewClient takes b64token keys), so reading escapes never hides
// a match of the key as it is. Either pass reads the marker as one
// character that no key holds, so that it is never redacted again.
func redact[T string | []byte](r *Redactor, s T, escapes, cut bool) T {
	n := len(r.key)
	// starts[t%n] is where the t-th character read starts: a match of n
	// characters ending at character t starts at starts[(t-n+1)%n].
	var small [64]int
	starts := small[:]
	if n > len(small) {
		starts = make([]int, n)
	}
	var out []byte // nil until a first match
	done := 0      // s[:done] is in out already
	replace := func(from, to int) {
		if out == nil {
			out = make([]byte, 0, len(s)+len(marker))
		}
		out = append(out, s[done:from]...)
		out = append(out, marker...)
		done = to
	}
	q, t := 0, 0 // q: characters of the key matched so far; t: characters read
	for i := 0; i < len(s); {
		c, size := int(s[i]), 1
		switch {
		case s[i] == marker[0] && isMarker(s[i:]):
			c, size = -1, len(marker)
		case !r.exact:
			c = int(lower(s[i]))
			if !escapes || (s[i] != '\\' && s[i] != '%' && s[i] != '&') {
				break
			}
			switch v, w := unescape(s[i:], cut); {
			case w > 0:
				c, size = v, w
			case w < 0 && cut:
				// An escape cut short: it may be the key's next character.
				if q == 0 {
					replace(i, len(s))
				} else {
					replace(starts[(t-q)%n], len(s))
				}
				return finish(s, out, done)
			}
		}
		starts[t%n] = i
		t++
		for q > 0 && int(r.key[q]) != c {
			q = r.next[q-1]
		}
		if int(r.key[q]) == c {
			q++
		}
		i += size
		if q == n {
			if from := starts[(t-n)%n]; !r.exact || standsAlone(s, from, i) {
				replace(from, i)
				q = 0
			} else {
				q = r.next[n-1]
			}
		}
	}
	if cut && q > 0 {
		replace(starts[(t-q)%n], len(s))
	}
	return finish(s, out, done)
}

// standsAlone reports whether s[from:to] is a whole token: the byte before
// it is none a bearer token may hold before another character (RFC 6750's
// b64token: letters, digits and -._~+/, then "=" padding only at its end),
// and the byte after it is none a bearer token may hold at all (the
// padding included: "KEY=" is another token). So a "=" on its left starts
// a token: `…=KEY` cannot be one token that holds the key, and
// "access_token=KEY" or "api_key=KEY&" shows it. A short key is found only
// so, as a server echoes a key ("Bearer 1", `"key":"test"`, "key=test"),
// not inside a longer run ("127.0.0.1", "21", "tests", "test=").
func standsAlone[T string | []byte](s T, from, to int) bool {
	return (from == 0 || s[from-1] == '=' || !tokenByte(s[from-1])) && (to == len(s) || !tokenByte(s[to]))
}

// tokenByte reports whether c may stand in a b64token.
func tokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '='
}

// isMarker reports whether s starts with the marker.
func isMarker[T string | []byte](s T) bool {
	return len(s) >= len(marker) && string(s[:len(marker)]) == marker
}

// finish returns s when nothing was replaced, else out and the rest of s.
func finish[T string | []byte](s T, out []byte, done int) T {
	if out == nil {
		return s
	}
	return T(append(out, s[done:]...))
}

// unescape reads the escape at the start of s, which starts with a
// backslash, a percent sign or an ampersand. A backslash starts one as JSON
// has them: \/ and \uXXXX (hex digits in either case), and the other
// two-character escapes (\\, \", \b, \f, \n, \r, \t), so that the
// character after an escaped backslash is read as itself. A percent sign
// starts a percent escape, %XX (either case). An ampersand starts an HTML
// character reference (see htmlRef). It returns the character,
// lower-cased, or -1 for one no key holds (not ASCII), and the escape's
// width; a width of 0 when s does not start with an escape (the backslash,
// percent sign or ampersand is then read as itself), and -1 when s ends
// inside one, which cut says may go on.
func unescape[T string | []byte](s T, cut bool) (c, width int) {
	switch s[0] {
	case '%':
		return hexChar(s, 1, 3)
	case '&':
		return htmlRef(s, cut)
	}
	if len(s) == 1 {
		return 0, -1
	}
	switch s[1] {
	case '/', '\\', '"':
		return int(s[1]), 2
	case 'b', 'f', 'n', 'r', 't':
		return -1, 2 // a control character
	case 'u':
		return hexChar(s, 2, 6)
	}
	return 0, 0
}

// htmlNames are the HTML named character references whose character a key
// may hold (a b64token holds no other character that has a name),
// lower-cased, with their semicolon: HTML requires it for these.
var htmlNames = [...]struct {
	name string
	c    byte
}{{"sol;", '/'}, {"plus;", '+'}, {"equals;", '='}, {"period;", '.'}, {"lowbar;", '_'}, {"underbar;", '_'}}

// htmlRef reads the HTML character reference at the start of s, which
// starts with an ampersand, as unescape says: a numeric one (&#47;,
// &#x2F;, &#X2f;, any number of leading zeros, the semicolon optional as
// HTML reads it), or one of htmlNames in any letter case. Digits that run
// to the end of s make a whole reference, unless cut says they may go on.
func htmlRef[T string | []byte](s T, cut bool) (c, width int) {
	if len(s) > 1 && s[1] == '#' {
		return numericRef(s, cut)
	}
	for _, e := range htmlNames {
		m := 0
		for m < len(e.name) && 1+m < len(s) && lower(s[1+m]) == e.name[m] {
			m++
		}
		switch {
		case m == len(e.name):
			return int(e.c), 1 + m
		case 1+m == len(s):
			return 0, -1 // s ends inside it, or right after the ampersand
		}
	}
	return 0, 0
}

// numericRef reads the reference &#DDD; or &#xHH; at the start of s.
func numericRef[T string | []byte](s T, cut bool) (c, width int) {
	i, base := 2, 10
	if i < len(s) && (s[i] == 'x' || s[i] == 'X') {
		i, base = 3, 16
	}
	v, first := 0, i
	for ; i < len(s); i++ {
		d := hex(s[i])
		if d < 0 || d >= base {
			break
		}
		v = min(v*base+d, 0x80) // from 0x80 on, no key's character
	}
	switch {
	case i == len(s) && (cut || i == first):
		return 0, -1 // the digits may go on, or none came yet
	case i == first:
		return 0, 0
	case i < len(s) && s[i] == ';':
		i++
	}
	if v >= 0x80 {
		return -1, i
	}
	return int(lower(byte(v))), i
}

// hexChar reads the character that the hex digits s[from:to] stand for,
// the end of an escape of width to: lower-cased, or -1 when it is not
// ASCII; a width of 0 when a digit is not hex, -1 when s ends first.
func hexChar[T string | []byte](s T, from, to int) (c, width int) {
	v := 0
	for i := from; i < to; i++ {
		if i == len(s) {
			return 0, -1
		}
		d := hex(s[i])
		if d < 0 {
			return 0, 0
		}
		v = v<<4 | d
	}
	if v >= 0x80 {
		return -1, to
	}
	return int(lower(byte(v))), to
}

// hex returns the value of a hex digit, or -1.
func hex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// lower lower-cases an ASCII letter.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
