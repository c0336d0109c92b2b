package remote

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Source is a CRD source given as a URL, optionally pinned to the SHA-256
// of its content.
type Source struct {
	// URL is the address without the "#sha256=" pin.
	URL string
	// SHA256 is the pinned digest in lower-case hex, "" when not pinned.
	SHA256 string
}

// String is the source as the user writes it.
func (s Source) String() string {
	if s.SHA256 == "" {
		return s.URL
	}
	return s.URL + "#sha256=" + s.SHA256
}

// IsURL reports whether a CRD source is meant as a URL (it has a scheme),
// as opposed to a local path. ParseSource says whether it is a good one.
func IsURL(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 {
		return false
	}
	for _, c := range s[:i] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// ParseSource parses "https://host/path[#sha256=HEX]".
//
// Plain http:// is refused unless pinned: without TLS anyone on the path
// can swap the CRDs the custom resources are judged against, and a pin
// is the only other integrity there is. The error says so.
func ParseSource(s string) (Source, error) {
	raw, pin, _ := strings.Cut(s, "#")
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return Source{}, fmt.Errorf("invalid URL: %v", err)
	}
	src := Source{URL: raw}
	if strings.Contains(s, "#") {
		d, ok := strings.CutPrefix(pin, "sha256=")
		if !ok {
			return Source{}, fmt.Errorf("unknown URL fragment %q: the only one is #sha256=HEX, the pinned digest", "#"+pin)
		}
		if len(d) != 64 {
			return Source{}, fmt.Errorf("#sha256= needs 64 hexadecimal digits, got %d", len(d))
		}
		if _, err := hex.DecodeString(d); err != nil {
			return Source{}, fmt.Errorf("#sha256= needs 64 hexadecimal digits: %q is not hexadecimal", d)
		}
		src.SHA256 = strings.ToLower(d)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if src.SHA256 == "" {
			return Source{}, errors.New("plain http:// is refused: anyone on the way could change the CRDs; use https:// or pin the content with #sha256=HEX")
		}
	default:
		return Source{}, fmt.Errorf("unsupported URL scheme %q: use https://", u.Scheme)
	}
	if u.Host == "" {
		return Source{}, errors.New("URL has no host")
	}
	if u.User != nil {
		return Source{}, errors.New("credentials in the URL are not supported (they would be printed in reports and errors)")
	}
	return src, nil
}
