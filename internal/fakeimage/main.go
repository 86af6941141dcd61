// Fakeimage builds the container image of cmd/petstore-fake without a
// Docker daemon, with go-containerregistry: the image that
// cmd/petstore-fake/Dockerfile describes, for a machine (or a CI job) that
// has Go and no Docker. It holds one layer, the program built static
// (CGO_ENABLED=0) at /petstore-fake, and a config that serves the fake on
// 0.0.0.0:8080 with the fixed test key pst_fake_test_key, as user
// 65532:65532, with a HEALTHCHECK through petstore-fake -healthcheck:
//
//	cd internal/fakeimage
//	go run . -oci /tmp/petstore-fake-oci    # an OCI image layout (for skopeo, crane, podman)
//	go run . -tar /tmp/petstore-fake.tar    # a tarball for docker load -i
//
// Without -bin it builds the program from this repository, for linux and
// -arch (default: this machine's). Its test builds the image, checks the
// config against the Dockerfile, and runs the program unpacked from the
// layer with only the image's environment.
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/petstore/petstore-go"
)

// The image, as cmd/petstore-fake/Dockerfile has it (the test holds them
// in step).
const (
	// imageName is a placeholder until the image is published.
	imageName = "ghcr.io/petstore/petstore-fake"
	// testKey is the image's PETSTORE_FAKE_KEY: a fixed key for tests,
	// documented in the README, not a secret. A job sets its own with
	// PETSTORE_FAKE_KEY.
	testKey = "pst_fake_test_key"
	// binPath is where the program is in the image.
	binPath = "/petstore-fake"
	port    = "8080"
	user    = "65532:65532" // nonroot, as in distroless images
)

// imageConfig returns the config of the image: what it runs, as whom, with
// which environment, and how its health is checked.
func imageConfig() v1.Config {
	return v1.Config{
		Env: []string{
			"PETSTORE_FAKE_ADDR=0.0.0.0:" + port,
			"PETSTORE_FAKE_ALLOW_REMOTE=true",
			"PETSTORE_FAKE_KEY=" + testKey,
		},
		Entrypoint:   []string{binPath},
		ExposedPorts: map[string]struct{}{port + "/tcp": {}},
		User:         user,
		Healthcheck: &v1.HealthConfig{
			Test:        []string{"CMD", binPath, "-healthcheck"},
			Interval:    5 * time.Second,
			Timeout:     3 * time.Second,
			StartPeriod: 5 * time.Second,
			Retries:     3,
		},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "petstore-fake",
			"org.opencontainers.image.description": "The fake Pet Store API of petstore-go, for tests and CI services",
			"org.opencontainers.image.source":      "https://github.com/petstore/petstore-go",
			"org.opencontainers.image.version":     petstore.Version,
		},
	}
}

func main() {
	oci := flag.String("oci", "", "write the image as an OCI image layout in `DIR`")
	tarFile := flag.String("tar", "", "write the image as a tarball for docker load in `FILE`")
	bin := flag.String("bin", "", "the static linux program to put in the image (default: build cmd/petstore-fake)")
	arch := flag.String("arch", runtime.GOARCH, "the image's architecture (GOARCH)")
	tag := flag.String("tag", imageName+":"+petstore.Version, "the image's name in the tarball and the layout")
	flag.Parse()
	if err := run(*oci, *tarFile, *bin, *arch, *tag); err != nil {
		fmt.Fprintln(os.Stderr, "fakeimage:", err)
		os.Exit(1)
	}
}

// run builds the program (unless bin names one) and the image, and writes
// it where oci and tarFile say.
func run(oci, tarFile, bin, arch, tag string) error {
	if oci == "" && tarFile == "" {
		return errors.New("nothing to write: give -oci DIR, -tar FILE or both")
	}
	if bin == "" {
		dir, err := os.MkdirTemp("", "fakeimage")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if bin, err = buildProgram(dir, arch); err != nil {
			return err
		}
	}
	img, err := buildImage(bin, arch)
	if err != nil {
		return err
	}
	if oci != "" {
		if err := writeLayout(oci, img, tag); err != nil {
			return err
		}
	}
	if tarFile != "" {
		ref, err := name.NewTag(tag)
		if err != nil {
			return err
		}
		if err := tarball.WriteToFile(tarFile, ref, img); err != nil {
			return err
		}
	}
	return nil
}

// buildProgram builds cmd/petstore-fake static for linux/arch into dir, in
// the repository's own module (found through this module's replace), as
// the Dockerfile does, and returns its path.
func buildProgram(dir, arch string) (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/petstore/petstore-go").Output()
	if err != nil {
		return "", fmt.Errorf("finding the repository: go list -m: %v", err)
	}
	bin := filepath.Join(dir, "petstore-fake")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./cmd/petstore-fake")
	cmd.Dir = strings.TrimSpace(string(out))
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/petstore-fake: %v\n%s", err, out)
	}
	return bin, nil
}

// buildImage returns the image: an empty base, one layer holding the
// program bin at binPath, and imageConfig. Its timestamps are the Unix
// epoch, so that the same program gives the same image.
func buildImage(bin, arch string) (v1.Image, error) {
	layerTar, err := programTar(bin)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	})
	if err != nil {
		return nil, err
	}
	img, err := mutate.Append(empty.Image, mutate.Addendum{
		Layer:   layer,
		History: v1.History{CreatedBy: "COPY petstore-fake " + binPath + " # fakeimage", Created: v1.Time{Time: time.Unix(0, 0).UTC()}},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", arch
	cf.Created = v1.Time{Time: time.Unix(0, 0).UTC()}
	cf.Config = imageConfig()
	return mutate.ConfigFile(img, cf)
}

// programTar returns a tar archive holding the file bin as binPath,
// executable by anyone, owned by root.
func programTar(bin string) ([]byte, error) {
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     strings.TrimPrefix(binPath, "/"),
		Mode:     0o755,
		Size:     int64(len(data)),
		ModTime:  time.Unix(0, 0),
		Format:   tar.FormatPAX,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(data); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeLayout writes img as an OCI image layout in dir, named tag.
func writeLayout(dir string, img v1.Image, tag string) error {
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	return p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": tag,
	}))
}
