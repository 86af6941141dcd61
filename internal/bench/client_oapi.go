package bench

import (
	"context"
	"fmt"
	"net/http"

	petstore "github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/internal/bench/oapiclient"
)

func fromOapi(p oapiclient.Pet) petstore.Pet {
	out := petstore.Pet{ID: p.Id, Name: p.Name, CategoryID: p.CategoryId}
	if p.Status != nil {
		out.Status = petstore.PetStatus(*p.Status)
	}
	return out
}

func newOapi(baseURL string, hc *http.Client) (*Client, error) {
	auth := []string{"Bearer " + Key}
	opts := []oapiclient.ClientOption{oapiclient.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header["Authorization"] = auth
		return nil
	})}
	if hc != nil {
		opts = append(opts, oapiclient.WithHTTPClient(hc))
	}
	c, err := oapiclient.NewClientWithResponses(baseURL, opts...)
	if err != nil {
		return nil, err
	}
	return adapt(func() *Client { return oapiCalls(c) }), nil
}

// oapiCalls returns the calls through c, keeping results of their own.
func oapiCalls(c *oapiclient.ClientWithResponses) *Client {
	var (
		pets []oapiclient.Pet
		pet  *oapiclient.Pet
		got  *oapiclient.Pet
	)
	limit := 100
	status := oapiclient.PetStatus(NewPet.Status)
	body := oapiclient.NewPet{Name: NewPet.Name, CategoryId: NewPet.CategoryID, Status: &status}
	return &Client{
		Name: "oapi-codegen",
		Call: map[string]func(context.Context) error{
			"ListPets": func(ctx context.Context) error {
				res, err := c.ListPetsWithResponse(ctx, &oapiclient.ListPetsParams{Limit: &limit})
				if err != nil {
					return err
				}
				if res.JSON200 == nil {
					return fmt.Errorf("status %d", res.StatusCode())
				}
				pets = *res.JSON200
				return nil
			},
			OpListPetsNonASCII: func(ctx context.Context) error {
				res, err := c.ListPetsWithResponse(ctx, oapiNonASCIIParams())
				return oapiPets(res, err, &pets)
			},
			"CreatePet": func(ctx context.Context) error {
				res, err := c.CreatePetWithResponse(ctx, body)
				if err != nil {
					return err
				}
				if res.JSON201 == nil {
					return fmt.Errorf("status %d", res.StatusCode())
				}
				pet = res.JSON201
				return nil
			},
			"GetPet": func(ctx context.Context) error {
				//lint:ignore SA1019 the deprecated operation is measured too
				res, err := c.GetPetWithResponse(ctx, 42)
				if err != nil {
					return err
				}
				if res.JSON200 == nil {
					return fmt.Errorf("status %d", res.StatusCode())
				}
				got = res.JSON200
				return nil
			},
		},
		Result: map[string]func() any{
			"ListPets": func() any {
				out := make([]petstore.Pet, len(pets))
				for i, p := range pets {
					out[i] = fromOapi(p)
				}
				return out
			},
			"CreatePet": func() any { return fromOapi(*pet) },
			"GetPet":    func() any { return fromOapi(*got) },

			OpListPetsNonASCII: func() any { return fromOapiPets(pets) },
		},
	}
}
