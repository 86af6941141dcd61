package petstore

import (
	"errors"
	"os"
	"strings"
)

// envAPIKey is the environment variable NewClient reads when it is given no key.
const envAPIKey = "PETSTORE_API_KEY"

// credential returns the API key and the Authorization header value made
// from it ({"Bearer <key>"}, shared by every request). It is a function, not
// a struct, because fmt never prints what a function holds: a Client printed
// with any verb, even a bad one such as %s or %d, shows an address there.
type credential func() (key string, header []string)

// resolveAPIKey returns the key to use: apiKey, else $PETSTORE_API_KEY.
// Empty or blank values count as unset.
func resolveAPIKey(apiKey string) (credential, error) {
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
	header := []string{"Bearer " + key}
	return func() (string, []string) { return key, header }, nil
}
