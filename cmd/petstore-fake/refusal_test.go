package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

func TestRefusal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fn   string
		call func(*petstoretest.Server)
		want string // "" for no refusal
	}{
		{"a fault taken", "InjectFault", func(s *petstoretest.Server) { s.InjectFault(petstoretest.Fault{Status: 503}) }, ""},
		{"a fault refused", "InjectFault", func(s *petstoretest.Server) { s.InjectFault(petstoretest.Fault{Status: 200}) },
			"Status 200 is not an error status (400..599)"},
		{"animals taken", "SetPets", func(s *petstoretest.Server) { s.SetPets([]petstore.Pet{{ID: 3, Name: "Rex"}}) }, ""},
		{"animals refused", "SetPets", func(s *petstoretest.Server) { s.SetPets([]petstore.Pet{{ID: -1, Name: "Rex"}}) },
			"animal 0: negative ID -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := scratchRefusal(tc.fn, tc.call)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("refusal mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRefusalPassesOtherPanicsOn: a panic that is not the named method's
// refusal is not turned into an error.
func TestRefusalPassesOtherPanicsOn(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		"petstoretest: SetPets: empty Name", // another method's
		"runtime error",
		42,
	} {
		func() {
			defer func() {
				if got := recover(); got != v {
					t.Errorf("refusal(InjectFault) on panic(%#v): recovered %#v, want the panic to go on", v, got)
				}
			}()
			err := refusal("InjectFault", func() { panic(v) })
			t.Errorf("refusal(InjectFault) on panic(%#v) returned %v", v, err)
		}()
	}
}
