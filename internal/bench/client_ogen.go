package bench

import (
	"context"
	"fmt"
	"net/http"

	petstore "github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/internal/bench/ogenclient"
)

// bearer is ogen's security source.
type bearer struct{}

func (bearer) BearerAuth(context.Context, ogenclient.OperationName) (ogenclient.BearerAuth, error) {
	return ogenclient.BearerAuth{Token: Key}, nil
}

func fromOgen(p ogenclient.Pet) petstore.Pet {
	return petstore.Pet{ID: p.ID, Name: p.Name, CategoryID: p.CategoryId, Status: petstore.PetStatus(p.Status.Or(""))}
}

func newOgen(baseURL string, hc *http.Client) (*Client, error) {
	var opts []ogenclient.ClientOption
	if hc != nil {
		opts = append(opts, ogenclient.WithClient(hc))
	}
	c, err := ogenclient.NewClient(baseURL, bearer{}, opts...)
	if err != nil {
		return nil, err
	}
	return adapt(func() *Client { return ogenCalls(c) }), nil
}

// ogenCalls returns the calls through c, keeping results of their own.
func ogenCalls(c *ogenclient.Client) *Client {
	var (
		pets *ogenclient.Pets
		pet  *ogenclient.Pet
		got  *ogenclient.Pet
	)
	newPet := &ogenclient.NewPet{Name: NewPet.Name, CategoryId: NewPet.CategoryID, Status: ogenclient.NewOptPetStatus(ogenclient.PetStatus(NewPet.Status))}
	return &Client{
		Name: "ogen",
		Call: map[string]func(context.Context) error{
			"ListPets": func(ctx context.Context) error {
				res, err := c.ListPets(ctx, ogenclient.ListPetsParams{Limit: ogenclient.NewOptInt(100)})
				if err != nil {
					return err
				}
				var ok bool
				if pets, ok = res.(*ogenclient.Pets); !ok {
					return fmt.Errorf("response %T", res)
				}
				return nil
			},
			OpListPetsNonASCII: func(ctx context.Context) error {
				res, err := c.ListPets(ctx, ogenNonASCIIParams)
				return ogenPets(res, err, &pets)
			},
			"CreatePet": func(ctx context.Context) error {
				res, err := c.CreatePet(ctx, newPet)
				if err != nil {
					return err
				}
				var ok bool
				if pet, ok = res.(*ogenclient.Pet); !ok {
					return fmt.Errorf("response %T", res)
				}
				return nil
			},
			"GetPet": func(ctx context.Context) error {
				//lint:ignore SA1019 the deprecated operation is measured too
				res, err := c.GetPet(ctx, ogenclient.GetPetParams{PetId: 42})
				if err != nil {
					return err
				}
				var ok bool
				if got, ok = res.(*ogenclient.Pet); !ok {
					return fmt.Errorf("response %T", res)
				}
				return nil
			},
		},
		Result: map[string]func() any{
			"ListPets": func() any {
				out := make([]petstore.Pet, len(*pets))
				for i, p := range *pets {
					out[i] = fromOgen(p)
				}
				return out
			},
			"CreatePet": func() any { return fromOgen(*pet) },
			"GetPet":    func() any { return fromOgen(*got) },

			OpListPetsNonASCII: func() any { return fromOgenPets(*pets) },
		},
	}
}
