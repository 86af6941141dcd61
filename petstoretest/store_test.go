package petstoretest_test

import (
	"context"
	"errors"
	"math"
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

func TestSetPets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		pets     []petstore.Pet
		want     []petstore.Pet
		wantNext int64 // the id of the next animal created
	}{
		{"none", nil, []petstore.Pet{}, 1},
		{
			name:     "ids kept, sorted",
			pets:     []petstore.Pet{{ID: 7, Name: "B", CategoryID: 2}, {ID: 3, Name: "A", CategoryID: 1, Status: "sold"}},
			want:     []petstore.Pet{{ID: 3, Name: "A", CategoryID: 1, Status: "sold"}, {ID: 7, Name: "B", CategoryID: 2}},
			wantNext: 8,
		},
		{
			name:     "ids of 0 numbered in order after the largest",
			pets:     []petstore.Pet{{Name: "X"}, {ID: 5, Name: "A"}, {Name: "Y"}},
			want:     []petstore.Pet{{ID: 5, Name: "A"}, {ID: 6, Name: "X"}, {ID: 7, Name: "Y"}},
			wantNext: 8,
		},
		{
			name:     "all 0",
			pets:     []petstore.Pet{{Name: "X"}, {Name: "Y"}},
			want:     []petstore.Pet{{ID: 1, Name: "X"}, {ID: 2, Name: "Y"}},
			wantNext: 3,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			srv.SetPets(tc.pets)
			c := newClient(t, srv)
			created, err := c.CreatePet(context.Background(), petstore.NewPet{Name: "New", CategoryID: 9})
			if err != nil {
				t.Fatalf("CreatePet: %v", err)
			}
			if created.ID != tc.wantNext {
				t.Errorf("created ID = %d, want %d", created.ID, tc.wantNext)
			}
			want := append(tc.want, *created)
			got, err := c.ListPets(context.Background(), petstore.ListPetsParams{Limit: 100})
			if err != nil {
				t.Fatalf("ListPets: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ListPets mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetPetsPanics(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	before := srv.Pets()
	tests := []struct {
		pets []petstore.Pet
		want any
	}{
		{[]petstore.Pet{{ID: 1, Name: "A"}, {ID: 2}}, "petstoretest: SetPets: animal 1: empty Name"},
		{[]petstore.Pet{{Name: "A", Status: "lost"}}, `petstoretest: SetPets: animal 0: unknown Status "lost"`},
		{[]petstore.Pet{{ID: -1, Name: "A"}}, "petstoretest: SetPets: animal 0: negative ID -1"},
		{[]petstore.Pet{{ID: 4, Name: "A"}, {Name: "B"}, {ID: 4, Name: "C"}}, "petstoretest: SetPets: animal 2: ID 4 is given twice"},
		{[]petstore.Pet{{ID: math.MaxInt64, Name: "A"}, {Name: "B"}}, "petstoretest: SetPets: ID 9223372036854775807 leaves no id for the animals after it"},
		{[]petstore.Pet{{ID: math.MaxInt64 - 1, Name: "A"}, {Name: "B"}, {Name: "C"}}, "petstoretest: SetPets: ID 9223372036854775806 leaves no id for the animals after it"},
	}
	for _, tc := range tests {
		got := panicOf(func() { srv.SetPets(tc.pets) })
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("SetPets(%+v) panic mismatch (-want +got):\n%s", tc.pets, diff)
		}
	}
	if diff := cmp.Diff(before, srv.Pets()); diff != "" {
		t.Errorf("Pets() after refused SetPets calls (-want +got):\n%s", diff)
	}
}

// TestIDsNeverWrap: ids grow up to math.MaxInt64; after it, a create is
// refused with a 507 ids_exhausted Error body and AddPet panics, nothing
// stored, never a negative id; Reset starts from 1 again.
func TestIDsNeverWrap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		pets    []petstore.Pet
		created []int64 // the ids of two creates; 0 for one refused
	}{
		{"the last id created", []petstore.Pet{{ID: math.MaxInt64 - 1, Name: "A"}}, []int64{math.MaxInt64, 0}},
		{"the last id set", []petstore.Pet{{ID: math.MaxInt64, Name: "A"}}, []int64{0, 0}},
		{"the last id numbered", []petstore.Pet{{ID: math.MaxInt64 - 1, Name: "A"}, {Name: "B"}}, []int64{0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			c := newClient(t, srv, petstore.WithMaxRetries(0))
			srv.SetPets(tc.pets)
			var got []int64
			for range tc.created {
				p, err := c.CreatePet(context.Background(), petstore.NewPet{Name: "New", CategoryID: 1})
				var apiErr *petstore.APIError
				switch {
				case err == nil:
					got = append(got, p.ID)
				case errors.As(err, &apiErr) && apiErr.Status == 507 && apiErr.Code == "ids_exhausted":
					got = append(got, 0)
				default:
					t.Fatalf("CreatePet: %v; want an animal or 507 ids_exhausted", err)
				}
			}
			if diff := cmp.Diff(tc.created, got); diff != "" {
				t.Errorf("ids created mismatch (-want +got):\n%s", diff)
			}
			if n := len(srv.Pets()); n != len(tc.pets)+len(srv.Created()) {
				t.Errorf("%d animals stored, want %d set and %d created", n, len(tc.pets), len(srv.Created()))
			}
			want := "petstoretest: AddPet: no id left: an animal has id 9223372036854775807, the largest there is"
			if diff := cmp.Diff(want, panicOf(func() { srv.AddPet(petstore.NewPet{Name: "X"}) })); diff != "" {
				t.Errorf("AddPet panic mismatch (-want +got):\n%s", diff)
			}
			srv.Reset()
			if p := srv.AddPet(petstore.NewPet{Name: "X"}); p.ID != 1 {
				t.Errorf("id after Reset = %d, want 1", p.ID)
			}
		})
	}
}

func TestReset(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := newClient(t, srv, petstore.WithMaxRetries(0))
	if _, err := c.CreatePet(context.Background(), petstore.NewPet{Name: "A", CategoryID: 1}); err != nil {
		t.Fatal(err)
	}
	srv.InjectFault(petstoretest.Fault{Status: 503, Count: 3})
	srv.Reset()

	type state struct {
		Pets, Created []petstore.Pet
		Requests      int
		Received      []petstoretest.Request
	}
	if diff := cmp.Diff(state{}, state{srv.Pets(), srv.Created(), srv.Requests(), srv.Received()}); diff != "" {
		t.Errorf("state after Reset (-want +got):\n%s", diff)
	}
	created, err := c.CreatePet(context.Background(), petstore.NewPet{Name: "B", CategoryID: 1}) // no fault left
	if err != nil {
		t.Fatalf("CreatePet after Reset: %v", err)
	}
	if created.ID != 1 {
		t.Errorf("first ID after Reset = %d, want 1", created.ID)
	}
	// The request ids go on: a log of a long-running fake stays unambiguous.
	if got := srv.Received()[0].RequestID; got != "req-2" {
		t.Errorf("RequestID after Reset = %q, want req-2", got)
	}
}
