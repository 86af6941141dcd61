module github.com/petstore/petstore-go

go 1.23

require github.com/hashicorp/go-retryablehttp v0.7.8

require github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
