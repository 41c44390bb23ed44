package client

import (
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// Options are a client's connection settings beyond its URL and key.
type Options struct {
	// CAFile is a PEM file of the certificate authorities that may sign an
	// https node's certificate, instead of the system's.
	CAFile string
	// TLS, when not nil, is the TLS configuration for an https node
	// (CAFile is then ignored).
	TLS *tls.Config
}

// NewWithOptions is New with connection settings o.
func NewWithOptions(url string, key ed25519.PrivateKey, o Options) (*Client, error) {
	tc := o.TLS
	if tc == nil && o.CAFile != "" {
		var err error
		if tc, err = TLSConfig(o.CAFile); err != nil {
			return nil, err
		}
	}
	return newClient(url, key, tc)
}

// TLSConfig is the TLS configuration of a client that trusts only the
// certificate authorities in the PEM file caFile.
func TLSConfig(caFile string) (*tls.Config, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("read the CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("the CA file %s holds no PEM certificate", caFile)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// tlsHint explains a certificate the client does not trust.
func tlsHint(err error) string {
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	switch {
	case errors.As(err, &ua):
		return " (the node's TLS certificate is not signed by a trusted CA: give the CA that signed it with --ca FILE)"
	case errors.As(err, &hn):
		return " (the node's TLS certificate is not for this host name: use the name it was issued for in --node)"
	case errors.As(err, &ci):
		return " (the node's TLS certificate is invalid: expired, or not a server certificate)"
	}
	return ""
}
