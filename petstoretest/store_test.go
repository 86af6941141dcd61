package petstoretest_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

func TestCreatedAndPets(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := newClient(t, srv)
	ctx := context.Background()
	got, err := c.CreatePet(ctx, petstore.NewPet{Name: "Bella", CategoryID: 9, Status: petstore.PetStatusSold})
	if err != nil {
		t.Fatalf("CreatePet: %v", err)
	}
	bella := petstore.Pet{ID: 4, Name: "Bella", CategoryID: 9, Status: petstore.PetStatusSold}
	if diff := cmp.Diff(&bella, got); diff != "" {
		t.Errorf("CreatePet mismatch (-want +got):\n%s", diff)
	}
	seeded := srv.AddPet(petstore.NewPet{Name: "Max", CategoryID: 1})
	if diff := cmp.Diff(petstore.Pet{ID: 5, Name: "Max", CategoryID: 1}, seeded); diff != "" {
		t.Errorf("AddPet mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]petstore.Pet{bella}, srv.Created()); diff != "" {
		t.Errorf("Created() mismatch (-want +got):\n%s", diff)
	}
	wantPets := []petstore.Pet{
		{ID: 1, Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable},
		{ID: 2, Name: "Tom", CategoryID: 2, Status: petstore.PetStatusPending},
		{ID: 3, Name: "Kiwi", CategoryID: 3},
		bella,
		{ID: 5, Name: "Max", CategoryID: 1},
	}
	if diff := cmp.Diff(wantPets, srv.Pets()); diff != "" {
		t.Errorf("Pets() mismatch (-want +got):\n%s", diff)
	}
	// The slices are copies.
	srv.Pets()[0].Name = "changed"
	srv.Created()[0].Name = "changed"
	if diff := cmp.Diff(wantPets, srv.Pets()); diff != "" {
		t.Errorf("Pets() after changing a returned slice mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]petstore.Pet{bella}, srv.Created()); diff != "" {
		t.Errorf("Created() after changing a returned slice mismatch (-want +got):\n%s", diff)
	}
	if got, want := srv.Requests(), 1; got != want {
		t.Errorf("Requests() = %d, want %d (AddPet is not a request)", got, want)
	}
}

func TestEmptyServer(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewServer()
	t.Cleanup(srv.Close)
	pets, err := newClient(t, srv).ListPets(context.Background(), petstore.ListPetsParams{})
	if err != nil {
		t.Fatalf("ListPets: %v", err)
	}
	if diff := cmp.Diff([]petstore.Pet{}, pets); diff != "" {
		t.Errorf("ListPets mismatch (-want +got):\n%s", diff)
	}
	if srv.Pets() != nil || srv.Created() != nil {
		t.Errorf("Pets(), Created() = %v, %v; want nil, nil", srv.Pets(), srv.Created())
	}
}

func TestAddPetPanics(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewServer()
	t.Cleanup(srv.Close)
	tests := []struct {
		p    petstore.NewPet
		want any
	}{
		{petstore.NewPet{CategoryID: 1}, "petstoretest: AddPet: empty Name"},
		{petstore.NewPet{Name: "A", Status: "lost"}, `petstoretest: AddPet: unknown Status "lost"`},
		{petstore.NewPet{Name: "A", Status: petstore.PetStatusPending}, nil},
		{petstore.NewPet{Name: "A"}, nil},
	}
	for _, tc := range tests {
		got := panicOf(func() { srv.AddPet(tc.p) })
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("AddPet(%+v) panic mismatch (-want +got):\n%s", tc.p, diff)
		}
	}
}
