package bench

import (
	"context"
	"net/http"

	petstore "github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/internal/bench/handclient"
)

func fromHand(p handclient.Pet) petstore.Pet {
	return petstore.Pet{ID: p.ID, Name: p.Name, CategoryID: p.CategoryID, Status: petstore.PetStatus(p.Status)}
}

func newHand(baseURL string, hc *http.Client) (*Client, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := handclient.New(baseURL, Key, hc)
	return adapt(func() *Client { return handCalls(c) }), nil
}

// handCalls returns the calls through c, keeping results of their own.
func handCalls(c *handclient.Client) *Client {
	var (
		pets []handclient.Pet
		pet  *handclient.Pet
		got  *handclient.Pet
	)
	np := handclient.NewPet{Name: NewPet.Name, CategoryID: NewPet.CategoryID, Status: string(NewPet.Status)}
	return &Client{
		Name: "hand",
		Call: map[string]func(context.Context) error{
			"ListPets": func(ctx context.Context) (err error) {
				pets, err = c.ListPets(ctx, 100)
				return err
			},
			OpListPetsNonASCII: func(ctx context.Context) (err error) {
				pets, err = c.ListPetsByStatus(ctx, 100, "available")
				return err
			},
			"CreatePet": func(ctx context.Context) (err error) {
				pet, err = c.CreatePet(ctx, np)
				return err
			},
			"GetPet": func(ctx context.Context) (err error) {
				got, err = c.GetPet(ctx, 42)
				return err
			},
		},
		Result: map[string]func() any{
			"ListPets": func() any {
				out := make([]petstore.Pet, len(pets))
				for i, p := range pets {
					out[i] = fromHand(p)
				}
				return out
			},
			"CreatePet": func() any { return fromHand(*pet) },
			"GetPet":    func() any { return fromHand(*got) },

			OpListPetsNonASCII: func() any { return fromHandPets(pets) },
		},
	}
}
