//go:build unix

package nginxtest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/petstore/petstore-go"
)

// Fake is a petstore-fake process that this package started.
type Fake struct {
	URL  string // its base URL, http://127.0.0.1:PORT/v1
	Addr string // its host:port
	Key  string // its API key

	cmd  *exec.Cmd
	done chan struct{}
}

// FakeLog is the file, in the fake's directory, that holds its stderr.
const FakeLog = "fake.log"

// StartFake builds cmd/petstore-fake into dir and starts it on a loopback
// port, with its stderr in dir/FakeLog. It returns once the fake accepts
// connections: it prints its two export lines then. The caller must Stop it.
func StartFake(dir string) (*Fake, error) {
	bin := filepath.Join(dir, "petstore-fake")
	build := exec.Command("go", "build", "-o", bin, "github.com/petstore/petstore-go/cmd/petstore-fake")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/petstore-fake: %v\n%s", err, out)
	}
	logFile, err := os.Create(filepath.Join(dir, FakeLog))
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	cmd.SysProcAttr = childAttr()
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	f := &Fake{cmd: cmd, done: make(chan struct{})}
	env, err := readExports(stdout)
	go func() {
		_, _ = io.Copy(io.Discard, stdout) // nothing more is written there; wait for its end
		_ = cmd.Wait()
		close(f.done)
	}()
	if err != nil {
		f.Stop()
		log, _ := os.ReadFile(logFile.Name())
		return nil, fmt.Errorf("petstore-fake's export lines: %v\n%s", err, log)
	}
	f.URL, f.Key = env["PETSTORE_BASE_URL"], env["PETSTORE_API_KEY"]
	f.Addr = strings.TrimSuffix(strings.TrimPrefix(f.URL, "http://"), "/v1")
	return f, nil
}

// readExports reads the fake's two lines, export NAME=VALUE, the value
// quoted as a POSIX shell reads it, if at all.
func readExports(r io.Reader) (map[string]string, error) {
	sc := bufio.NewScanner(r)
	env := map[string]string{}
	for len(env) < 2 && sc.Scan() {
		name, value, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		if !ok {
			return nil, fmt.Errorf("line %q is not export NAME=VALUE", sc.Text())
		}
		if len(value) >= 2 && value[0] == '\'' && value[len(value)-1] == '\'' {
			value = strings.ReplaceAll(value[1:len(value)-1], `'\''`, `'`)
		}
		env[name] = value
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if env["PETSTORE_BASE_URL"] == "" || env["PETSTORE_API_KEY"] == "" {
		return nil, fmt.Errorf("got %d of the two lines", len(env))
	}
	return env, nil
}

// Pets returns every animal the fake holds, as its control API's
// GET /_fake/pets gives them: what it stored, not what clients were told.
func (f *Fake) Pets(ctx context.Context) ([]petstore.Pet, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(f.URL, "/v1")+"/_fake/pets", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+f.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return nil, fmt.Errorf("GET /_fake/pets: %s: %s", resp.Status, body)
	}
	var pets []petstore.Pet
	if err := json.NewDecoder(resp.Body).Decode(&pets); err != nil {
		return nil, fmt.Errorf("GET /_fake/pets: %v", err)
	}
	return pets, nil
}

// Stop stops the fake (SIGINT, as Ctrl-C would) and waits for it to exit.
func (f *Fake) Stop() {
	_ = f.cmd.Process.Signal(os.Interrupt)
	<-f.done
}
