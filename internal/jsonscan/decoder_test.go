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

// skipAll skips the top-level value of data and checks that nothing
// follows it.
func skipAll(data []byte) error {
	d := NewDecoder(data)
	if err := d.Skip(); err != nil {
		return err
	}
	return d.End()
}

func TestSkip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want bool // valid
	}{
		{`null`, true}, {` true `, true}, {`false`, true}, {`nul`, false}, {`nullx`, false}, {``, false}, {` `, false},
		{`0`, true}, {`-0`, true}, {`-1.5e+10`, true}, {`1E9`, true}, {`01`, false}, {`-`, false}, {`1.`, false},
		{`.5`, false}, {`1e`, false}, {`+1`, false}, {`0x1`, false},
		{`""`, true}, {`"a\"b\\c\/d\be\ff\ng\rh\ti\u00e9"`, true}, {`"\x"`, false}, {`"\u12G4"`, false},
		{"\"a\nb\"", false}, {"\"\xff\"", true}, {`"abc`, false},
		{`[]`, true}, {`[1,[2,{}],"x"]`, true}, {`[1,]`, false}, {`[,]`, false}, {`[1 2]`, false}, {`]`, false},
		{`{}`, true}, {`{"a":{"b":[null]},"c":1}`, true}, {`{"a"}`, false}, {`{"a":1,}`, false}, {`{1:2}`, false},
		{`{'a':1}`, false}, {`{"a" 1}`, false}, {`{} {}`, false}, {"\f{}", false}, {"\v1", false},
		{strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), true},
		{strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), false},
		{strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth), true},
		{strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1), false},
	} {
		if err := skipAll([]byte(tc.in)); (err == nil) != tc.want {
			t.Errorf("Skip(%.40q): %v; want valid %v", tc.in, err, tc.want)
		}
		if json.Valid([]byte(tc.in)) != tc.want {
			t.Errorf("json.Valid(%.40q) is not %v: the table is wrong", tc.in, tc.want)
		}
	}
}

func TestInt64(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{`0`, 0, false}, {` -0 `, 0, false}, {`42`, 42, false}, {`-42`, -42, false},
		{`9223372036854775807`, 1<<63 - 1, false}, {`-9223372036854775808`, -1 << 63, false},
		{`9223372036854775808`, 0, true}, {`-9223372036854775809`, 0, true},
		{`18446744073709551616`, 0, true}, {`99999999999999999999`, 0, true},
		{`1.0`, 0, true}, {`1e2`, 0, true}, {`1E2`, 0, true}, {`01`, 0, true}, {`-`, 0, true},
		{`"1"`, 0, true}, {`true`, 0, true}, {`null`, 0, true}, {``, 0, true},
	} {
		d := NewDecoder([]byte(tc.in))
		got, err := d.Int64()
		if err == nil {
			err = d.End()
		}
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("Int64(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

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
		{`"Zoë 🐶"`, "Zoë 🐶", false},
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

func TestIter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    []string // the member names, or "" per element
		wantErr bool
	}{
		{`{}`, nil, false},
		{` { "a" : 1 , "b\u0063" : [2] } `, []string{"a", "bc"}, false},
		{`[]`, nil, false},
		{`[1, {"x":2}, "s"]`, []string{"", "", ""}, false},
		{`{"a":1,}`, []string{"a"}, true},
		{`{"a":1 "b":2}`, []string{"a"}, true},
		{`{"a" 1}`, nil, true},
		{`{1:1}`, nil, true},
		{`[1,]`, []string{"", ""}, true},
		{`[1 2]`, []string{""}, true},
		{`{"a":1`, []string{"a"}, true},
		{`x`, nil, true},
	} {
		d := NewDecoder([]byte(tc.in))
		it := d.Array()
		if d.Next() == Object {
			it = d.Object(nil)
		}
		var got []string
		var err error
		for err == nil && it.Next() {
			got = append(got, it.Name().String())
			err = d.Skip()
		}
		if err == nil {
			err = it.Err()
		}
		if err == nil {
			err = d.End()
		}
		if diff := cmp.Diff(tc.want, got); diff != "" || (err != nil) != tc.wantErr {
			t.Errorf("walk of %q: error %v, want one %v; names (-want +got):\n%s", tc.in, err, tc.wantErr, diff)
		}
	}
}
