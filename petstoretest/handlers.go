package petstoretest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/petstore/petstore-go"
)

// Limits of GET /pets, from the interface.
const (
	defaultLimit = 20
	maxLimit     = 100
)

// maxBody bounds a POST /pets body (a larger one answers 400).
const maxBody = 1 << 20

func (s *Server) listPets(w http.ResponseWriter, r *http.Request, _ []byte) {
	q := r.URL.Query()
	limit := defaultLimit
	if q.Has("limit") {
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n < 1 || n > maxLimit {
			writeError(w, http.StatusBadRequest, "invalid_parameter",
				"limit must be an integer from 1 to 100, got "+strconv.Quote(q.Get("limit")))
			return
		}
		limit = n
	}
	status := petstore.PetStatus(q.Get("status"))
	if q.Has("status") && !validStatus(status) {
		writeError(w, http.StatusBadRequest, "invalid_parameter",
			"status must be available, pending or sold, got "+strconv.Quote(string(status)))
		return
	}

	pets := make([]petstore.Pet, 0, limit)
	s.mu.Lock()
	for _, p := range s.pets {
		if len(pets) == limit {
			break
		}
		if status == "" || p.Status == status {
			pets = append(pets, p)
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, pets)
}

func (s *Server) createPet(w http.ResponseWriter, _ *http.Request, body []byte) {
	p, err := decodeNewPet(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_body", err.Error())
		return
	}
	s.mu.Lock()
	pet, ok := s.store(p)
	if ok {
		s.created = append(s.created, pet)
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusInsufficientStorage, "ids_exhausted", noIDLeft)
		return
	}
	writeJSON(w, http.StatusCreated, pet)
}

func (s *Server) getPet(w http.ResponseWriter, r *http.Request, _ []byte) {
	raw, _ := url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), basePath+"/pets/"))
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_parameter", "petId must be an integer, got "+strconv.Quote(raw))
		return
	}
	s.mu.Lock()
	var pet *petstore.Pet
	for i := range s.pets {
		if s.pets[i].ID == id {
			p := s.pets[i]
			pet = &p
			break
		}
	}
	s.mu.Unlock()
	if pet == nil {
		writeError(w, http.StatusNotFound, "not_found", "pet "+raw+" not found")
		return
	}
	writeJSON(w, http.StatusOK, pet)
}

// decodeNewPet reads a NewPet object and checks it the way the interface
// describes: name (a non-empty string) and categoryId (an integer) are
// required, status is optional and one of the PetStatus values, other fields
// are ignored.
func decodeNewPet(body []byte) (petstore.NewPet, error) {
	if len(body) > maxBody {
		return petstore.NewPet{}, errors.New("body is larger than 1 MiB")
	}
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&fields); err != nil {
		return petstore.NewPet{}, errors.New("body is not a JSON object: " + err.Error())
	}
	if fields == nil {
		return petstore.NewPet{}, errors.New("body is not a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return petstore.NewPet{}, errors.New("body has data after the JSON object")
	}

	var p petstore.NewPet
	name, ok := fields["name"]
	if !ok {
		return p, errors.New("name is required")
	}
	if !isJSONString(name) || json.Unmarshal(name, &p.Name) != nil {
		return p, errors.New("name must be a string")
	}
	if p.Name == "" {
		return p, errors.New("name must not be empty")
	}
	cat, ok := fields["categoryId"]
	if !ok {
		return p, errors.New("categoryId is required")
	}
	if n, err := strconv.ParseInt(string(cat), 10, 64); err != nil {
		return p, errors.New("categoryId must be an integer")
	} else {
		p.CategoryID = n
	}
	if st, ok := fields["status"]; ok {
		if !isJSONString(st) || json.Unmarshal(st, &p.Status) != nil || !validStatus(p.Status) {
			return p, errors.New("status must be available, pending or sold")
		}
	}
	return p, nil
}

// isJSONString reports whether a raw JSON value is a string (not null, a
// number, ...).
func isJSONString(raw json.RawMessage) bool {
	return len(raw) > 0 && raw[0] == '"'
}

func validStatus(st petstore.PetStatus) bool {
	switch st {
	case petstore.PetStatusAvailable, petstore.PetStatusPending, petstore.PetStatusSold:
		return true
	}
	return false
}

// errorBody is the interface's Error object.
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status"`
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, errorBody{Code: code, Message: message, Status: status})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		// Only our own types are encoded: this cannot happen.
		panic("petstoretest: " + err.Error())
	}
	writeBody(w, status, "application/json", buf.Bytes())
}

// writeBody sends the whole answer in one Write, with its Content-Length:
// answerWriter cuts a body short in that Write.
func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
