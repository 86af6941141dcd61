package jsonscan

import (
	"testing"
)

// TestSpanOrNull checks that SpanOrNull reads what StrOrNull reads, and
// that At gives back the same Str, after other values were read.
func TestSpanOrNull(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`""`, `"plain"`, ` "Zoë 🐶" `, `"a\"b"`, `"\u00e9t\u00e9"`, "\"\xff\"", `null`,
		`nul`, `1`, `"unterminated`, `"bad \x escape"`, `[]`,
	} {
		doc := `[1,` + in + `,"after"]`
		var want, got struct {
			Str       string
			Plain, OK bool
			Err       string
		}
		d := NewDecoder([]byte(doc))
		arr := d.Array()
		arr.Next()
		_ = d.Skip()
		arr.Next()
		s, ok, err := d.StrOrNull()
		want.Str, want.Plain, want.OK = s.String(), s.Plain(), ok
		if err != nil {
			want.Err = err.Error()
		}
		d = NewDecoder([]byte(doc))
		arr = d.Array()
		arr.Next()
		_ = d.Skip()
		arr.Next()
		sp, ok, err := d.SpanOrNull()
		if ok && arr.Next() {
			_ = d.Skip() // "after": At must still find the string
		}
		got.Str, got.Plain, got.OK = d.At(sp).String(), d.At(sp).Plain(), ok
		if err != nil {
			got.Err = err.Error()
		}
		if got != want {
			t.Errorf("%s: SpanOrNull and At read %+v; StrOrNull %+v", doc, got, want)
		}
	}
}
