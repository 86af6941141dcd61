module github.com/petstore/petstore-go/internal/fakeimage

// Go 1.25 or later: go-containerregistry v0.22.1's minimum (the SDK itself
// needs 1.23). An older go fetches go1.25.0 through the module proxy under
// GOTOOLCHAIN=auto, the default, and stops under GOTOOLCHAIN=local.
go 1.25.0

replace github.com/petstore/petstore-go => ../..

require (
	github.com/google/go-cmp v0.7.0
	github.com/google/go-containerregistry v0.22.1
	github.com/petstore/petstore-go v0.0.0
)

require (
	github.com/docker/cli v29.7.2+incompatible // indirect
	github.com/docker/docker-credential-helpers v0.9.3 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.1 // indirect
	github.com/sirupsen/logrus v1.9.4 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	gotest.tools/v3 v3.5.2 // indirect
)
