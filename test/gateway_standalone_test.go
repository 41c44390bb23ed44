package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/sqlcheck/pgclass"
)

// The standalone gateway (relchain gateway) in front of two nodes, with
// TLS required: sslmode=require connects and sslmode=disable is refused;
// when the node it prefers is killed, it goes on through the other;
// relchain.cross_check reads every node at one height.
func TestGatewayStandaloneTLSAndFailover(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cert, key := selfSignedCert(t)
	gctx, gcancel := context.WithTimeout(ctx, 30*time.Second)
	gw, err := gateway.Start(gctx, gateway.Config{Classifier: pgclass.Classifier{}, Listen: "127.0.0.1:0", Nodes: []string{c.nodes[1].RPC, c.nodes[2].RPC},
		UsersFile: node.PGConfig{}.UsersFile(c.nodes[0].Home), TLSCert: cert, TLSKey: key, RequireTLS: true})
	gcancel()
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	addr := gw.Addr().String()
	plain := pgURLAt(addr, "alice")
	if _, err := pgx.Connect(ctx, plain); err == nil || !strings.Contains(err.Error(), "TLS") {
		t.Fatalf("a connection without TLS: %v, want a refusal naming TLS", err)
	}
	secure := strings.Replace(plain, "sslmode=disable", "sslmode=require", 1)
	conn, err := pgx.Connect(ctx, secure)
	if err != nil {
		t.Fatalf("sslmode=require: %v", err)
	}
	defer conn.Close(context.Background())
	if _, ok := conn.PgConn().Conn().(*tls.Conn); !ok {
		t.Fatalf("sslmode=require connected over %T, not TLS", conn.PgConn().Conn())
	}
	mustPgxExec(t, conn, `CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL)`)
	mustPgxExec(t, conn, `INSERT INTO kv (k, v) VALUES ($1, $2)`, "a", int64(1))
	if err := c.net.Kill(1); err != nil {
		t.Fatal(err)
	}
	mustPgxExec(t, conn, `INSERT INTO kv (k, v) VALUES ($1, $2)`, "b", int64(2))
	var sum int64
	if err := conn.QueryRow(ctx, `SELECT SUM(v) FROM kv`).Scan(&sum); err != nil || sum != 3 {
		t.Fatalf("after node 1 was killed: sum %d, %v", sum, err)
	}
	if err := c.net.Start(1); err != nil {
		t.Fatal(err)
	}
	if err := c.net.WaitHeight(ctx, 1, c.maxHeight(ctx, 0, 2)); err != nil {
		t.Fatal(err)
	}
	mustPgxExec(t, conn, `SET relchain.cross_check = on`)
	if err := conn.QueryRow(ctx, `SELECT SUM(v) FROM kv`).Scan(&sum); err != nil || sum != 3 {
		t.Fatalf("cross-checked read: sum %d, %v", sum, err)
	}
}

// selfSignedCert writes a certificate for 127.0.0.1 and its key.
func selfSignedCert(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "relchain-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
