// Staging is an integration script pinned to the staging deployment: it adds
// an animal and checks what the service answers. It needs a staging key:
//
//	PETSTORE_API_KEY=<staging key> go run ./examples/staging
//
// PETSTORE_BASE_URL, when set, points it elsewhere (at cmd/petstore-fake,
// say). Without PETSTORE_API_KEY it stops before sending anything.
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"time"

	"github.com/petstore/petstore-go"
)

func main() {
	log.SetFlags(0)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, stagingUnlessEnv()); err != nil {
		log.Fatal("staging: ", err)
	}
}

// stagingUnlessEnv pins the client to staging, unless PETSTORE_BASE_URL
// says otherwise.
func stagingUnlessEnv() petstore.Option {
	return petstore.WithBaseURL(cmp.Or(os.Getenv("PETSTORE_BASE_URL"), petstore.StagingURL))
}

// run checks the deployment opts point at, with the key in PETSTORE_API_KEY,
// writing one line per check to w.
func run(ctx context.Context, w io.Writer, opts ...petstore.Option) error {
	c, err := petstore.NewClient("", opts...) // the key comes from PETSTORE_API_KEY
	if errors.Is(err, petstore.ErrMissingAPIKey) {
		return fmt.Errorf("%w (this script talks to staging, %s, unless PETSTORE_BASE_URL says otherwise, and needs its key)", err, petstore.StagingURL)
	}
	if err != nil {
		return err
	}

	// CreatePet returns the animal as sent, with an id.
	want := petstore.NewPet{
		Name:       "staging-check-" + strconv.FormatInt(time.Now().Unix(), 10),
		CategoryID: 1,
		Status:     petstore.PetStatusPending,
	}
	pet, err := c.CreatePet(ctx, want)
	if err != nil {
		return fmt.Errorf("CreatePet: %w", err)
	}
	if pet.Name != want.Name || pet.CategoryID != want.CategoryID || pet.Status != want.Status {
		return fmt.Errorf("CreatePet(%+v) = %+v: fields differ", want, *pet)
	}
	fmt.Fprintf(w, "ok  CreatePet: #%d %s (%s)\n", pet.ID, pet.Name, pet.Status)

	// ListPets honours the status filter and the limit.
	pets, err := c.ListPets(ctx, petstore.ListPetsParams{Status: petstore.PetStatusPending, Limit: 100})
	if err != nil {
		return fmt.Errorf("ListPets: %w", err)
	}
	if len(pets) == 0 || len(pets) > 100 {
		return fmt.Errorf("ListPets(pending, 100) returned %d animals, want 1..100", len(pets))
	}
	for _, p := range pets {
		if p.Status != petstore.PetStatusPending {
			return fmt.Errorf("ListPets(pending) returned #%d with status %q", p.ID, p.Status)
		}
	}
	fmt.Fprintf(w, "ok  ListPets(status=pending, limit=100): %d animals, all pending\n", len(pets))

	pets, err = c.ListPets(ctx, petstore.ListPetsParams{Limit: 1})
	if err != nil {
		return fmt.Errorf("ListPets: %w", err)
	}
	if len(pets) != 1 {
		return fmt.Errorf("ListPets(limit=1) returned %d animals, want 1", len(pets))
	}
	fmt.Fprintln(w, "ok  ListPets(limit=1): 1 animal")

	// A wrong key is refused with 401.
	bad, err := petstore.NewClient("not-a-valid-key", opts...)
	if err != nil {
		return err
	}
	_, err = bad.ListPets(ctx, petstore.ListPetsParams{Limit: 1})
	if !errors.Is(err, petstore.ErrUnauthorized) {
		return fmt.Errorf("ListPets with a wrong key: got %v, want a 401", err)
	}
	fmt.Fprintln(w, "ok  a wrong key gets 401")
	return nil
}
