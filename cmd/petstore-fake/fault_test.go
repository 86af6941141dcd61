package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go/petstoretest"
)

func TestParseFault(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec string
		want petstoretest.Fault
	}{
		{"status=503", petstoretest.Fault{Status: 503}},
		{"op=GetPet,count=2,status=503,retry-after=1s,delay=0s",
			petstoretest.Fault{Operation: "GetPet", Count: 2, Status: 503, RetryAfter: time.Second}},
		{"op=ListPets, status=429, retry-after=1m30s", petstoretest.Fault{Operation: "ListPets", Status: 429, RetryAfter: 90 * time.Second}},
		{"op=CreatePet,delay=250ms", petstoretest.Fault{Operation: "CreatePet", Delay: 250 * time.Millisecond}},
		{"delay=1h,status=504,count=100", petstoretest.Fault{Count: 100, Delay: time.Hour, Status: 504}},
		{"status=400", petstoretest.Fault{Status: 400}},
		{"status=599", petstoretest.Fault{Status: 599}},
	}
	for _, tc := range tests {
		got, err := parseFault(tc.spec)
		if err != nil {
			t.Errorf("parseFault(%q): %v", tc.spec, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("parseFault(%q) mismatch (-want +got):\n%s", tc.spec, diff)
		}
		// petstoretest accepts it: InjectFault panics on a fault it refuses.
		srv := petstoretest.NewUnstartedServer()
		srv.InjectFault(got)
		srv.Close()
	}
}

func TestParseFaultErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec string
		want string
	}{
		{"", `"" is not key=value (keys: op, count, status, retry-after, delay)`},
		{"503", `"503" is not key=value (keys: op, count, status, retry-after, delay)`},
		{"status=503,", `"" is not key=value (keys: op, count, status, retry-after, delay)`},
		{"code=503", `unknown key "code" (keys: op, count, status, retry-after, delay)`},
		{"Status=503", `unknown key "Status" (keys: op, count, status, retry-after, delay)`},
		{"status=503,status=500", "status is given twice"},
		{"op=listPets,status=503", `op "listPets" is not ListPets, CreatePet or GetPet`},
		{"op=,status=503", `op "" is not ListPets, CreatePet or GetPet`},
		{"count=0,status=503", `count "0" is not a positive integer`},
		{"count=-1,status=503", `count "-1" is not a positive integer`},
		{"count=two,status=503", `count "two" is not a positive integer`},
		{"status=200", `status "200" is not an error status (400..599)`},
		{"status=600", `status "600" is not an error status (400..599)`},
		{"status=abc", `status "abc" is not an error status (400..599)`},
		{"status=503,retry-after=30", `retry-after "30" is not a duration such as 500ms, 2s or 1m`},
		{"status=503,retry-after=-1s", `retry-after "-1s" is not a duration such as 500ms, 2s or 1m`},
		{"delay=soon", `delay "soon" is not a duration such as 500ms, 2s or 1m`},
		{"retry-after=1s,delay=1s", "retry-after needs a status"},
		{"op=GetPet,count=3", "a fault needs a status, a delay or both"},
		{"delay=0s", "a fault needs a status, a delay or both"},
	}
	for _, tc := range tests {
		_, err := parseFault(tc.spec)
		if err == nil {
			t.Errorf("parseFault(%q) = nil error, want %q", tc.spec, tc.want)
			continue
		}
		if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
			t.Errorf("parseFault(%q) error mismatch (-want +got):\n%s", tc.spec, diff)
		}
	}
}
