// Quickstart lists the available animals, adds one, and lists them again.
//
// Without PETSTORE_API_KEY, it starts an in-memory fake Pet Store (package
// petstoretest) in the process, so it runs anywhere:
//
//	go run ./examples/quickstart
//
// With PETSTORE_API_KEY set, it talks to staging, or to PETSTORE_BASE_URL
// when that is set, and says which URL first: a quick start adds an animal,
// and never to production unless told to.
package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run does the quick start, writing what it does to w.
func run(ctx context.Context, w io.Writer) error {
	var c *petstore.Client
	var err error
	if os.Getenv("PETSTORE_API_KEY") == "" {
		srv := petstoretest.NewServer()
		defer srv.Close()
		srv.AddPet(petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable})
		srv.AddPet(petstore.NewPet{Name: "Tom", CategoryID: 2, Status: petstore.PetStatusPending})
		srv.AddPet(petstore.NewPet{Name: "Kiwi", CategoryID: 3, Status: petstore.PetStatusAvailable})
		fmt.Fprintln(w, "PETSTORE_API_KEY is not set: using an in-memory Pet Store (package petstoretest).")
		c, err = petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL))
	} else {
		// Staging, unless PETSTORE_BASE_URL says otherwise: never
		// production by default, as NewClient alone would.
		base := cmp.Or(os.Getenv("PETSTORE_BASE_URL"), petstore.StagingURL)
		fmt.Fprintf(w, "Using PETSTORE_API_KEY at %s (set PETSTORE_BASE_URL to change it).\n", base)
		c, err = petstore.NewClient("", petstore.WithBaseURL(base)) // reads PETSTORE_API_KEY
	}
	if err != nil {
		return err
	}

	available := petstore.ListPetsParams{Status: petstore.PetStatusAvailable, Limit: 10}
	if err := list(ctx, w, c, available); err != nil {
		return err
	}

	fmt.Fprintln(w, "Adding Bella...")
	pet, err := c.CreatePet(ctx, petstore.NewPet{Name: "Bella", CategoryID: 1, Status: petstore.PetStatusAvailable})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  created #%d %s (%s)\n", pet.ID, pet.Name, pet.Status)

	return list(ctx, w, c, available)
}

// list prints the animals ListPets returns for p.
func list(ctx context.Context, w io.Writer, c *petstore.Client, p petstore.ListPetsParams) error {
	pets, err := c.ListPets(ctx, p)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Listing %s pets (at most %d): %d found\n", p.Status, p.Limit, len(pets))
	for _, pet := range pets {
		fmt.Fprintf(w, "  #%d %s (%s)\n", pet.ID, pet.Name, pet.Status)
	}
	return nil
}
