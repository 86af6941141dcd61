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
		{"disconnect", petstoretest.Fault{Disconnect: true}},
		{"op=CreatePet, disconnect=true, delay=2s", petstoretest.Fault{Operation: "CreatePet", Disconnect: true, Delay: 2 * time.Second}},
		{"cut-body", petstoretest.Fault{CutBody: true}},
		{"cut-body=1,status=500", petstoretest.Fault{CutBody: true, Status: 500}},
		{"disconnect=false,delay=1s", petstoretest.Fault{Delay: time.Second}},
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
		if err := checkFault(got); err != nil {
			t.Errorf("checkFault(parseFault(%q)): %v, want petstoretest to take it", tc.spec, err)
		}
	}
}

func TestParseFaultErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec string
		want string
	}{
		{"", `"" is not key=value (keys: op, count, status, retry-after, delay, disconnect, cut-body)`},
		{"503", `"503" is not key=value (keys: op, count, status, retry-after, delay, disconnect, cut-body)`},
		{"status=503,", `"" is not key=value (keys: op, count, status, retry-after, delay, disconnect, cut-body)`},
		{"code=503", `unknown key "code" (keys: op, count, status, retry-after, delay, disconnect, cut-body)`},
		{"Status=503", `unknown key "Status" (keys: op, count, status, retry-after, delay, disconnect, cut-body)`},
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
		{"op=GetPet,count=3", "a fault needs a status, a delay, disconnect or cut-body"},
		{"delay=0s", "a fault needs a status, a delay, disconnect or cut-body"},
		{"disconnect=false", "a fault needs a status, a delay, disconnect or cut-body"},
		{"disconnect=yes", `disconnect "yes" is not true or false`},
		{"cut-body=", `cut-body "" is not true or false`},
		{"disconnect,disconnect", "disconnect is given twice"},
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
