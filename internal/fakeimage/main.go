// Fakeimage builds the container image of cmd/petstore-fake without a
// Docker daemon, with go-containerregistry: the image that
// cmd/petstore-fake/Dockerfile describes, for a machine (or a CI job) that
// has Go and no Docker. It holds one layer, the program built static
// (CGO_ENABLED=0) at /petstore-fake, and a config that serves the fake on
// 0.0.0.0:8080 with the fixed test key pst_fake_test_key, as user
// 65532:65532, with a HEALTHCHECK through petstore-fake -healthcheck. Its
// media types are OCI's (image index, manifest, config, gzip layer).
//
//	cd internal/fakeimage
//	go run . -push registry.example.com/team/petstore-fake:dev  # to a registry
//	go run . -oci /tmp/petstore-fake-oci    # an OCI image layout (for skopeo, crane, podman)
//	go run . -tar /tmp/petstore-fake.tar    # a tarball for docker load -i
//
// It needs Go 1.25 or later (go-containerregistry's minimum; the SDK needs
// 1.23): an older go fetches go1.25.0 through the module proxy, as
// GOTOOLCHAIN=auto (the default) allows, and stops with GOTOOLCHAIN=local.
//
// -push takes the credentials docker login or a credential helper stored
// (~/.docker/config.json, $DOCKER_CONFIG), else none; it speaks http to a
// registry on localhost, a loopback or a private (RFC 1918) address, and
// https elsewhere. Each of -oci, -tar and -push prints a line once done:
// where it wrote the image and its digests.
//
// Without -bin it builds the program from this repository, for linux and
// -arch (default: this machine's). Its test builds the image, checks the
// config against the Dockerfile, and runs the program unpacked from the
// layer with only the image's environment; another pushes the image to
// go-containerregistry's registry in memory and pulls it back.
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

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
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

// options are the command line's: where to write the image, and what to
// put in it.
type options struct {
	oci, tarFile, push string // where: an OCI layout, a tarball, a registry
	bin, arch, tag     string // what: the program (or ""), its GOARCH, the image's name
}

const usageHead = `usage: go run . [-push REF] [-oci DIR] [-tar FILE] [-bin FILE] [-arch GOARCH] [-tag NAME]

Builds the container image of cmd/petstore-fake without Docker (the image
cmd/petstore-fake/Dockerfile describes) and pushes it to a registry, writes
it as an OCI image layout, as a tarball for docker load, or all three. Needs
Go 1.25 or later (go-containerregistry's minimum).

`

func main() {
	var o options
	flag.StringVar(&o.push, "push", "", "push the image to the registry as `REF` (registry/repository:tag), with docker login's credentials")
	flag.StringVar(&o.oci, "oci", "", "write the image as an OCI image layout in `DIR`")
	flag.StringVar(&o.tarFile, "tar", "", "write the image as a tarball for docker load in `FILE`")
	flag.StringVar(&o.bin, "bin", "", "the static linux program to put in the image (default: build cmd/petstore-fake)")
	flag.StringVar(&o.arch, "arch", runtime.GOARCH, "the image's architecture (GOARCH)")
	flag.StringVar(&o.tag, "tag", imageName+":"+petstore.Version, "the image's name in the tarball and the layout")
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usageHead)
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(os.Stdout, o, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		fmt.Fprintln(os.Stderr, "fakeimage:", err)
		os.Exit(1)
	}
}

// run builds the program (unless o.bin names one) and the image, writes it
// where o says, with push (a registry's credentials, say) for -push, and
// writes a line to w for each place once it is written there.
func run(w io.Writer, o options, push ...remote.Option) error {
	if o.oci == "" && o.tarFile == "" && o.push == "" {
		return errors.New("nothing to write: give -push REF, -oci DIR, -tar FILE or several")
	}
	var ref name.Reference
	if o.push != "" {
		var err error
		if ref, err = name.ParseReference(o.push); err != nil {
			return fmt.Errorf("-push: %v", err)
		}
	}
	if o.bin == "" {
		dir, err := os.MkdirTemp("", "fakeimage")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if o.bin, err = buildProgram(dir, o.arch); err != nil {
			return err
		}
	}
	img, err := buildImage(o.bin, o.arch)
	if err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	config, err := img.ConfigName()
	if err != nil {
		return err
	}
	if o.oci != "" {
		if err := writeLayout(o.oci, img, o.tag); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s: an OCI image layout, %s@%s\n", o.oci, o.tag, digest)
	}
	if o.tarFile != "" {
		if err := writeTarball(o.tarFile, img, o.tag); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s: a tarball for docker load, %s, image ID %s\n", o.tarFile, o.tag, config)
	}
	if ref != nil {
		if err := remote.Write(ref, img, push...); err != nil {
			return fmt.Errorf("pushing to %s: %w", ref, err)
		}
		fmt.Fprintf(w, "pushed %s: %s@%s\n", ref, ref.Context(), digest)
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
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	// OCI's media types, not Docker's (go-containerregistry's default).
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
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

// writeTarball writes img as a tarball for docker load in file, named tag.
func writeTarball(file string, img v1.Image, tag string) error {
	ref, err := name.NewTag(tag)
	if err != nil {
		return err
	}
	return tarball.WriteToFile(file, ref, img)
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
