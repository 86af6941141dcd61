package main

import (
	"archive/tar"
	"bufio"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/petstore/petstore-go"
)

// liveness bounds every wait on the program: a guard against a hang, not
// a timing expectation.
const liveness = 30 * time.Second

// TestImage builds the program and the image, writes the image as an OCI
// layout and as a tarball, reads both back and checks the config (against
// the Dockerfile too), then runs the program unpacked from the layer as
// the image would: no arguments, only the image's environment, as its
// user when the test runs as root. It probes /_fake/health, with the
// image's own HEALTHCHECK command too, and one authorized ListPets with
// the documented key.
//
// The image serves on 0.0.0.0:8080, so the program listens on every
// interface for the few seconds of the test; the test speaks to it on
// 127.0.0.1 only. Port 8080 may be taken on a developer's machine: then
// the test skips, unless CI or PETSTORE_IMAGE_TEST=required is set, where
// it fails.
func TestImage(t *testing.T) {
	dir := t.TempDir()
	bin, err := buildProgram(dir, runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	checkStatic(t, bin)
	img, err := buildImage(bin, runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}

	// Written and read back, both ways: the same image.
	oci := filepath.Join(dir, "oci")
	tarFile := filepath.Join(dir, "image.tar")
	if err := run(io.Discard, options{oci: oci, tarFile: tarFile, bin: bin, arch: runtime.GOARCH, tag: imageName + ":test"}); err != nil {
		t.Fatal(err)
	}
	fromLayout := readLayout(t, oci)
	fromTar, err := tarball.ImageFromPath(tarFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := img.ConfigName()
	if err != nil {
		t.Fatal(err)
	}
	for what, read := range map[string]v1.Image{"OCI layout": fromLayout, "tarball": fromTar} {
		if got, err := read.ConfigName(); err != nil || got != want {
			t.Errorf("%s: config %v (%v), want %v", what, got, err, want)
		}
	}

	cf, err := fromLayout.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	checkConfig(t, cf)
	checkDockerfile(t, cf.Config)

	root := unpack(t, fromLayout)
	runImage(t, root, cf.Config)
}

// checkStatic checks that bin is a static executable: no interpreter, no
// shared library, as an image with nothing else needs.
func checkStatic(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has an interpreter (PT_INTERP): not static", bin)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v: not static", bin, libs)
	}
}

// readLayout returns the one image of the OCI layout in dir, named
// imageName:test, with OCI's media types in the index.
func readLayout(t *testing.T, dir string) v1.Image {
	t.Helper()
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != imageName+":test" {
		t.Fatalf("OCI layout index: %+v, want one image named %s:test", m.Manifests, imageName)
	}
	if m.MediaType != ociIndex || m.Manifests[0].MediaType != ociManifest {
		t.Errorf("OCI layout index: media type %s, its image's %s; want OCI's, %s and %s", m.MediaType, m.Manifests[0].MediaType, ociIndex, ociManifest)
	}
	img, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// checkConfig checks what the image runs, as whom, with which environment.
func checkConfig(t *testing.T, cf *v1.ConfigFile) {
	t.Helper()
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH {
		t.Errorf("platform %s/%s, want linux/%s", cf.OS, cf.Architecture, runtime.GOARCH)
	}
	want := v1.Config{
		Env:          []string{"PETSTORE_FAKE_ADDR=0.0.0.0:8080", "PETSTORE_FAKE_ALLOW_REMOTE=true", "PETSTORE_FAKE_KEY=" + testKey},
		Entrypoint:   []string{"/petstore-fake"},
		ExposedPorts: map[string]struct{}{"8080/tcp": {}},
		User:         "65532:65532",
		Healthcheck: &v1.HealthConfig{Test: []string{"CMD", "/petstore-fake", "-healthcheck"},
			Interval: 5 * time.Second, Timeout: 3 * time.Second, StartPeriod: 5 * time.Second, Retries: 3},
	}
	got := cf.Config
	got.Labels = nil // informative only
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("image config mismatch (-want +got):\n%s", diff)
	}
	if v := cf.Config.Labels["org.opencontainers.image.version"]; v != petstore.Version {
		t.Errorf("version label %q, want %q", v, petstore.Version)
	}
}

// checkDockerfile checks that cmd/petstore-fake/Dockerfile builds the same
// image: the final stage's ENV, ENTRYPOINT, CMD, EXPOSE, USER and
// HEALTHCHECK say what the config says, and the README documents the key.
func checkDockerfile(t *testing.T, cfg v1.Config) {
	t.Helper()
	data, err := os.ReadFile("../../cmd/petstore-fake/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	_, final, ok := strings.Cut(string(data), "\nFROM scratch\n")
	if !ok {
		t.Fatal("Dockerfile: no final stage FROM scratch")
	}
	got := map[string]string{}
	for _, line := range strings.Split(final, "\n") {
		if inst, args, ok := strings.Cut(strings.TrimSpace(line), " "); ok && !strings.HasPrefix(inst, "#") {
			got[inst] += args
		}
	}
	quote := func(s []string) string { b, _ := json.Marshal(s); return strings.ReplaceAll(string(b), ",", ", ") }
	h := cfg.Healthcheck
	want := map[string]string{
		"COPY":        "--from=build /petstore-fake /petstore-fake",
		"ENV":         strings.Join(cfg.Env, " "),
		"ENTRYPOINT":  quote(cfg.Entrypoint),
		"EXPOSE":      "8080",
		"USER":        cfg.User,
		"HEALTHCHECK": "--interval=" + h.Interval.String() + " --timeout=" + h.Timeout.String() + " --start-period=" + h.StartPeriod.String() + " --retries=3 CMD " + quote(h.Test[1:]),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the Dockerfile's final stage and the image mismatch (-image +Dockerfile):\n%s", diff)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), testKey) {
		t.Errorf("README.md does not document the image's key %s", testKey)
	}
}

// unpack extracts the image's one layer into a new directory and returns
// it: the container's root file system. The layer must hold the program
// and nothing else.
func unpack(t *testing.T, img v1.Image) string {
	t.Helper()
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("image layers: %d (%v), want 1", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	root := t.TempDir()
	tr := tar.NewReader(rc)
	var names []string
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
		if hdr.Name != "petstore-fake" || hdr.Typeflag != tar.TypeReg || hdr.Mode != 0o755 || hdr.Uid != 0 {
			t.Fatalf("layer entry %q (type %c, mode %o, uid %d), want petstore-fake, a file, 0755, root's", hdr.Name, hdr.Typeflag, hdr.Mode, hdr.Uid)
		}
		f, err := os.OpenFile(filepath.Join(root, hdr.Name), os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(f, tr); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"petstore-fake"}, names); diff != "" {
		t.Fatalf("layer entries mismatch (-want +got):\n%s", diff)
	}
	return root
}

// runImage runs the entrypoint unpacked in root with no arguments and only
// the image's environment, probes it, and stops it.
func runImage(t *testing.T, root string, cfg v1.Config) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the image's program is for linux")
	}
	requirePort(t, "0.0.0.0:8080")
	asImageUser := containerUser(t, root, cfg.User)

	cmd := exec.Command(filepath.Join(root, cfg.Entrypoint[0]), cfg.Cmd...)
	cmd.Env, cmd.Dir, cmd.SysProcAttr = cfg.Env, root, asImageUser
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 2)
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })

	// The two export lines, once it listens.
	var exports []string
	timer := time.NewTimer(liveness)
	defer timer.Stop()
	for len(exports) < 2 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the program exited (%v) before it listened; stderr:\n%s", <-exited, stderr.String())
			}
			exports = append(exports, l)
		case <-timer.C:
			t.Fatalf("no export lines in %v; stderr:\n%s", liveness, stderr.String())
		}
	}
	wantExports := []string{"export PETSTORE_BASE_URL=http://127.0.0.1:8080/v1", "export PETSTORE_API_KEY=" + testKey}
	if diff := cmp.Diff(wantExports, exports); diff != "" {
		t.Errorf("export lines mismatch (-want +got):\n%s", diff)
	}

	// GET /_fake/health, without a key.
	resp, err := http.Get("http://127.0.0.1:8080/_fake/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != `{"status":"ok"}`+"\n" {
		t.Errorf("GET /_fake/health: %d %q, want 200 {\"status\":\"ok\"}", resp.StatusCode, body)
	}
	// The image's HEALTHCHECK, as a container runtime runs it.
	if code, out := healthcheck(t, root, cfg, asImageUser); code != 0 {
		t.Errorf("HEALTHCHECK %q: exit %d, want 0; output:\n%s", cfg.Healthcheck.Test, code, out)
	}
	// One authorized ListPets, with the documented key, through the SDK.
	c, err := petstore.NewClient(testKey, petstore.WithBaseURL("http://127.0.0.1:8080/v1"))
	if err != nil {
		t.Fatal(err)
	}
	pets, err := c.ListPets(context.Background(), petstore.ListPetsParams{})
	if err != nil || len(pets) != 0 {
		t.Errorf("ListPets with the image's key: %v, %v; want no animals, no error", pets, err)
	}

	// SIGTERM (docker stop) ends it with status 0; the health check then fails.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for range lines {
		t.Errorf("more output on stdout than the export lines")
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM: %v, want exit status 0; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(liveness):
		t.Fatalf("still running %v after SIGTERM", liveness)
	}
	if code, out := healthcheck(t, root, cfg, asImageUser); code != 1 {
		t.Errorf("HEALTHCHECK once stopped: exit %d, want 1; output:\n%s", code, out)
	}
	if strings.Contains(stderr.String(), testKey) {
		t.Errorf("the log holds the key:\n%s", stderr.String())
	}
}

// healthcheck runs the image's HEALTHCHECK command (CMD form) in root, with
// the image's environment, and returns its exit status and output.
func healthcheck(t *testing.T, root string, cfg v1.Config, attr *syscall.SysProcAttr) (int, string) {
	t.Helper()
	test := cfg.Healthcheck.Test
	if len(test) < 2 || test[0] != "CMD" {
		t.Fatalf("HEALTHCHECK %q, want the CMD form (no shell in the image)", test)
	}
	cmd := exec.Command(filepath.Join(root, test[1]), test[2:]...)
	cmd.Env, cmd.Dir, cmd.SysProcAttr = cfg.Env, root, attr
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// requirePort checks that addr is free to listen on. When it is not, the
// test skips, or fails under CI or PETSTORE_IMAGE_TEST=required.
func requirePort(t *testing.T, addr string) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err == nil {
		l.Close()
		return
	}
	msg := "the image serves on " + addr + ", which is taken here (" + err.Error() + "): free it to run the image's program"
	if os.Getenv("CI") != "" || os.Getenv("PETSTORE_IMAGE_TEST") == "required" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// containerUser returns the process attributes that run a program as the
// image's user ("UID:GID") when the test runs as root, after opening root
// (and the directories above it) to that user; nil otherwise, to run as
// the test's user.
func containerUser(t *testing.T, root, user string) *syscall.SysProcAttr {
	t.Helper()
	if os.Getuid() != 0 {
		t.Logf("not root: running the program as uid %d, not the image's %s", os.Getuid(), user)
		return nil
	}
	var uid, gid uint32
	if _, err := fmt.Sscanf(user, "%d:%d", &uid, &gid); err != nil {
		t.Fatalf("image user %q: want UID:GID", user)
	}
	tmp := filepath.Clean(os.TempDir())
	for d := root; strings.HasPrefix(d, tmp+string(filepath.Separator)); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// $TMPDIR and the directories above it are not the test's to open: one
	// that others cannot enter (mktemp -d makes it 0700) keeps the image's
	// user out.
	for d := tmp; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Logf("%s is closed to others (%v): running the program as root, not the image's %s", d, err, user)
			return nil
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
}
