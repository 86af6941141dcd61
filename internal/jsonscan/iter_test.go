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

// TestIterFields walks objects with Fields, the names where Next looks for
// them first (in order, no whitespace) and elsewhere, and with no Fields
// at all.
func TestIterFields(t *testing.T) {
	t.Parallel()
	abc := NewFields("alpha", "b", "categoryId")
	for _, tc := range []struct {
		fields *Fields
		in     string
		want   []int // each member's field
	}{
		{abc, `{"alpha":1,"b":2,"categoryId":3,"zzzzzzzzzzzzzz":4}`, []int{0, 1, 2, -1}},
		{abc, `{"categoryId":3,"b":2,"alpha":1,"alpha":1,"b":[{"b":2}]}`, []int{2, 1, 0, 0, 1}},
		{abc, `{ "alpha" : 1 , "B":2,"CATEGORYID":3,"b\u0022":4}                 `, []int{0, 1, 2, -1}},
		{NewFields(), `{"alpha":1,"b":2,"categoryId":3,"zzzzzzzzzzzzzz":4}`, []int{-1, -1, -1, -1}},
		{nil, `{"alpha":1,"b":2,"categoryId":3,"zzzzzzzzzzzzzz":4}`, []int{-1, -1, -1, -1}},
	} {
		d := NewDecoder([]byte(tc.in))
		obj := d.Object(tc.fields)
		var got []int
		for obj.Next() {
			got = append(got, obj.Field())
			if err := d.Skip(); err != nil {
				t.Fatalf("%s: %v", tc.in, err)
			}
		}
		if err := obj.Err(); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if err := d.End(); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: fields (-want +got):\n%s", tc.in, diff)
		}
	}
}
