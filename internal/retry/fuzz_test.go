package retry

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzRetryAfter: parseRetryAfter never panics and never returns a negative
// wait; digits (after trimming spaces) are that many seconds, capped at
// maxRetryAfterSeconds; anything else is accepted exactly when
// http.ParseTime accepts it, as the time from now to that date (0 when it
// is past). Fuzz it with
//
//	go test -run='^$' -fuzz='^FuzzRetryAfter$' -fuzztime=15s ./internal/retry
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{
		"", " ", "0", "3", " 120 ", "\t7\r\n", "-1", "+5", "1.5", "1e3", "0x10", "abc", "３", "007",
		"4294967296", "4294967297", "18446744073709551615", "18446744073709551616", "99999999999999999999999",
		"Sat, 21 Nov 2026 12:00:30 GMT", "Saturday, 21-Nov-26 12:01:00 GMT", "Sat Nov 21 12:00:10 2026",
		"Sat, 21 Nov 2026 11:00:00 GMT", "Sat, 21 Nov 2026 12:00:30", "Sat, 21 Nov 2026 12:00:30 UTC",
		"Mon, 01 Jan 0001 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Sun, 06 Nov 1994 08:49:37 GMT",
		"Sat, 30 Feb 2026 12:00:00 GMT", "Sat, 21 Nov 2026 25:00:00 GMT",
	} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := parseRetryAfter(v, now)
		if d < 0 {
			t.Fatalf("parseRetryAfter(%q) = %v: negative", v, d)
		}
		if !ok && d != 0 {
			t.Errorf("parseRetryAfter(%q) = %v, false: a wait without a value", v, d)
		}
		s := strings.TrimSpace(v)
		if s != "" && strings.Trim(s, "0123456789") == "" {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil || n > maxRetryAfterSeconds {
				n = maxRetryAfterSeconds
			}
			if want := time.Duration(n) * time.Second; !ok || d != want {
				t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, true", v, d, ok, want)
			}
			return
		}
		date, err := http.ParseTime(s)
		if err != nil {
			if ok {
				t.Errorf("parseRetryAfter(%q) = %v, true; http.ParseTime refuses it: %v", v, d, err)
			}
			return
		}
		want := max(date.Sub(now), 0)
		if !ok || d != want {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, true (http.ParseTime: %v)", v, d, ok, want, date)
		}
	})
}
