// Package contract holds the contract tests of petstore-go: every request the
// SDK sends and every response the fake in package petstoretest returns is
// checked against the OpenAPI description in ../openapi/petstore.yaml with
// kin-openapi's openapi3filter.
//
// It is a separate module so that kin-openapi is never downloaded by the
// SDK's users. Run it with:
//
//	cd internal/contract && go test -race ./...
package contract
