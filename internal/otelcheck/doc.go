// Package otelcheck holds the tests that back docs/observability.md's "Tracing with
// OpenTelemetry" section: a Client made with WithHTTPClient and a transport
// from otelhttp records one client span per attempt, with the method and the
// status, and no span carries the API key.
//
// It is a separate module so that OpenTelemetry never reaches the SDK's
// go.mod: the SDK does not depend on otel, and its users download otel only
// if they choose to trace. Run it with:
//
//	cd internal/otelcheck && go test -race ./...
package otelcheck
