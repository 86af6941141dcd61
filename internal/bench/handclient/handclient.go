// Package handclient is a minimal hand-written Pet Store client: net/http
// and encoding/json, no retries, no validation beyond the status code.
package handclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
)

// Pet is an animal as the API returns it.
type Pet struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status,omitempty"`
}

// NewPet is an animal to add.
type NewPet struct {
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status,omitempty"`
}

// Client calls the API at base (ending in /v1) with a bearer key.
type Client struct {
	base string
	auth string
	hc   *http.Client
}

// New returns a Client.
func New(base, key string, hc *http.Client) *Client {
	return &Client{base: base, auth: "Bearer " + key, hc: hc}
}

func (c *Client) do(ctx context.Context, method, url string, body io.Reader, want int, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", c.auth)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		_, _ = io.Copy(io.Discard, resp.Body)
		return fmt.Errorf("%s %s: status %d", method, url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return nil
}

// ListPets returns up to limit animals.
func (c *Client) ListPets(ctx context.Context, limit int) ([]Pet, error) {
	var pets []Pet
	err := c.do(ctx, http.MethodGet, c.base+"/pets?limit="+strconv.Itoa(limit), nil, http.StatusOK, &pets)
	return pets, err
}

// ListPetsByStatus returns up to limit animals with the given status.
func (c *Client) ListPetsByStatus(ctx context.Context, limit int, status string) ([]Pet, error) {
	var pets []Pet
	err := c.do(ctx, http.MethodGet, c.base+"/pets?limit="+strconv.Itoa(limit)+"&status="+url.QueryEscape(status), nil, http.StatusOK, &pets)
	return pets, err
}

// CreatePet adds an animal.
func (c *Client) CreatePet(ctx context.Context, p NewPet) (*Pet, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var pet Pet
	if err := c.do(ctx, http.MethodPost, c.base+"/pets", bytes.NewReader(b), http.StatusCreated, &pet); err != nil {
		return nil, err
	}
	return &pet, nil
}

// GetPet returns one animal.
func (c *Client) GetPet(ctx context.Context, id int64) (*Pet, error) {
	var pet Pet
	if err := c.do(ctx, http.MethodGet, c.base+"/pets/"+strconv.FormatInt(id, 10), nil, http.StatusOK, &pet); err != nil {
		return nil, err
	}
	return &pet, nil
}
