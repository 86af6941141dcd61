package redact

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// key holds a "/" (which JSON may escape as "\/"), a "+" (which .NET's
// encoder escapes as "\u002B") and letters of both cases.
const key = "Sk-Test/9f+Ab"

// esc returns s with every character escaped as \uXXXX, in upper- or
// lower-case hex.
func esc(s string, upper bool) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if upper {
			fmt.Fprintf(&b, `\u%04X`, c)
		} else {
			fmt.Fprintf(&b, `\u%04x`, c)
		}
	}
	return b.String()
}

// pct returns s with every character percent-encoded, in upper- or
// lower-case hex.
func pct(s string, upper bool) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if upper {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key, in, want string
	}{
		{"empty input", key, "", ""},
		{"absent", key, "nothing to see here", "nothing to see here"},
		{"exact", key, "bad key " + key + ".", "bad key [REDACTED]."},
		{"whole", key, key, "[REDACTED]"},
		{"at both ends", key, key + " and " + key, "[REDACTED] and [REDACTED]"},
		{"several, adjacent", key, key + key + key, "[REDACTED][REDACTED][REDACTED]"},
		{"lower case", key, "x" + strings.ToLower(key) + "x", "x[REDACTED]x"},
		{"upper case", key, strings.ToUpper(key), "[REDACTED]"},
		{"mixed case", key, "sK-tEST/9F+aB", "[REDACTED]"},
		{`slash as \/`, key, `"Sk-Test\/9f+Ab"`, `"[REDACTED]"`},
		{`plus as \u002B`, key, `Sk-Test/9f\u002BAb`, `[REDACTED]`},
		{`plus as \u002b`, key, `Sk-Test/9f\u002bAb`, `[REDACTED]`},
		{"every character escaped, lower-case hex", key, "<" + esc(key, false) + ">", "<[REDACTED]>"},
		{"every character escaped, upper-case hex", key, "<" + esc(key, true) + ">", "<[REDACTED]>"},
		{"escapes, literals and case mixed", key, `s\u006B-T\u0045st\/9F\u002bab`, "[REDACTED]"},
		{"escaped letter in the other case", key, `\u0073k-test/9f+ab`, "[REDACTED]"},
		{"escaped backslash before an escape", key, `\\` + esc(key, false), `\\[REDACTED]`},
		{"escaped backslash, then the key as text that looks escaped", "u0041/", `\\u0041\/`, `\\[REDACTED]`},
		{"near miss: an escape read in part", "0/", `\u0000\/`, `\u0000\/`},
		{"escaped backslash before the key", key, `\\` + key, `\\[REDACTED]`},
		{"near miss: last character missing", key, key[:len(key)-1] + " " + key[:len(key)-1], key[:len(key)-1] + " " + key[:len(key)-1]},
		{"near miss: a bad escape", key, `Sk-Test/9f\u002gAb`, `Sk-Test/9f\u002gAb`},
		{"near miss: a non-ASCII escape", key, `Sk-Test/9f\u012BAb`, `Sk-Test/9f\u012BAb`},
		{"near miss: escaped quote", key, `Sk-Test/9f\"Ab`, `Sk-Test/9f\"Ab`},
		{"near miss, then the key", key, "Sk-Test/9" + key, "Sk-Test/9[REDACTED]"},
		{"overlap: aab in aaab", "aab", "aaab", "a[REDACTED]"},
		{"overlap: abab in abababab", "abab", "abababab", "[REDACTED][REDACTED]"},
		{"overlap: ababa in abababa", "ababa", "abababa", "[REDACTED]ba"},
		{"overlap: escaped, aab in a\\u0061ab", "aab", `a\u0061ab`, "a[REDACTED]"},
		{"a key that reads as an escape", "u0041bc", `\u0041bc`, `\[REDACTED]`},
		{"a key that starts with a slash", "/abc", `x\/abc`, `x[REDACTED]`},
		{"non-ASCII around", key, "é" + key + "ü", "é[REDACTED]ü"},
		{"slash as %2F, in a query", key, "?k=Sk-Test%2F9f+Ab&x=1", "?k=[REDACTED]&x=1"},
		{"plus as %2B", key, "Sk-Test/9f%2BAb", "[REDACTED]"},
		{"slash as %2f, plus as %2b", key, "Sk-Test%2f9f%2bAb", "[REDACTED]"},
		{"form-encoded: both, upper-case hex", key, "key=Sk-Test%2F9f%2BAb", "key=[REDACTED]"},
		{"every character percent-encoded, upper-case hex", key, "<" + pct(key, true) + ">", "<[REDACTED]>"},
		{"every character percent-encoded, lower-case hex", key, "<" + pct(key, false) + ">", "<[REDACTED]>"},
		{"percent-encoded letter in the other case", key, "%73k-test%2F9f+ab", "[REDACTED]"},
		{"padding as %3D", "Ab+c/d==", "key=Ab%2Bc%2Fd%3D%3d;", "key=[REDACTED];"},
		{`percent and JSON escapes mixed: \/ and %2B`, key, `"Sk-Test\/9f%2BAb"`, `"[REDACTED]"`},
		{`percent and JSON escapes mixed: %2F and \u002b`, key, `Sk-Test%2F9f\u002bAb`, "[REDACTED]"},
		{"percent, JSON escapes, literals and case mixed", key, `s\u006B-T%45st%2f9F\u002bab`, "[REDACTED]"},
		{"near miss: a bad percent escape", key, "Sk-Test%2G9f+Ab", "Sk-Test%2G9f+Ab"},
		{"near miss: a percent escape read in part", key, "Sk-Test%2F9f%2", "Sk-Test%2F9f%2"},
		{"near miss: a non-ASCII percent escape", key, "Sk-Test%AF9f+Ab", "Sk-Test%AF9f+Ab"},
		{"near miss: an encoded percent is not decoded twice", key, "Sk-Test%252F9f+Ab", "Sk-Test%252F9f+Ab"},
		{"near miss: %% before an escape", key, "Sk-Test%%2F9f+Ab", "Sk-Test%%2F9f+Ab"},
		{"a percent sign before the key", key, "%" + key, "%[REDACTED]"},
		{"a key that reads as a percent escape", "2Fab", "%2Fab", "%[REDACTED]"},
		{"overlap: percent-encoded, aab in a%61ab", "aab", "a%61ab", "a[REDACTED]"},
		{"long key", strings.Repeat("k", 100) + "z", strings.Repeat("k", 150) + "z", strings.Repeat("k", 50) + "[REDACTED]"},
		{"empty key", "", "anything", "anything"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, New(tc.key).String(tc.in)); diff != "" {
				t.Errorf("String(%q) with key %q (-want +got):\n%s", tc.in, tc.key, diff)
			}
		})
	}
}

func TestBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		cut      bool
		want     string
	}{
		{"empty", "", true, ""},
		{"absent", `{"message":"no"}`, true, `{"message":"no"}`},
		{"whole key, not cut", `{"k":"` + key + `"}`, false, `{"k":"[REDACTED]"}`},
		{"escaped key, not cut", `{"k":"Sk-Test\/9f\u002BAb"}`, false, `{"k":"[REDACTED]"}`},
		{"start of the key, not cut: kept", `{"k":"Sk-Te`, false, `{"k":"Sk-Te`},
		{"start of the key at a cut end", `{"k":"Sk-Te`, true, `{"k":"[REDACTED]`},
		{"one character at a cut end", `{"k":"S`, true, `{"k":"[REDACTED]`},
		{"start of the key in another case at a cut end", `{"k":"sK-tE`, true, `{"k":"[REDACTED]`},
		{"escaped start at a cut end", `{"k":"Sk-Test\/9f\u002B`, true, `{"k":"[REDACTED]`},
		{"every character escaped, cut", `{"k":"` + esc(key[:5], true), true, `{"k":"[REDACTED]`},
		{`cut inside an escape: \u00`, `{"k":"Sk-Test\/9f\u00`, true, `{"k":"[REDACTED]`},
		{`cut inside an escape: \`, `{"k":"Sk-Test\`, true, `{"k":"[REDACTED]`},
		{`cut inside the first escape`, `{"k":"\u00`, true, `{"k":"[REDACTED]`},
		{"all but the last character at a cut end", `x` + key[:len(key)-1], true, `x[REDACTED]`},
		{"whole key and a start at a cut end", key + " " + key[:3], true, "[REDACTED] [REDACTED]"},
		{"cut end that is no start of the key", `{"k":"Tk-`, true, `{"k":"Tk-`},
		{"the longest start wins", `SSk-Test/9`, true, `S[REDACTED]`},
		{"percent-encoded start at a cut end", `?k=Sk-Test%2F9f%2B`, true, `?k=[REDACTED]`},
		{"cut after %", `?k=Sk-Test%`, true, `?k=[REDACTED]`},
		{"cut inside %2F", `?k=Sk-Test%2`, true, `?k=[REDACTED]`},
		{"cut inside the first percent escape", `?k=%5`, true, `?k=[REDACTED]`},
		{"every character percent-encoded, cut", `?k=` + pct(key[:4], false), true, `?k=[REDACTED]`},
		{"percent and JSON escapes mixed, cut", `{"k":"Sk-Test\/9f%2`, true, `{"k":"[REDACTED]`},
		{"cut inside %2F, not cut: kept", `?k=Sk-Test%2`, false, `?k=Sk-Test%2`},
		{"cut end after a bad percent escape: kept", `?k=Sk-Test%2G`, true, `?k=Sk-Test%2G`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := []byte(tc.in)
			got := New(key).Bytes(in, tc.cut)
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("Bytes(%q, %v) (-want +got):\n%s", tc.in, tc.cut, diff)
			}
			if string(in) != tc.in {
				t.Errorf("Bytes changed its input to %q", in)
			}
		})
	}
}

// TestNoKeyNoAllocation: a text without the key comes back as it is,
// without allocating, however long.
func TestNoKeyNoAllocation(t *testing.T) {
	// Not parallel: testing.AllocsPerRun counts every goroutine's allocations.
	r := New(key)
	s := strings.Repeat(`{"message":"Sk-Test/9 is \u0053k, not the key, nor Sk%2DTest%2f9 (100%)"} `, 850) // ~64 KiB
	b := []byte(s)
	if got := r.String(s); got != s {
		t.Fatalf("String changed a text without the key")
	}
	if got := r.Bytes(b, true); !bytes.Equal(got, b) || &got[0] != &b[0] {
		t.Fatalf("Bytes did not return its input for a text without the key")
	}
	if n := testing.AllocsPerRun(10, func() { r.String(s) }); n != 0 {
		t.Errorf("String: %v allocations; want 0", n)
	}
	if n := testing.AllocsPerRun(10, func() { r.Bytes(b, true) }); n != 0 {
		t.Errorf("Bytes: %v allocations; want 0", n)
	}
}

// TestNilAndEmpty: a nil Redactor and one for an empty key change nothing.
func TestNilAndEmpty(t *testing.T) {
	t.Parallel()
	for _, r := range []*Redactor{nil, New("")} {
		if got := r.String("abc"); got != "abc" {
			t.Errorf("String = %q; want %q", got, "abc")
		}
		if got := r.Bytes([]byte("abc"), true); string(got) != "abc" {
			t.Errorf("Bytes = %q; want %q", got, "abc")
		}
	}
}

// TestPrintingARedactorShowsNoKey: fmt, with any verb.
func TestPrintingARedactorShowsNoKey(t *testing.T) {
	t.Parallel()
	r := New(key)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		for _, v := range []any{r, *r} {
			if s := fmt.Sprintf(verb, v); strings.Contains(strings.ToLower(s), strings.ToLower(key)) || strings.Contains(s, fmt.Sprintf("%x", key[:4])) {
				t.Errorf("Sprintf(%s, %T) = %s: shows the key", verb, v, s)
			}
		}
	}
}

// jsonToken is one character of a JSON string, percent escapes decoded, as
// the reference reads it: a JSON or percent escape, either cut short at the
// end of the text, or any other character (a byte that is not UTF-8 is one
// too).
var jsonToken = regexp.MustCompile(`\\u[0-9a-fA-F]{4}|\\["\\/bfnrt]|%[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{0,3}$|\\$|%[0-9a-fA-F]?$|(?s:.)`)

// holds reports whether s holds key, in any letter case, read either as
// the characters of a JSON string with percent escapes decoded too, or byte
// by byte; with atEnd, also whether s ends with a start of the key, or
// inside an escape, in the first reading. It is the slow, plain reference
// for FuzzRedact.
func holds(s, key string, atEnd bool) bool {
	key, low := strings.ToLower(key), strings.ToLower(s)
	if strings.Contains(low, key) {
		return true
	}
	var decoded []rune // a rune no key holds for a non-ASCII character
	for _, loc := range jsonToken.FindAllStringIndex(s, -1) {
		tok := s[loc[0]:loc[1]]
		r := utf8.RuneError
		switch {
		case len(tok) == 6:
			n, _ := strconv.ParseUint(tok[2:], 16, 16)
			r = rune(n)
		case len(tok) == 3 && tok[0] == '%':
			n, _ := strconv.ParseUint(tok[1:], 16, 8)
			r = rune(n)
		case tok == `\/` || tok == `\\` || tok == `\"`:
			r = rune(tok[1])
		case tok[0] == '\\' && len(tok) == 2 && tok[1] != 'u':
			r = -2 // \b, \f, \n, \r, \t
		case (tok[0] == '\\' || tok[0] == '%') && loc[1] == len(s) && (len(tok) == 1 || tok[1] == 'u' || tok[0] == '%'):
			if atEnd {
				return true // an escape cut short
			}
			for _, c := range []byte(tok) {
				decoded = append(decoded, rune(fold(c)))
			}
			continue
		case len(tok) == 1:
			r = rune(tok[0])
		}
		if r < 0x80 && r >= 0 {
			r = rune(fold(byte(r)))
		}
		decoded = append(decoded, r)
	}
	k := []rune(key)
	for i := range decoded {
		n := min(len(k), len(decoded)-i)
		if slices.Equal(decoded[i:i+n], k[:n]) && (n == len(k) || atEnd) {
			return true
		}
	}
	for n := 1; atEnd && n < len(key); n++ {
		if strings.HasSuffix(low, key[:n]) {
			return true
		}
	}
	return false
}

// FuzzRedact: whatever the text, what String and Bytes return holds no form
// of the key (nor, for a cut text, a start of one at the end), and a text
// that holds none comes back unchanged.
func FuzzRedact(f *testing.F) {
	f.Add(key, "bad key "+key, false)
	f.Add(key, `Sk-Test\/9f\u002BAb`, false)
	f.Add(key, esc(key, true)[:20], true)
	f.Add("abab", "abababab", false)
	f.Add("u0041bc", `\u0041bc`, false)
	f.Add(key, "k=Sk-Test%2F9f%2bAb", false)
	f.Add(key, `Sk-Test\/9f%2`, true)
	f.Add("2Fab", "%2Fab%", true)
	f.Fuzz(func(t *testing.T, k, s string, cut bool) {
		// A b64token key: the only keys NewClient accepts.
		k = strings.Map(func(r rune) rune {
			if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~+/", r)) {
				return r
			}
			return -1
		}, k)
		if k == "" || len(k) > 40 || len(s) > 2000 {
			return
		}
		r := New(k)
		gotS, gotB := r.String(s), string(r.Bytes([]byte(s), cut))
		// The marker is no form of the key, even when the key is
		// "acted": read it as a byte no key holds.
		for _, c := range []struct {
			got string
			cut bool
		}{{gotS, false}, {gotB, cut}} {
			if holds(strings.ReplaceAll(c.got, marker, "\x00"), k, c.cut) {
				t.Errorf("key %q, text %q, cut %v: %q holds the key", k, s, c.cut, c.got)
			}
			if !holds(s, k, c.cut) && c.got != s {
				t.Errorf("key %q, text %q, cut %v: %q; want the text unchanged", k, s, c.cut, c.got)
			}
		}
	})
}

// fold lower-cases an ASCII letter.
func fold(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func TestWriter(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	w := New("sk/Secret+1").Writer(&out)
	for _, line := range []string{"key sk/Secret+1\n", "escaped sk\\/Secret+1 sk%2fSecret%2B1\n", "none\n"} {
		if n, err := w.Write([]byte(line)); n != len(line) || err != nil {
			t.Errorf("Write(%q) = %d, %v; want %d, nil", line, n, err, len(line))
		}
	}
	want := "key [REDACTED]\nescaped [REDACTED] [REDACTED]\nnone\n"
	if got := out.String(); got != want {
		t.Errorf("written %q; want %q", got, want)
	}
}
