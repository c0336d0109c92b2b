package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTarget(t *testing.T) {
	for _, tt := range []struct {
		name       string
		files      []string // made in the directory first
		dir        string   // relative to it; "" is the directory itself
		want       string
		wantExists bool
		wantErr    string // with DIR for the directory
	}{
		{name: "empty", want: ".crdlint.yaml"},
		{name: "yaml there", files: []string{".crdlint.yaml"}, want: ".crdlint.yaml", wantExists: true},
		{name: "yml there", files: []string{".crdlint.yml"}, want: ".crdlint.yml", wantExists: true},
		{name: "both there", files: []string{".crdlint.yml", ".crdlint.yaml"}, want: ".crdlint.yaml", wantExists: true},
		{name: "missing", dir: "nope", wantErr: "read DIR/nope: no such file or directory"},
		{name: "a file", files: []string{"f"}, dir: "f", wantErr: "DIR/f is not a directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range tt.files {
				if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, exists, err := Target(filepath.Join(root, tt.dir))
			if tt.wantErr != "" {
				if want := strings.ReplaceAll(tt.wantErr, "DIR", root); err == nil || err.Error() != want {
					t.Fatalf("got %q, %v; want error %q", got, err, want)
				}
				return
			}
			if err != nil || got != filepath.Join(root, tt.want) || exists != tt.wantExists {
				t.Errorf("got %q, %t, %v; want %q, %t", got, exists, err, filepath.Join(root, tt.want), tt.wantExists)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	for _, tt := range []struct {
		name     string
		existing *os.FileMode // a file already there, with this mode
		exists   bool         // what Target said
		wantMode os.FileMode
		wantErr  string // with PATH for the file
	}{
		{name: "new", wantMode: 0o644},
		{name: "replaced, mode kept", existing: ptr(os.FileMode(0o600)), exists: true, wantMode: 0o600},
		{name: "appeared since Target looked", existing: ptr(os.FileMode(0o644)), wantErr: "write PATH: file exists"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".crdlint.yaml")
			if tt.existing != nil {
				if err := os.WriteFile(path, []byte("old\n"), *tt.existing); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, *tt.existing); err != nil {
					t.Fatal(err)
				}
			}
			err := Write(path, []byte("new\n"), tt.exists)
			if tt.wantErr != "" {
				if want := strings.ReplaceAll(tt.wantErr, "PATH", path); err == nil || err.Error() != want {
					t.Fatalf("got %v, want %q", err, want)
				}
				if b, _ := os.ReadFile(path); string(b) != "old\n" {
					t.Errorf("the file there was changed: %q", b)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil || string(b) != "new\n" {
				t.Fatalf("read %q, %v; want %q", b, err, "new\n")
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			// The umask may take bits away from a new file, never add them.
			if got := st.Mode().Perm(); got&^tt.wantMode != 0 || tt.existing != nil && got != tt.wantMode {
				t.Errorf("mode %v, want %v", got, tt.wantMode)
			}
		})
	}
}
