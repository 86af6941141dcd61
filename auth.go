package petstore

import (
	"errors"
	"os"
	"strings"
)

// envAPIKey is the environment variable NewClient reads when it is given no key.
const envAPIKey = "PETSTORE_API_KEY"

// credential holds the bearer header. Client keeps it behind a pointer, so
// that printing a Client, or a struct that holds one, shows an address and
// never the key.
type credential struct {
	key    string
	header []string // {"Bearer <key>"}, shared by every request
}

// resolveAPIKey returns the key to use: apiKey, else $PETSTORE_API_KEY.
// Empty or blank values count as unset.
func resolveAPIKey(apiKey string) (*credential, error) {
	key := apiKey
	if strings.TrimSpace(key) == "" {
		key = os.Getenv(envAPIKey)
	}
	if strings.TrimSpace(key) == "" {
		return nil, ErrMissingAPIKey
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c == 0x7f {
			// Never show the key itself, not even part of it.
			return nil, errors.New("petstore: API key contains a control character (a stray newline?)")
		}
	}
	return &credential{key: key, header: []string{"Bearer " + key}}, nil
}
