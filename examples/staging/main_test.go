package main

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

func TestRunWithoutKeySendsNothing(t *testing.T) {
	// Not parallel: t.Setenv.
	t.Setenv("PETSTORE_API_KEY", "")
	srv := petstoretest.NewServer()
	defer srv.Close()
	var out bytes.Buffer
	err := run(context.Background(), &out, petstore.WithBaseURL(srv.URL))
	if !errors.Is(err, petstore.ErrMissingAPIKey) {
		t.Errorf("run: %v, want ErrMissingAPIKey", err)
	}
	want := petstore.ErrMissingAPIKey.Error() +
		" (this script talks to staging, https://staging.petstore.example.com/v1, unless PETSTORE_BASE_URL says otherwise, and needs its key)"
	if err != nil {
		if diff := cmp.Diff(want, err.Error()); diff != "" {
			t.Errorf("error message mismatch (-want +got):\n%s", diff)
		}
	}
	if n := srv.Requests(); n != 0 || out.Len() != 0 {
		t.Errorf("sent %d requests and printed %q, want nothing", n, out.String())
	}
}

func TestRunAgainstTheFake(t *testing.T) {
	// Not parallel: t.Setenv.
	srv := petstoretest.NewServer()
	defer srv.Close()
	srv.AddPet(petstore.NewPet{Name: "Tom", CategoryID: 2, Status: petstore.PetStatusPending})
	srv.AddPet(petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable})
	t.Setenv("PETSTORE_API_KEY", srv.APIKey)

	var out bytes.Buffer
	if err := run(context.Background(), &out, petstore.WithBaseURL(srv.URL)); err != nil {
		t.Fatalf("run: %v", err)
	}
	got := regexp.MustCompile(`staging-check-\d+`).ReplaceAllString(out.String(), "staging-check-N")
	want := `ok  CreatePet: #3 staging-check-N (pending)
ok  ListPets(status=pending, limit=100): 2 animals, all pending
ok  ListPets(limit=1): 1 animal
ok  a wrong key gets 401
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run output mismatch (-want +got):\n%s", diff)
	}
}

func TestRunFailsOnAFaultyService(t *testing.T) {
	// Not parallel: t.Setenv.
	srv := petstoretest.NewServer()
	defer srv.Close()
	srv.InjectFault(petstoretest.Fault{Operation: "CreatePet", Status: 500})
	t.Setenv("PETSTORE_API_KEY", srv.APIKey)

	err := run(context.Background(), new(bytes.Buffer), petstore.WithBaseURL(srv.URL))
	var apiErr *petstore.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 500 {
		t.Errorf("run: %v, want an *APIError with Status 500", err)
	}
}

// TestStagingUnlessEnv: PETSTORE_BASE_URL points the script at the fake.
func TestStagingUnlessEnv(t *testing.T) {
	// Not parallel: t.Setenv.
	srv := petstoretest.NewServer()
	defer srv.Close()
	t.Setenv("PETSTORE_API_KEY", srv.APIKey)
	t.Setenv("PETSTORE_BASE_URL", srv.URL)
	var out bytes.Buffer
	if err := run(context.Background(), &out, stagingUnlessEnv()); err != nil {
		t.Fatalf("run: %v", err)
	}
	if srv.Requests() == 0 {
		t.Error("the fake saw no request; want the script to follow PETSTORE_BASE_URL")
	}
}
