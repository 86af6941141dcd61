package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRun(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v", err)
	}
	// A want line ending in "..." only has to be a prefix of the line.
	want := []string{
		"wrong key:                         bad API key (status 401, code unauthorized, request id req-1)",
		"base URL without /v1:              not found: petstore: GET ...",
		"limit 500:                         refused by the SDK, nothing sent: petstore: invalid parameters: ListPetsParams.Limit is 500...",
		"two 503s (3 attempts):             success",
		`three 503s (3 attempts):           API error: status 503, code "service_unavailable", retry after 0s`,
		`429, retry after 1h (1 attempt):   API error: status 429, code "too_many_requests", retry after 1h0m0s`,
		"server stalls:                     timed out: petstore: GET /v1/pets: context deadline exceeded",
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for i := range got {
		if i < len(want) {
			if p, ok := strings.CutSuffix(want[i], "..."); ok && strings.HasPrefix(got[i], p) {
				got[i] = want[i]
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run output mismatch (-want +got):\n%s", diff)
	}
}
