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

// each returns s with every character written as format: a JSON escape
// (`\u%04X`), a percent escape ("%%%02x") or an HTML character reference
// ("&#%d;", "&#x%X;").
func each(s, format string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, format, c)
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
		{"every character escaped, lower-case hex", key, "<" + each(key, `\u%04x`) + ">", "<[REDACTED]>"},
		{"every character escaped, upper-case hex", key, "<" + each(key, `\u%04X`) + ">", "<[REDACTED]>"},
		{"escapes, literals and case mixed", key, `s\u006B-T\u0045st\/9F\u002bab`, "[REDACTED]"},
		{"escaped letter in the other case", key, `\u0073k-test/9f+ab`, "[REDACTED]"},
		{"escaped backslash before an escape", key, `\\` + each(key, `\u%04x`), `\\[REDACTED]`},
		{"escaped backslash, then the key as text that looks escaped", "u0041/abc", `\\u0041\/abc`, `\\[REDACTED]`},
		{"near miss: an escape read in part", "0/abcdefg", `\u0000\/abcdefg`, `\u0000\/abcdefg`},
		{"escaped backslash before the key", key, `\\` + key, `\\[REDACTED]`},
		{"near miss: last character missing", key, key[:len(key)-1] + " " + key[:len(key)-1], key[:len(key)-1] + " " + key[:len(key)-1]},
		{"near miss: a bad escape", key, `Sk-Test/9f\u002gAb`, `Sk-Test/9f\u002gAb`},
		{"near miss: a non-ASCII escape", key, `Sk-Test/9f\u012BAb`, `Sk-Test/9f\u012BAb`},
		{"near miss: escaped quote", key, `Sk-Test/9f\"Ab`, `Sk-Test/9f\"Ab`},
		{"near miss, then the key", key, "Sk-Test/9" + key, "Sk-Test/9[REDACTED]"},
		{"overlap: aaaaaaab in aaaaaaaab", "aaaaaaab", "aaaaaaaab", "a[REDACTED]"},
		{"overlap: abababab in abababababababab", "abababab", "abababababababab", "[REDACTED][REDACTED]"},
		{"overlap: ababababa in abababababa", "ababababa", "abababababa", "[REDACTED]ba"},
		{"overlap, short key: aab in aaab, a token", "aab", "x aaab aab", "x aaab [REDACTED]"},
		{"overlap: escaped, aaaaaaab in a\\u0061aaaaaab", "aaaaaaab", `a\u0061aaaaaab`, "a[REDACTED]"},
		{"a key that reads as an escape", "u0041bc", `\u0041bc`, `\[REDACTED]`},
		{"a key that starts with a slash", "/abcdefg", `x\/abcdefg`, `x[REDACTED]`},
		{"non-ASCII around", key, "é" + key + "ü", "é[REDACTED]ü"},
		{"slash as %2F, in a query", key, "?k=Sk-Test%2F9f+Ab&x=1", "?k=[REDACTED]&x=1"},
		{"plus as %2B", key, "Sk-Test/9f%2BAb", "[REDACTED]"},
		{"slash as %2f, plus as %2b", key, "Sk-Test%2f9f%2bAb", "[REDACTED]"},
		{"form-encoded: both, upper-case hex", key, "key=Sk-Test%2F9f%2BAb", "key=[REDACTED]"},
		{"every character percent-encoded, upper-case hex", key, "<" + each(key, "%%%02X") + ">", "<[REDACTED]>"},
		{"every character percent-encoded, lower-case hex", key, "<" + each(key, "%%%02x") + ">", "<[REDACTED]>"},
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
		{"overlap: percent-encoded, aaaaaaab in a%61aaaaaab", "aaaaaaab", "a%61aaaaaab", "a[REDACTED]"},
		{"plus as &#43;, as html/template writes it", key, "<td>Bearer Sk-Test/9f&#43;Ab</td>", "<td>Bearer [REDACTED]</td>"},
		{"plus as &#x2B;", key, "Sk-Test/9f&#x2B;Ab", "[REDACTED]"},
		{"plus as &#x2b;", key, "Sk-Test/9f&#x2b;Ab", "[REDACTED]"},
		{"plus as &#X2B;", key, "Sk-Test/9f&#X2B;Ab", "[REDACTED]"},
		{"slash as &#x2f;, plus as &plus;", key, "Sk-Test&#x2f;9f&plus;Ab", "[REDACTED]"},
		{"slash as &sol;", key, "Sk-Test&sol;9f+Ab", "[REDACTED]"},
		{"slash as &#47;, with leading zeros", key, "Sk-Test&#0047;9f&#x00002B;Ab", "[REDACTED]"},
		{"a reference without its semicolon, as HTML reads it", key, "Sk-Test&#47;9f&#43Ab", "[REDACTED]"},
		{"padding as &equals;", "Ab+c/d==", "key=Ab&plus;c&sol;d&equals;&#61;;", "key=[REDACTED];"},
		{"dot and underscore as &period; and &lowbar;", "pk_live.123", "pk&lowbar;live&period;123", "[REDACTED]"},
		{"underscore as &UnderBar;", "pk_live.123", "pk&UnderBar;live.123", "[REDACTED]"},
		{"a named reference in another case", key, "SK-TEST&SOL;9F&PLUS;AB", "[REDACTED]"},
		{"every character as a decimal reference", key, "<" + each(key, "&#%d;") + ">", "<[REDACTED]>"},
		{"every character as a hex reference, upper case", key, "<" + each(key, "&#x%X;") + ">", "<[REDACTED]>"},
		{"every character as a hex reference, lower case", key, "<" + each(key, "&#x%x;") + ">", "<[REDACTED]>"},
		{"references, JSON and percent escapes, literals and case mixed", key, `s&#107;-T\u0045st%2f9F&plus;a&#X42;`, "[REDACTED]"},
		{"near miss: the digits go on", key, "Sk-Test/9f&#431Ab", "Sk-Test/9f&#431Ab"},
		{"near miss: hex digits go on", key, "Sk-Test/9f&#x2BAb", "Sk-Test/9f&#x2BAb"},
		{"near miss: a named reference without its semicolon", key, "Sk-Test&sol9f+Ab", "Sk-Test&sol9f+Ab"},
		{"near miss: an encoded ampersand is not decoded twice", key, "Sk-Test/9f&amp;#43;Ab", "Sk-Test/9f&amp;#43;Ab"},
		{"near miss: a non-ASCII reference", key, "Sk-Test/9f&#299;Ab", "Sk-Test/9f&#299;Ab"},
		{"near miss: no digits", key, "Sk-Test/9f&#;&#x;Ab", "Sk-Test/9f&#;&#x;Ab"},
		{"a key that reads as a reference", "43abcdefg", "&#43abcdefg", "&#[REDACTED]"},
		{"an ampersand before the key", key, "&" + key, "&[REDACTED]"},
		{"the marker is not redacted again: the key as the marker's word", "REDACTED", "x redacted %52EDACTED [REDACTED]", "x [REDACTED] [REDACTED] [REDACTED]"},
		{"short key: only as given", "test", "Test Dog, test dog, TEST, %74est", "Test Dog, [REDACTED] dog, TEST, %74est"},
		{"short key: escaped forms are not it", "a+b/c", `a%2Bb/c a\u002bb\/c a&#43;b&sol;c A+B/C a+b/c`, `a%2Bb/c a\u002bb\/c a&#43;b&sol;c A+B/C [REDACTED]`},
		{"short key: a digit, as a token only", "1", `{"id":1,"categoryId":21} http://127.0.0.1:8080/v1 Bearer 1`, `{"id":[REDACTED],"categoryId":21} http://127.0.0.1:8080/v1 Bearer [REDACTED]`},
		{"short key: a word, as a token only", "test", "tests, a test-suite, test_x, test=, xtest, test.", "tests, a test-suite, test_x, test=, xtest, test."},
		{"short key: after =, a token starts (b64token padding ends one)", "sk_7Qx", "access_token=sk_7Qx api_key=sk_7Qx&x=1 ?key=sk_7Qx&limit=2 k==sk_7Qx", "access_token=[REDACTED] api_key=[REDACTED]&x=1 ?key=[REDACTED]&limit=2 k==[REDACTED]"},
		{"short key: after =, the trade-off: a value that is the key", "1", "limit=1&status=sold id=12 x=21", "limit=[REDACTED]&status=sold id=12 x=21"},
		{"short key: =test, a token after padding", "test", "=test a=test&b=tests", "=[REDACTED] a=[REDACTED]&b=tests"},
		{"short key: the key followed by padding is another token", "sk_7Qx", "sk_7Qx= a=sk_7Qx== sk_7Qx=x", "sk_7Qx= a=sk_7Qx== sk_7Qx=x"},
		{"short key: a padded key after =", "ab=", "x=ab= ab=ab= ab==", "x=[REDACTED] ab=[REDACTED] ab=="},
		{"short key: an address and ids stay", "1", "http://127.0.0.1:8080/v1/pets/10 id 21 1.5 v1", "http://127.0.0.1:8080/v1/pets/10 id 21 1.5 v1"},
		{"short key: a word between separators", "test", `"test" (test) test,test`, `"[REDACTED]" ([REDACTED]) [REDACTED],[REDACTED]`},
		{"short key: repeated", "1", "11 1 1", "11 [REDACTED] [REDACTED]"},
		{"short key: a letter of the marker", "T", "T [REDACTED]", "[REDACTED] [REDACTED]"},
		{"short key: a word of the marker", "ACT", "ACT REDACTED [REDACTED]", "[REDACTED] REDACTED [REDACTED]"},
		{"short key: 7 characters, as given", "abcdefg", "ABCDEFG abcdefg", "ABCDEFG [REDACTED]"},
		{"8 characters: in any case", "abcdefgh", "ABCDEFGH abcdefgh", "[REDACTED] [REDACTED]"},
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
		{"every character escaped, cut", `{"k":"` + each(key[:5], `\u%04X`), true, `{"k":"[REDACTED]`},
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
		{"every character percent-encoded, cut", `?k=` + each(key[:4], "%%%02x"), true, `?k=[REDACTED]`},
		{"percent and JSON escapes mixed, cut", `{"k":"Sk-Test\/9f%2`, true, `{"k":"[REDACTED]`},
		{"cut inside %2F, not cut: kept", `?k=Sk-Test%2`, false, `?k=Sk-Test%2`},
		{"cut end after a bad percent escape: kept", `?k=Sk-Test%2G`, true, `?k=Sk-Test%2G`},
		{"reference start at a cut end", `<p>Sk-Test&sol;9f&#43;`, true, `<p>[REDACTED]`},
		{"cut after &", `<p>Sk-Test&`, true, `<p>[REDACTED]`},
		{"cut after &#", `<p>Sk-Test&#`, true, `<p>[REDACTED]`},
		{"cut inside &#47;", `<p>Sk-Test&#4`, true, `<p>[REDACTED]`},
		{"cut before the semicolon of &#47;", `<p>Sk-Test&#47`, true, `<p>[REDACTED]`},
		{"cut inside &#x2F;", `<p>Sk-Test&#x`, true, `<p>[REDACTED]`},
		{"cut inside &#X2F;", `<p>Sk-Test&#X2`, true, `<p>[REDACTED]`},
		{"cut inside &sol;", `<p>Sk-Test&so`, true, `<p>[REDACTED]`},
		{"cut before the semicolon of &sol;", `<p>Sk-Test&sol`, true, `<p>[REDACTED]`},
		{"cut inside the first reference", `<p>&#8`, true, `<p>[REDACTED]`},
		{"every character a reference, cut", `<p>` + each(key[:5], "&#x%x;"), true, `<p>[REDACTED]`},
		{"references, percent and JSON escapes mixed, cut", `Sk-Te%73t\/9f&#x2`, true, `[REDACTED]`},
		{"a reference without its semicolon at the end, not cut", `x Sk-Test/9f&#43`, false, `x Sk-Test/9f&#43`},
		{"cut inside &#47;, not cut: kept", `<p>Sk-Test&#4`, false, `<p>Sk-Test&#4`},
		{"cut end after an ampersand that starts no reference: kept", `<p>Sk-Test&amp`, true, `<p>Sk-Test&amp`},
		{"the marker at a cut end is not redacted again", `k=[REDACTED]`, true, `k=[REDACTED]`},
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

// TestMarkerNotRedactedAgain: a key found in the marker, whatever its
// case, or a text redacted twice, never gives a marker inside a marker.
func TestMarkerNotRedactedAgain(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"REDACTED", "redacted", "Redacted", "T", "t", "RED", "ACT", "EDACTED", "D"} {
		for _, in := range []string{
			"a " + k + " b", "[" + k + "]", "%52EDACTED %2552", `\u0052EDACTED`, "&#82;EDACTED", "con" + k + "ext deadline exceeded",
		} {
			r := New(k)
			once := r.String(in)
			if twice := r.String(once); twice != once {
				t.Errorf("key %q: String(%q) = %q, and again %q; want no change", k, in, once, twice)
			}
			if b := string(r.Bytes([]byte(once), true)); b != once {
				t.Errorf("key %q: Bytes(%q, true) = %q; want no change", k, once, b)
			}
			if rest := strings.ReplaceAll(once, marker, ""); strings.Contains(rest, "[REDAC") || strings.Contains(rest, "ED]") {
				t.Errorf("key %q: String(%q) = %q: a marker inside a marker", k, in, once)
			}
		}
	}
}

// TestNoKeyNoAllocation: a text without the key comes back as it is,
// without allocating, however long.
func TestNoKeyNoAllocation(t *testing.T) {
	// Not parallel: testing.AllocsPerRun counts every goroutine's allocations.
	r := New(key)
	s := strings.Repeat(`{"message":"Sk-Test/9 is \u0053k, not the key, nor Sk%2DTest%2f9 (100%) &#43;&amp;&sol [REDACTED]"} `, 800) // ~64 KiB
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

// jsonToken is one character of a JSON string, percent escapes and HTML
// character references decoded, as the reference reads it: a JSON or
// percent escape or a reference, either cut short at the end of the text,
// or any other character (a byte that is not UTF-8 is one too).
var jsonToken = regexp.MustCompile(`\\u[0-9a-fA-F]{4}|\\["\\/bfnrt]|%[0-9a-fA-F]{2}|&#[0-9]+;?|&#[xX][0-9a-fA-F]+;?|(?i:&(?:sol|plus|equals|period|lowbar|underbar);)|` +
	`\\u[0-9a-fA-F]{0,3}$|\\$|%[0-9a-fA-F]?$|&#[xX]?$|&[a-zA-Z]*$|(?s:.)`)

// htmlNamed are the named references a key's characters have.
var htmlNamed = map[string]rune{"sol": '/', "plus": '+', "equals": '=', "period": '.', "lowbar": '_', "underbar": '_'}

// holds reports whether s holds key: a key shorter than MinFolded as it
// is, a longer one in any letter case, read either as the characters of a
// JSON string with percent escapes and HTML references decoded too, or byte
// by byte; with atEnd, also whether s ends with a start of the key, or
// inside an escape, in the first reading. The marker is a character no key
// holds. It is the slow, plain reference for FuzzRedact.
func holds(s, key string, atEnd bool) bool {
	s = strings.ReplaceAll(s, marker, "\x00")
	if len(key) < MinFolded {
		return holdsToken(s, key)
	}
	key, low := strings.ToLower(key), strings.ToLower(s)
	if strings.Contains(low, key) {
		return true
	}
	var decoded []rune // a rune no key holds for a non-ASCII character
	for _, loc := range jsonToken.FindAllStringIndex(s, -1) {
		tok := s[loc[0]:loc[1]]
		last := loc[1] == len(s)
		r := utf8.RuneError
		switch {
		case len(tok) == 6 && tok[0] == '\\':
			n, _ := strconv.ParseUint(tok[2:], 16, 16)
			r = rune(n)
		case len(tok) == 3 && tok[0] == '%':
			n, _ := strconv.ParseUint(tok[1:], 16, 8)
			r = rune(n)
		case tok == `\/` || tok == `\\` || tok == `\"`:
			r = rune(tok[1])
		case tok[0] == '\\' && len(tok) == 2 && tok[1] != 'u':
			r = -2 // \b, \f, \n, \r, \t
		case strings.HasPrefix(tok, "&#") && strings.Trim(tok, "&#xX;") != "":
			if atEnd && last && !strings.HasSuffix(tok, ";") {
				return true // the digits may go on
			}
			digits, base := strings.TrimSuffix(tok[2:], ";"), 10
			if digits[0] == 'x' || digits[0] == 'X' {
				digits, base = digits[1:], 16
			}
			if digits = strings.TrimLeft(digits, "0"); len(digits) <= 3 {
				if n, _ := strconv.ParseUint("0"+digits, base, 16); n > 0 && n < 0x80 {
					r = rune(n)
				}
			}
		case len(tok) > 2 && tok[0] == '&' && strings.HasSuffix(tok, ";"):
			r = htmlNamed[strings.ToLower(tok[1:len(tok)-1])]
		case last && (tok[0] == '\\' || tok[0] == '%' || tok[0] == '&') && (len(tok) == 1 || tok[1] == 'u' || tok[0] != '\\'):
			if atEnd && cutShort(tok) {
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

// cutShort reports whether tok, an escape at the end of a text, may be the
// start of one that a longer text goes on with: any JSON or percent escape
// cut short, "&", "&#", "&#x", or "&" and the start of a name of
// htmlNamed.
func cutShort(tok string) bool {
	if tok[0] != '&' || strings.HasPrefix(tok, "&#") {
		return true
	}
	for name := range htmlNamed {
		if strings.HasPrefix(name, strings.ToLower(tok[1:])) {
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
	f.Add(key, each(key, `\u%04X`)[:20], true)
	f.Add("abab", "abababab", false)
	f.Add("u0041bc", `\u0041bc`, false)
	f.Add(key, "k=Sk-Test%2F9f%2bAb", false)
	f.Add(key, `Sk-Test\/9f%2`, true)
	f.Add("2Fab", "%2Fab%", true)
	f.Add(key, "Sk-Test&sol;9f&#43;Ab &#X2b", true)
	f.Add(key, "Sk-Test&#x2f;9f&plus;A&#98 &pe", true)
	f.Add("43abcdefg", "&#43abcdefg&#", false)
	f.Add("REDACTED", "[REDACTED] %52edacted", false)
	f.Add("ACT", "ACT [REDACTED]", true)
	f.Add("sk_7Qx", "access_token=sk_7Qx&key=sk_7Qx= x==sk_7Qx", false)
	f.Add("1", "limit=1&id=21 127.0.0.1", false)
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
		// "acted": holds reads it as a character no key holds.
		for _, c := range []struct {
			got string
			cut bool
		}{{gotS, false}, {gotB, cut}} {
			if holds(c.got, k, c.cut) {
				t.Errorf("key %q, text %q, cut %v: %q holds the key", k, s, c.cut, c.got)
			}
			if !holds(s, k, c.cut) && c.got != s {
				t.Errorf("key %q, text %q, cut %v: %q; want the text unchanged", k, s, c.cut, c.got)
			}
		}
		// What was redacted is not redacted again.
		if again := r.String(gotS); again != gotS {
			t.Errorf("key %q, text %q: String gives %q, then %q", k, s, gotS, again)
		}
		if again := string(r.Bytes([]byte(gotB), cut)); again != gotB {
			t.Errorf("key %q, text %q, cut %v: Bytes gives %q, then %q", k, s, cut, gotB, again)
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

// holdsToken reports whether s holds key as a whole token: not after a
// letter, a digit or one of -._~+/ (after "=", padding, a token starts),
// not before one of those or "=" (the reference for a short key).
func holdsToken(s, key string) bool {
	token := func(c byte) bool {
		return strings.IndexByte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~+/=", c) >= 0
	}
	for i := 0; ; i++ {
		j := strings.Index(s[i:], key)
		if j < 0 {
			return false
		}
		from, to := i+j, i+j+len(key)
		if (from == 0 || s[from-1] == '=' || !token(s[from-1])) && (to == len(s) || !token(s[to])) {
			return true
		}
		i = from
	}
}
