package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A node given a certificate in config.toml ([rpc] tls_cert_file,
// tls_key_file) serves its RPC over TLS: the CLI reaches it with --ca, and
// refuses it with another CA, or with none (the system's).
func TestRPCOverTLS(t *testing.T) {
	runAlone(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	mustRun(t, "init", "--home", home, "--open")
	add := exec.Command(relchainBin, "gateway", "users", "add", "carol", "--home", home, "--password-stdin")
	add.Stdin = strings.NewReader("pw-carol\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("users add: %v\n%s", err, out)
	}
	ca, caKey := newCA(t, "relchain test CA")
	other, _ := newCA(t, "another CA")
	caFile, otherFile := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "other.pem")
	writePEM(t, caFile, "CERTIFICATE", ca.Raw)
	writePEM(t, otherFile, "CERTIFICATE", other.Raw)
	certFile, keyFile := filepath.Join(dir, "rpc.pem"), filepath.Join(dir, "rpc-key.pem")
	issueServerCert(t, ca, caKey, certFile, keyFile)

	rpcPort, p2pPort := freePort(t), freePort(t)
	cfgPath := filepath.Join(home, "config", "config.toml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(cfg)
	s = regexp.MustCompile(`(?m)^laddr = "tcp://[^"]*:26657"`).ReplaceAllString(s, fmt.Sprintf(`laddr = "tcp://127.0.0.1:%d"`, rpcPort))
	s = regexp.MustCompile(`(?m)^laddr = "tcp://[^"]*:26656"`).ReplaceAllString(s, fmt.Sprintf(`laddr = "tcp://127.0.0.1:%d"`, p2pPort))
	s = strings.Replace(s, `tls_cert_file = ""`, fmt.Sprintf("tls_cert_file = %q", certFile), 1)
	s = strings.Replace(s, `tls_key_file = ""`, fmt.Sprintf("tls_key_file = %q", keyFile), 1)
	if !strings.Contains(s, certFile) || !strings.Contains(s, fmt.Sprintf("127.0.0.1:%d", rpcPort)) {
		t.Fatalf("could not set the RPC address and certificate in config.toml:\n%s", s)
	}
	if err := os.WriteFile(cfgPath, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	pgAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	nodeCmd := exec.Command(relchainBin, "node", "--home", home, "--pg-listen", pgAddr)
	nodeCmd.Stdout, nodeCmd.Stderr = &log, &log
	if err := nodeCmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = nodeCmd.Process.Signal(os.Interrupt)
		_ = nodeCmd.Wait()
		if t.Failed() {
			t.Logf("node log:\n%s", tail(log.Bytes(), 4000))
		}
	})

	url := fmt.Sprintf("https://127.0.0.1:%d", rpcPort)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out []byte
	if err := waitFor(ctx, "the node's RPC over TLS", func() bool {
		out, err = exec.Command(relchainBin, "status", "--node", url, "--ca", caFile).CombinedOutput()
		return err == nil
	}); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("status over TLS: %s", strings.TrimSpace(string(out)))
	out, err = exec.Command(relchainBin, "query", "--node", url, "--ca", caFile, "SELECT 1").CombinedOutput()
	if err != nil {
		t.Fatalf("query over TLS: %v\n%s", err, out)
	}

	// The node's PostgreSQL listener submits writes to its own RPC, over
	// TLS now.
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://carol:pw-carol@%s/relchain?sslmode=disable", pgAddr))
	if err != nil {
		t.Fatalf("the node's PostgreSQL listener: %v", err)
	}
	defer conn.Close(ctx)
	mustPgxExec(t, conn, `CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)`)
	mustPgxExec(t, conn, `INSERT INTO notes (id, body) VALUES ($1, $2)`, int64(1), "over TLS")

	out, err = exec.Command(relchainBin, "status", "--node", url, "--ca", otherFile).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not signed by a trusted CA") {
		t.Fatalf("status with the wrong CA: %v\n%s", err, out)
	}
	t.Logf("wrong CA: %s", strings.TrimSpace(string(out)))
	cmd := exec.Command(relchainBin, "status", "--node", url)
	cmd.Env = append(os.Environ(), "RELCHAIN_CA=")
	if out, err = cmd.CombinedOutput(); err == nil {
		t.Fatalf("status without the CA succeeded:\n%s", out)
	}
	cmd = exec.Command(relchainBin, "status", "--node", url)
	cmd.Env = append(os.Environ(), "RELCHAIN_CA="+caFile)
	if out, err = cmd.CombinedOutput(); err != nil {
		t.Fatalf("status with RELCHAIN_CA: %v\n%s", err, out)
	}
}

// testnet --hosts writes CometBFT's production p2p settings.
func TestTestnetHostsProductionP2P(t *testing.T) {
	runAlone(t) // no network: runs once, in the job of the tests that run alone
	dir := filepath.Join(t.TempDir(), "net")
	mustRun(t, "testnet", "--validators", "4", "--output", dir, "--hosts", "10.0.0.1,10.0.0.2,10.0.0.3,10.0.0.4")
	for i := 0; i < 4; i++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("node%d", i), "config", "config.toml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"addr_book_strict = true", "allow_duplicate_ip = false"} {
			if !strings.Contains(string(b), want) {
				t.Fatalf("node%d's config.toml lacks %q", i, want)
			}
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func newCA(t *testing.T, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func issueServerCert(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, certFile, "CERTIFICATE", der)
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, keyFile, "EC PRIVATE KEY", kb)
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
