//go:build unix

// Pingrtt measures how long nginx takes to answer an HTTP/2 PING on a
// quiet connection while 64 goroutines load it through the SDK's default
// transport, in the same process: the answer time that the shared
// transport's PingWait (internal/transport, Go 1.24) must stay far above,
// or it would close healthy connections. It reports the answer times'
// percentiles and maximum. Run it from within the repository (it builds
// cmd/petstore-fake):
//
//	go run ./internal/nginxtest/cmd/pingrtt [-calls 30000] [-g 64] [-every 20ms]
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/petstore/petstore-go/internal/nginxtest"
)

func main() {
	calls := flag.Int("calls", 30000, "calls of the load")
	goroutines := flag.Int("g", 64, "goroutines of the load")
	every := flag.Duration("every", 20*time.Millisecond, "time between PINGs")
	flag.Parse()
	if err := run(*calls, *goroutines, *every); err != nil {
		fmt.Fprintln(os.Stderr, "pingrtt:", err)
		os.Exit(1)
	}
}

func run(calls, goroutines int, every time.Duration) error {
	dir, err := os.MkdirTemp("", "pingrtt")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	pool, err := nginxtest.WriteCerts(dir)
	if err != nil {
		return err
	}
	os.Setenv("SSL_CERT_FILE", filepath.Join(dir, nginxtest.CAFile)) // before any TLS connection
	fake, err := nginxtest.StartFake(dir)
	if err != nil {
		return err
	}
	defer fake.Stop()
	ngx, err := nginxtest.Start(dir, nginxtest.Proxy{Certs: dir, Upstream: fake.Addr, KeepaliveRequests: 1000, Workers: 2})
	if err != nil {
		return err
	}
	defer ngx.Stop()
	c, err := nginxtest.NewCaller("default", ngx.H2URL, fake.Key, "pingrtt", pool)
	if err != nil {
		return err
	}
	conn, err := dialH2(strings.TrimSuffix(strings.TrimPrefix(ngx.H2URL, "https://"), "/v1"), pool)
	if err != nil {
		return err
	}
	defer conn.Close()

	done := make(chan nginxtest.Result)
	start := time.Now()
	go func() {
		done <- nginxtest.Run(context.Background(), c, nginxtest.Load{Goroutines: goroutines, Calls: calls, Prefix: "pingrtt"})
	}()
	var rtts []time.Duration
	for {
		select {
		case res := <-done:
			slices.Sort(rtts)
			fmt.Printf("%d calls (%d failed) from %d goroutines in %v; %d PINGs on a quiet connection: answered in p50 %v, p99 %v, p99.9 %v, max %v\n",
				calls, len(res.Errors), goroutines, time.Since(start).Round(time.Millisecond), len(rtts),
				nginxtest.Percentile(rtts, 50), nginxtest.Percentile(rtts, 99), nginxtest.Percentile(rtts, 99.9), nginxtest.Percentile(rtts, 100))
			return nil
		case <-time.After(every):
		}
		rtt, err := conn.ping()
		if err != nil {
			return err
		}
		rtts = append(rtts, rtt)
	}
}

// h2Conn is a bare HTTP/2 connection that sends PINGs and reads frames
// until their answers.
type h2Conn struct {
	*tls.Conn
	r *bufio.Reader
}

// dialH2 opens a TLS connection that speaks HTTP/2 (ALPN h2) to addr and
// sends the connection preface and empty SETTINGS.
func dialH2(addr string, pool *x509.CertPool) (*h2Conn, error) {
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, NextProtos: []string{"h2"}})
	if err != nil {
		return nil, err
	}
	if p := c.ConnectionState().NegotiatedProtocol; p != "h2" {
		c.Close()
		return nil, fmt.Errorf("ALPN picked %q, want h2", p)
	}
	if _, err := io.WriteString(c, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"); err != nil {
		c.Close()
		return nil, err
	}
	h := &h2Conn{Conn: c, r: bufio.NewReader(c)}
	if err := h.frame(0x4, 0, nil); err != nil { // SETTINGS
		c.Close()
		return nil, err
	}
	return h, nil
}

// frame writes one frame of type typ on stream 0.
func (c *h2Conn) frame(typ, flags byte, payload []byte) error {
	hdr := []byte{byte(len(payload) >> 16), byte(len(payload) >> 8), byte(len(payload)), typ, flags, 0, 0, 0, 0}
	_, err := c.Write(append(hdr, payload...))
	return err
}

// ping sends a PING and returns how long its ACK took, acknowledging the
// server's SETTINGS on the way.
func (c *h2Conn) ping() (time.Duration, error) {
	var data [8]byte
	start := time.Now()
	binary.BigEndian.PutUint64(data[:], uint64(start.UnixNano()))
	if err := c.frame(0x6, 0, data[:]); err != nil {
		return 0, err
	}
	for {
		var hdr [9]byte
		if _, err := io.ReadFull(c.r, hdr[:]); err != nil {
			return 0, err
		}
		payload := make([]byte, int(hdr[0])<<16|int(hdr[1])<<8|int(hdr[2]))
		if _, err := io.ReadFull(c.r, payload); err != nil {
			return 0, err
		}
		switch {
		case hdr[3] == 0x4 && hdr[4]&1 == 0: // SETTINGS: acknowledge
			if err := c.frame(0x4, 1, nil); err != nil {
				return 0, err
			}
		case hdr[3] == 0x6 && hdr[4]&1 == 1 && string(payload) == string(data[:]): // our PING's ACK
			return time.Since(start), nil
		}
	}
}
