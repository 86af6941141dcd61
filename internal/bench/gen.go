// Package bench compares the petstore SDK with other Go clients for the same
// interface: see run.sh.
package bench

// The peer clients are generated from the repo's OpenAPI description by the
// generator versions pinned in go.mod (tool directives):
// oapi-codegen v2.8.2 and ogen v1.24.0.

//go:generate sh -c "cd oapiclient && go tool oapi-codegen -config config.yaml ../../openapi/petstore.yaml"
//go:generate go tool ogen -config ogenclient/ogen.yml -target ogenclient -package ogenclient -clean ../openapi/petstore.yaml
