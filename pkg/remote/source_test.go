package remote

import (
	"strings"
	"testing"
)

func TestParseSource(t *testing.T) {
	pin := strings.Repeat("ab", 32)
	tests := []struct {
		in, url, sha, err string
	}{
		{in: "https://example.com/crds.yaml", url: "https://example.com/crds.yaml"},
		{in: "https://example.com/crds.yaml#sha256=" + pin, url: "https://example.com/crds.yaml", sha: pin},
		{in: "https://example.com/crds.yaml#sha256=" + strings.ToUpper(pin), url: "https://example.com/crds.yaml", sha: pin},
		{in: "HTTPS://example.com/a?x=1", url: "HTTPS://example.com/a?x=1"},
		{in: "http://example.com/a#sha256=" + pin, url: "http://example.com/a", sha: pin},
		{in: "http://example.com/a", err: "plain http:// is refused"},
		{in: "ftp://example.com/a", err: `unsupported URL scheme "ftp"`},
		{in: "https://example.com/a#sha256=xyz", err: "needs 64 hexadecimal digits, got 3"},
		{in: "https://example.com/a#sha256=" + strings.Repeat("zz", 32), err: "is not hexadecimal"},
		{in: "https://example.com/a#frag", err: `unknown URL fragment "#frag"`},
		{in: "https://example.com/a#", err: `unknown URL fragment "#"`},
		{in: "https://u:p@example.com/a", err: "credentials in the URL"},
		{in: "https:///a", err: "no host"},
		{in: "https://exa mple.com/a", err: "invalid URL"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSource(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("ParseSource: %+v, %v; want an error containing %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got.URL != tt.url || got.SHA256 != tt.sha {
				t.Errorf("ParseSource = %+v, %v; want %s %s", got, err, tt.url, tt.sha)
			}
			if back, err := ParseSource(got.String()); err != nil || back != got {
				t.Errorf("String() does not parse back: %q", got.String())
			}
		})
	}
}

func TestIsURL(t *testing.T) {
	for s, want := range map[string]bool{
		"https://x/y": true, "http://x": true, "git+ssh://x": true, "ftp://x": true,
		"config/crd": false, "C:\\crds": false, "./a://b": false, "://x": false, "": false, "/abs/path": false,
	} {
		if got := IsURL(s); got != want {
			t.Errorf("IsURL(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzParseSource(f *testing.F) {
	f.Add("https://example.com/a.yaml#sha256=" + strings.Repeat("0", 64))
	f.Add("http://[::1]:80/a")
	f.Fuzz(func(t *testing.T, s string) {
		src, err := ParseSource(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
			return
		}
		if !IsURL(src.URL) {
			t.Fatalf("%q parsed but is not a URL", s)
		}
		if back, err := ParseSource(src.String()); err != nil || back != src {
			t.Fatalf("%q: String() %q parses to %+v, %v", s, src.String(), back, err)
		}
	})
}
