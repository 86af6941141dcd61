package main

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// imageFacts is what TestWrite compares of an image written and read back:
// its manifest (digest and media types) and its blobs' digests.
type imageFacts struct {
	Digest          v1.Hash // of the manifest
	MediaType       types.MediaType
	Config          v1.Hash
	ConfigMediaType types.MediaType
	Layers          []layerFacts
}

type layerFacts struct {
	Digest, DiffID v1.Hash
	MediaType      types.MediaType
}

// factsOf returns img's imageFacts, read from its manifest.
func factsOf(t *testing.T, img v1.Image) imageFacts {
	t.Helper()
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	digest, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	f := imageFacts{Digest: digest, MediaType: m.MediaType, Config: m.Config.Digest, ConfigMediaType: m.Config.MediaType}
	for i, l := range layers {
		diffID, err := l.DiffID()
		if err != nil {
			t.Fatal(err)
		}
		f.Layers = append(f.Layers, layerFacts{Digest: m.Layers[i].Digest, DiffID: diffID, MediaType: m.Layers[i].MediaType})
	}
	return f
}

// The media types an OCI image has, and the ones of Docker's that
// go-containerregistry gives an image by default.
const (
	ociIndex    = types.MediaType("application/vnd.oci.image.index.v1+json")
	ociManifest = types.MediaType("application/vnd.oci.image.manifest.v1+json")
	ociConfig   = types.MediaType("application/vnd.oci.image.config.v1+json")
	ociLayer    = types.MediaType("application/vnd.oci.image.layer.v1.tar+gzip")
)

// TestWrite builds the image of a stand-in program (the program itself is
// TestImage's) and writes it each way, and several at once: pushed to
// go-containerregistry's registry in memory, served on loopback, and
// pulled back; as an OCI layout and as a tarball, read back. Each must be
// the image built, with OCI's media types, and run must say, one line per
// place, where it wrote it and its digest. A push the registry refuses and
// a reference that does not parse fail, and say so.
func TestWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "program")
	if err := os.WriteFile(bin, []byte("a stand-in for petstore-fake\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	img, err := buildImage(bin, runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	want := factsOf(t, img)
	if diff := cmp.Diff(imageFacts{Digest: want.Digest, MediaType: ociManifest, Config: want.Config, ConfigMediaType: ociConfig,
		Layers: []layerFacts{{want.Layers[0].Digest, want.Layers[0].DiffID, ociLayer}}}, want); diff != "" {
		t.Fatalf("the image built: not one layer with OCI's media types (-want +got):\n%s", diff)
	}

	quiet := registry.Logger(log.New(io.Discard, "", 0))
	reg := httptest.NewServer(registry.New(quiet))
	t.Cleanup(reg.Close)
	refusing := httptest.NewServer(refuseManifests(registry.New(quiet)))
	t.Cleanup(refusing.Close)
	host := strings.TrimPrefix(reg.URL, "http://") // 127.0.0.1:port: go-containerregistry speaks http to loopback
	refusingHost := strings.TrimPrefix(refusing.URL, "http://")
	const tag = imageName + ":test"

	tests := []struct {
		name      string
		o         options
		wantLines []string // with <dir>, <host> and <digest>, <config> for the digests
		wantErr   string
	}{
		{name: "push", o: options{push: "<host>/petstore/fake:v1"},
			wantLines: []string{"pushed <host>/petstore/fake:v1: <host>/petstore/fake@<digest>"}},
		{name: "OCI layout", o: options{oci: "<dir>/oci"},
			wantLines: []string{"wrote <dir>/oci: an OCI image layout, " + tag + "@<digest>"}},
		{name: "tarball", o: options{tarFile: "<dir>/image.tar"},
			wantLines: []string{"wrote <dir>/image.tar: a tarball for docker load, " + tag + ", image ID <config>"}},
		{name: "all three", o: options{push: "<host>/petstore/fake:all", oci: "<dir>/oci", tarFile: "<dir>/image.tar"},
			wantLines: []string{
				"wrote <dir>/oci: an OCI image layout, " + tag + "@<digest>",
				"wrote <dir>/image.tar: a tarball for docker load, " + tag + ", image ID <config>",
				"pushed <host>/petstore/fake:all: <host>/petstore/fake@<digest>",
			}},
		{name: "nowhere", o: options{}, wantErr: "nothing to write"},
		{name: "a reference that does not parse", o: options{push: "<host>/Petstore/Fake:v1", oci: "<dir>/oci"}, wantErr: "-push: "},
		{name: "a registry that refuses", o: options{push: refusingHost + "/petstore/fake:v1"},
			wantErr: "pushing to " + refusingHost + "/petstore/fake:v1: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			expand := strings.NewReplacer("<dir>", dir, "<host>", host, "<digest>", want.Digest.String(), "<config>", want.Config.String()).Replace
			o := options{push: expand(tc.o.push), oci: expand(tc.o.oci), tarFile: expand(tc.o.tarFile), bin: bin, arch: runtime.GOARCH, tag: tag}
			var out bytes.Buffer
			err := run(&out, o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("run: error %v; want one saying %q", err, tc.wantErr)
				}
				if out.Len() > 0 || tc.o.oci != "" && exists(o.oci) {
					t.Errorf("run failed, but wrote %q and the layout exists: %v", out.String(), exists(o.oci))
				}
				return
			}
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			var wantOut string
			for _, l := range tc.wantLines {
				wantOut += expand(l) + "\n"
			}
			if diff := cmp.Diff(wantOut, out.String()); diff != "" {
				t.Errorf("output mismatch (-want +got):\n%s", diff)
			}
			if o.push != "" {
				checkPushed(t, o.push, want)
			}
			if o.oci != "" {
				checkLayout(t, o.oci, want)
			}
			if o.tarFile != "" {
				checkTarball(t, o.tarFile, want)
			}
		})
	}
}

// checkPushed pulls ref back from its registry and compares it with want,
// the image built, and the manifest's media type the registry serves.
func checkPushed(t *testing.T, ref string, want imageFacts) {
	t.Helper()
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	desc, err := remote.Get(r)
	if err != nil {
		t.Fatalf("pulling %s back: %v", ref, err)
	}
	if desc.MediaType != ociManifest || desc.Digest != want.Digest {
		t.Errorf("the registry serves %s as %s %s; want %s %s", ref, desc.MediaType, desc.Digest, ociManifest, want.Digest)
	}
	pulled, err := desc.Image()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, factsOf(t, pulled)); diff != "" {
		t.Errorf("pulled back from the registry: image mismatch (-want +got):\n%s", diff)
	}
}

// checkLayout reads the OCI layout in dir: the image built.
func checkLayout(t *testing.T, dir string, want imageFacts) {
	t.Helper()
	if diff := cmp.Diff(want, factsOf(t, readLayout(t, dir))); diff != "" {
		t.Errorf("OCI layout: image mismatch (-want +got):\n%s", diff)
	}
}

// checkTarball reads the tarball in file: docker load's format keeps the
// config and the layers, not the manifest.
func checkTarball(t *testing.T, file string, want imageFacts) {
	t.Helper()
	img, err := tarball.ImageFromPath(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := factsOf(t, img)
	type blobs struct {
		Config v1.Hash
		Layers []v1.Hash // diff IDs
	}
	diffIDs := func(layers []layerFacts) (ids []v1.Hash) {
		for _, l := range layers {
			ids = append(ids, l.DiffID)
		}
		return ids
	}
	wantBlobs, gotBlobs := blobs{want.Config, diffIDs(want.Layers)}, blobs{got.Config, diffIDs(got.Layers)}
	if diff := cmp.Diff(wantBlobs, gotBlobs); diff != "" {
		t.Errorf("tarball: config and layers mismatch (-want +got):\n%s", diff)
	}
}

// refuseManifests answers every manifest PUT with 403 DENIED, as a
// registry does to a push without the right to it, and passes the rest
// (the blobs' uploads) to next.
func refuseManifests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/manifests/") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"errors":[{"code":"DENIED","message":"requested access to the resource is denied"}]}`)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
