package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

func TestRunWithoutKeyUsesTheFake(t *testing.T) {
	// Not parallel: t.Setenv.
	t.Setenv("PETSTORE_API_KEY", "")
	t.Setenv("PETSTORE_BASE_URL", "http://127.0.0.1:1/v1") // never used: nothing listens there
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v", err)
	}
	want := `PETSTORE_API_KEY is not set: using an in-memory Pet Store (package petstoretest).
Listing available pets (at most 10): 2 found
  #1 Rex (available)
  #3 Kiwi (available)
Adding Bella...
  created #4 Bella (available)
Listing available pets (at most 10): 3 found
  #1 Rex (available)
  #3 Kiwi (available)
  #4 Bella (available)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("run output mismatch (-want +got):\n%s", diff)
	}
}

func TestRunWithKeyUsesTheEnvironment(t *testing.T) {
	// Not parallel: t.Setenv.
	srv := petstoretest.NewServer()
	defer srv.Close()
	srv.AddPet(petstore.NewPet{Name: "Max", CategoryID: 5, Status: petstore.PetStatusAvailable})
	t.Setenv("PETSTORE_API_KEY", srv.APIKey)
	t.Setenv("PETSTORE_BASE_URL", srv.URL)

	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v", err)
	}
	want := []petstore.Pet{{ID: 2, Name: "Bella", CategoryID: 1, Status: petstore.PetStatusAvailable}}
	if diff := cmp.Diff(want, srv.Created()); diff != "" {
		t.Errorf("animals created on the deployment mismatch (-want +got):\n%s", diff)
	}
	got := out.String()
	if !strings.HasPrefix(got, "Using PETSTORE_API_KEY at "+srv.URL+" ") || !strings.Contains(got, "  #1 Max (available)\n") || strings.Contains(got, "in-memory") {
		t.Errorf("run output = %q, want the URL, the deployment's animals and no fake", got)
	}
}

func TestRunWithKeyDefaultsToStaging(t *testing.T) {
	// Not parallel: t.Setenv.
	t.Setenv("PETSTORE_API_KEY", "some-key")
	t.Setenv("PETSTORE_BASE_URL", "")
	// A context that has ended: the SDK sends nothing, so the test needs
	// no network, and run still says where it would have gone.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	err := run(ctx, &out)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("run: %v, want context.Canceled", err)
	}
	want := "Using PETSTORE_API_KEY at " + petstore.StagingURL + " (set PETSTORE_BASE_URL to change it).\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("run output mismatch (-want +got):\n%s", diff)
	}
	if strings.Contains(out.String(), petstore.ProductionURL) {
		t.Errorf("run output names production: %q", out.String())
	}
}

func TestRunReportsErrors(t *testing.T) {
	// Not parallel: t.Setenv.
	srv := petstoretest.NewServer()
	defer srv.Close()
	t.Setenv("PETSTORE_API_KEY", "wrong-key")
	t.Setenv("PETSTORE_BASE_URL", srv.URL)
	err := run(context.Background(), new(bytes.Buffer))
	if !errors.Is(err, petstore.ErrUnauthorized) {
		t.Errorf("run: %v, want ErrUnauthorized", err)
	}
}
