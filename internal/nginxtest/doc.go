// Package nginxtest runs the SDK behind a real proxy: Debian's nginx,
// terminating TLS with HTTP/2 (and, on a second port, HTTP/1.1 only) in
// front of a petstore-fake process, with a small keepalive_requests, so that
// nginx rotates client connections (a GOAWAY after every 50 requests, and on
// every reload) while 64 goroutines call through it.
//
// It is test infrastructure, imported only by its own test (which asserts
// counts: no caller error, no animal stored twice) and by cmd/nginxload
// (which reports the latency of the SDK and of plain net/http from one
// run, for the README). Both trust the test CA as a user would, through
// SSL_CERT_FILE, which Go reads once per process: they set it before
// anything in the process makes a TLS connection.
//
// nginx runs unprivileged where the test does (as root, nginx itself moves
// its workers to nobody), with its own prefix, configuration, pid and log
// files in a directory of the caller's.
package nginxtest
