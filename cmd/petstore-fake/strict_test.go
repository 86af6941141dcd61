package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeStrict(t *testing.T) {
	t.Parallel()
	type point struct {
		X int `json:"x"`
		Y int `json:"y,omitempty"`
	}
	tests := []struct {
		in      string
		want    point
		wantErr string
	}{
		{in: `{"x":1,"y":2}`, want: point{1, 2}},
		{in: ` {"y":2} `, want: point{Y: 2}},
		{in: `{}`, want: point{}},
		{in: `{"X":1}`, wantErr: `json: unknown field "X"`}, // encoding/json alone takes it
		{in: `{"x":1,"z":3,"a":0}`, wantErr: `json: unknown field "a"`},
		{in: `{"x":1} {"x":2}`, wantErr: "data after the object"},
		{in: `{"x":1}x`, wantErr: "data after the object"},
		{in: `{"x":"1"}`, wantErr: "x is a JSON string, want an integer"},
		{in: `[1]`, wantErr: "a JSON array, want an object"},
		{in: `{"x":`, wantErr: "unexpected EOF"},
	}
	for _, tc := range tests {
		got, err := decodeStrict[point]([]byte(tc.in))
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
			t.Errorf("decodeStrict(%s) error mismatch (-want +got):\n%s", tc.in, diff)
		}
		if diff := cmp.Diff(tc.want, got); err == nil && diff != "" {
			t.Errorf("decodeStrict(%s) mismatch (-want +got):\n%s", tc.in, diff)
		}
	}
}
