package pgwire

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"net/url"
	"testing"
	"time"
)

const (
	testUser     = "alice"
	testPassword = "s3cret pass"
)

// testServer is a running Server with fake sessions on a loopback port.
type testServer struct {
	srv   *Server
	addr  string
	stats *fakeStats
}

func (ts *testServer) host() string { h, _, _ := net.SplitHostPort(ts.addr); return h }
func (ts *testServer) port() string { _, p, _ := net.SplitHostPort(ts.addr); return p }

// dsn is a URL for user/password with extra query parameters (e.g. "sslmode=disable").
func (ts *testServer) dsn(user, password, query string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(user, password), Host: ts.addr,
		Path: "/testdb", RawQuery: query}
	return u.String()
}

var testVerifier = func() Verifier {
	v, err := NewVerifier(testPassword, 0)
	if err != nil {
		panic(err)
	}
	return v
}()

// startTestServer starts a server; configure may adjust it before Serve.
func startTestServer(t testing.TB, configure func(*Server)) *testServer {
	t.Helper()
	stats := newFakeStats()
	srv := &Server{
		Users: func(user string) (Verifier, bool) {
			if user == testUser {
				return testVerifier, true
			}
			return Verifier{}, false
		},
		NewSession: func(ctx context.Context, user string, params map[string]string) (Session, error) {
			if params["database"] == "missing" {
				return nil, &Error{Code: "3D000", Message: `database "missing" does not exist`}
			}
			stats.opened.Add(1)
			return &fakeSession{stats: stats}, nil
		},
		Logf: t.Logf,
	}
	if configure != nil {
		configure(srv)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.init() // before Serve, so the helpers reading srv's maps under its mutex never race Serve's init
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
		if o, c := stats.opened.Load(), stats.closed.Load(); o != c {
			t.Errorf("sessions opened %d, closed %d", o, c)
		}
	})
	return &testServer{srv: srv, addr: l.Addr().String(), stats: stats}
}

// selfSignedTLS returns a server TLS config with a fresh self-signed certificate for 127.0.0.1.
func selfSignedTLS(t testing.TB) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}
