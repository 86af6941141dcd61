package jsonscan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestStr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want  string
		wantPlain bool
	}{
		{`""`, "", true},
		{`"plain name"`, "plain name", true},
		{`"a\"b\\c\/d\be\ff\ng\rh\ti"`, "a\"b\\c/d\be\ff\ng\rh\ti", false},
		{`"\u00e9\u20AC\ud83d\ude00"`, "é€😀", false},
		{`"\ud83d"`, "\uFFFD", false},
		{`"\ude00\ud83d"`, "\uFFFD\uFFFD", false},
		{`"\ud83d\u0041"`, "\uFFFDA", false},
		{`"\ud83d\ud83d\ude00"`, "\uFFFD😀", false},
		{"\"a\xffb\xc3\"", "a\uFFFDb\uFFFD", false},
		{"\"\xed\xa0\x80\"", "\uFFFD\uFFFD\uFFFD", false},
		{`"Zoë 🐶"`, "Zoë 🐶", true},
		{`"日本\\"`, "日本\\", false},
		{"\"Zo\xc3\"", "Zo\uFFFD", false},
		{"\"\xf0\x9f\x90\xb6\xf0\x9f\x90\"", "🐶\uFFFD\uFFFD\uFFFD", false},
		{`"` + strings.Repeat("x", 100) + `\n"`, strings.Repeat("x", 100) + "\n", false},
	} {
		var want string
		if err := json.Unmarshal([]byte(tc.in), &want); err != nil || want != tc.want {
			t.Fatalf("encoding/json reads %q as %q, %v: the table is wrong", tc.in, want, err)
		}
		d := NewDecoder([]byte(tc.in))
		s, err := d.Str()
		if err != nil {
			t.Errorf("Str(%q): %v", tc.in, err)
			continue
		}
		got := struct {
			String, Appended string
			Len              int
			Plain            bool
		}{s.String(), string(s.AppendTo([]byte(">"))[1:]), s.Len(), s.Plain()}
		want2 := struct {
			String, Appended string
			Len              int
			Plain            bool
		}{tc.want, tc.want, len(tc.want), tc.wantPlain}
		if diff := cmp.Diff(want2, got); diff != "" {
			t.Errorf("Str(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// foldedByJSON reports whether encoding/json decodes a member named key
// into a field tagged name.
func foldedByJSON(t *testing.T, key, name string) bool {
	t.Helper()
	typ := reflect.StructOf([]reflect.StructField{{
		Name: "F", Type: reflect.TypeOf(0), Tag: reflect.StructTag(`json:"` + name + `"`),
	}})
	v := reflect.New(typ)
	in, err := json.Marshal(map[string]int{key: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(in, v.Interface()); err != nil {
		t.Fatal(err)
	}
	return v.Elem().Field(0).Int() == 1
}

// equalFold is Str.EqualFold on key written as a JSON string.
func equalFold(t *testing.T, key, name string) bool {
	t.Helper()
	in, err := json.Marshal(key)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewDecoder(in).Str()
	if err != nil {
		t.Fatal(err)
	}
	return s.EqualFold(name)
}

func TestEqualFold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key, name string
		want      bool
	}{
		{"id", "id", true}, {"ID", "id", true}, {"iD", "id", true}, {"categoryid", "categoryId", true},
		{"ſtatus", "status", true}, {"STATUſ", "status", true}, {"\u212Aey", "key", true}, {"KEY", "\u212Aey", true},
		{"İd", "id", false}, {"ıd", "id", false}, {"id ", "id", false}, {"i", "id", false}, {"idx", "id", false},
		{"i\x00d", "id", false}, {"Straße", "STRASSE", false}, {"ÉTÉ", "été", true},
	} {
		if got := equalFold(t, tc.key, tc.name); got != tc.want {
			t.Errorf("EqualFold(%q, %q) = %v; want %v", tc.key, tc.name, got, tc.want)
		}
		if got := foldedByJSON(t, tc.key, tc.name); got != tc.want {
			t.Errorf("encoding/json matches %q to %q: %v; the table is wrong", tc.key, tc.name, got)
		}
	}
}

// TestEqualFoldEveryOrbit checks EqualFold against encoding/json for every
// letter that has other case forms, matched to each of them, and notes which
// runes outside ASCII fold into it: only U+017F and U+212A.
func TestEqualFoldEveryOrbit(t *testing.T) {
	t.Parallel()
	var intoASCII []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.SimpleFold(r) == r || !unicode.IsLetter(r) {
			continue
		}
		for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
			if !unicode.IsLetter(o) { // encoding/json ignores such a tag
				continue
			}
			key, name := "x"+string(r), "x"+string(o)
			if got, want := equalFold(t, key, name), foldedByJSON(t, key, name); got != want {
				t.Errorf("EqualFold(%q, %q) = %v; encoding/json: %v", key, name, got, want)
			}
			if r >= utf8.RuneSelf && o < utf8.RuneSelf && o >= 'a' {
				intoASCII = append(intoASCII, r)
			}
		}
	}
	if diff := cmp.Diff([]rune{0x17F, 0x212A}, intoASCII); diff != "" {
		t.Errorf("runes outside ASCII that fold into it (-want +got):\n%s", diff)
	}
}
