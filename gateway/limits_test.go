package gateway

import (
	"context"
	"encoding/binary"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/pgwire"
)

// Config.Limits reaches the listener: over MaxConns a connection is refused with 53300.
func TestLimitsReachTheListener(t *testing.T) {
	users := filepath.Join(t.TempDir(), "users.toml")
	if _, err := AddUser(users, "alice", "pw", ""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	gw, err := Start(ctx, Config{Listen: "127.0.0.1:0", Nodes: []string{"http://127.0.0.1:1"}, Dialect: "sqlite",
		Classifier: Conservative{}, UsersFile: users, Limits: pgwire.Limits{MaxConns: 1, MaxConnsPerAddr: -1, StartupTimeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	held, err := net.Dial("tcp", gw.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if _, err := held.Write([]byte{0, 0, 0, 40}); err != nil { // half a startup packet
		t.Fatal(err)
	}
	over, err := net.Dial("tcp", gw.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	_ = over.SetReadDeadline(time.Now().Add(10 * time.Second))
	var reply []byte
	buf := make([]byte, 512)
	for {
		n, err := over.Read(buf)
		reply = append(reply, buf[:n]...)
		if err != nil {
			break
		}
	}
	if len(reply) < 5 || reply[0] != 'E' || int(binary.BigEndian.Uint32(reply[1:5]))+1 != len(reply) ||
		!strings.Contains(string(reply), "C53300") {
		t.Fatalf("second connection got %q, want one ErrorResponse 53300", reply)
	}
}
