package petstore

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// PetStatus is an animal's availability. A Pet from the server may carry a
// value other than the three below; it is kept as it is.
type PetStatus string

// The availability statuses of the interface.
const (
	PetStatusAvailable PetStatus = "available"
	PetStatusPending   PetStatus = "pending"
	PetStatusSold      PetStatus = "sold"
)

// valid reports whether s is one of the three statuses.
func (s PetStatus) valid() bool {
	return s == PetStatusAvailable || s == PetStatusPending || s == PetStatusSold
}

// NewPet is an animal to add with [Client.CreatePet]. Name is required;
// CategoryID is sent as it is (the interface requires it but states no range);
// Status, when set, is one of the PetStatus constants.
type NewPet struct {
	Name       string    `json:"name"`
	CategoryID int64     `json:"categoryId"`
	Status     PetStatus `json:"status,omitempty"`
}

// Pet is an animal as the API returns it, with the ID the service assigned.
type Pet struct {
	ID         int64     `json:"id"`
	Name       string    `json:"name"`
	CategoryID int64     `json:"categoryId"`
	Status     PetStatus `json:"status,omitempty"`
}

// ListPetsParams filters [Client.ListPets]. The zero value asks for the
// server's defaults.
type ListPetsParams struct {
	Limit  int       // 0: the server's default (20); otherwise 1..100
	Status PetStatus // "": no filter
}

// ListPets returns the animals that match p, at most p.Limit of them (20 when
// it is 0). It returns an empty, non-nil slice when none match.
func (c *Client) ListPets(ctx context.Context, p ListPetsParams) ([]Pet, error) {
	if p.Limit < 0 || p.Limit > 100 {
		return nil, fmt.Errorf("%w: ListPetsParams.Limit is %d; want 1..100, or 0 for the server's default", ErrInvalidParams, p.Limit)
	}
	if p.Status != "" && !p.Status.valid() {
		return nil, fmt.Errorf("%w: ListPetsParams.Status is %q; want available, pending, sold or empty", ErrInvalidParams, p.Status)
	}
	// The query as url.Values.Encode writes it (keys sorted); the values
	// need no escaping: digits, and one of the three statuses.
	var query string
	if p.Limit != 0 || p.Status != "" {
		var buf [48]byte
		q := buf[:0]
		if p.Limit != 0 {
			q = strconv.AppendInt(append(q, "limit="...), int64(p.Limit), 10)
		}
		if p.Status != "" {
			if len(q) > 0 {
				q = append(q, '&')
			}
			q = append(append(q, "status="...), p.Status...)
		}
		query = string(q)
	}
	body, err := c.do(ctx, opListPets, 0, query, nil)
	if err != nil {
		return nil, err
	}
	pets, err := decodePets(body)
	if err != nil {
		return nil, decodeError(http.MethodGet, c.petsPath, err)
	}
	return pets, nil
}

// CreatePet adds an animal and returns it as the server stored it, with its
// new ID. It is retried only when the server cannot have acted on it (a 429,
// or no connection), so one call never creates two animals.
func (c *Client) CreatePet(ctx context.Context, p NewPet) (*Pet, error) {
	if p.Name == "" {
		return nil, fmt.Errorf("%w: NewPet.Name is empty", ErrInvalidParams)
	}
	if p.Status != "" && !p.Status.valid() {
		return nil, fmt.Errorf("%w: NewPet.Status is %q; want available, pending, sold or empty", ErrInvalidParams, p.Status)
	}
	in, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("petstore: CreatePet: %w", err)
	}
	body, err := c.do(ctx, opCreatePet, 0, "", in)
	if err != nil {
		return nil, err
	}
	pet, err := decodePet(body)
	if err != nil {
		return nil, decodeError(http.MethodPost, c.petsPath, err)
	}
	return pet, nil
}

// GetPet returns the animal with the given id; a missing one is an
// [*APIError] that matches [ErrNotFound].
//
// Deprecated: the API removes this endpoint on 5 December 2030. Use
// [Client.ListPets] with a Status filter instead.
func (c *Client) GetPet(ctx context.Context, id int64) (*Pet, error) {
	c.warnDeprecated(ctx)
	body, err := c.do(ctx, opGetPet, id, "", nil)
	if err != nil {
		return nil, err
	}
	pet, err := decodePet(body)
	if err != nil {
		return nil, decodeError(http.MethodGet, c.path(opGetPet, id), err)
	}
	return pet, nil
}

// decodeError reports a 2xx body that is not what the interface documents.
func decodeError(method, path string, err error) error {
	return fmt.Errorf("petstore: %s %s: unexpected response body: %w", method, path, err)
}
