package jsonscan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
