package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
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

// FuzzSkip checks the scanner's grammar against encoding/json on any input:
// Skip and End accept exactly the documents json.Valid accepts.
func FuzzSkip(f *testing.F) {
	for _, s := range []string{
		`[]`, `{"a":[1,2,{"b":null}],"c":"\u00e9\n"}`, `-0.5e+10`, `[1,]`, `{"a" 1}`, `01`, `"\ud800"`,
		"\"\xff\"", `[` + strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10002), ` true `, `nul`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := skipAll(data) == nil, json.Valid(data); got != want {
			t.Errorf("Skip accepts %q: %v; json.Valid: %v", data, got, want)
		}
	})
}
