package bench

import (
	"context"
	"net/http"

	petstore "github.com/petstore/petstore-go"
)

func newSDK(name, baseURL string, hc *http.Client, extra ...petstore.Option) (*Client, error) {
	opts := append([]petstore.Option{petstore.WithBaseURL(baseURL)}, extra...)
	if hc != nil {
		opts = append(opts, petstore.WithHTTPClient(hc))
	}
	c, err := petstore.NewClient(Key, opts...)
	if err != nil {
		return nil, err
	}
	return adapt(func() *Client { return sdkCalls(name, c) }), nil
}

// sdkCalls returns the calls through c, keeping results of their own.
func sdkCalls(name string, c *petstore.Client) *Client {
	var (
		pets []petstore.Pet
		pet  *petstore.Pet
		got  *petstore.Pet
	)
	return &Client{
		Name: name,
		Call: map[string]func(context.Context) error{
			"ListPets": func(ctx context.Context) (err error) {
				pets, err = c.ListPets(ctx, petstore.ListPetsParams{Limit: 100})
				return err
			},
			OpListPetsNonASCII: func(ctx context.Context) (err error) {
				pets, err = c.ListPets(ctx, petstore.ListPetsParams{Limit: 100, Status: petstore.PetStatusAvailable})
				return err
			},
			"CreatePet": func(ctx context.Context) (err error) {
				pet, err = c.CreatePet(ctx, NewPet)
				return err
			},
			"GetPet": func(ctx context.Context) (err error) {
				//lint:ignore SA1019 the deprecated operation is measured too
				got, err = c.GetPet(ctx, 42)
				return err
			},
		},
		Result: map[string]func() any{
			"ListPets":  func() any { return pets },
			"CreatePet": func() any { return *pet },
			"GetPet":    func() any { return *got },

			OpListPetsNonASCII: func() any { return pets },
		},
	}
}
