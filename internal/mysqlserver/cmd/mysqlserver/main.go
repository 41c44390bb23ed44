// Command mysqlserver starts a private MariaDB server for tests and prints
// its root DSN (go-sql-driver/mysql form), so that a test script can start one server and hand it
// to every test package through RELCHAIN_TEST_MYSQL:
//
//	export RELCHAIN_TEST_MYSQL=$(go run ./internal/mysqlserver/cmd/mysqlserver -dir /tmp/relchain-mysql)
//	go test ./...
//	go run ./internal/mysqlserver/cmd/mysqlserver -dir /tmp/relchain-mysql -stop
//
// By default the server is detached (it outlives mysqlserver) and mysqlserver
// exits after printing the DSN; if a server already runs on -dir, its DSN is
// printed. With -foreground mysqlserver keeps the server until it receives
// SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/relchain/relchain/internal/mysqlserver"
)

func main() {
	dir := flag.String("dir", "", "server directory (created if missing; required)")
	port := flag.Int("port", 0, "TCP port on 127.0.0.1 (0: a free one)")
	foreground := flag.Bool("foreground", false, "keep running until SIGINT/SIGTERM, then stop the server")
	stop := flag.Bool("stop", false, "stop the server running on -dir and exit")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "mysqlserver: -dir is required")
		os.Exit(2)
	}
	if *stop {
		if err := mysqlserver.StopDir(*dir); err != nil {
			fmt.Fprintln(os.Stderr, "mysqlserver:", err)
			os.Exit(1)
		}
		return
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	s, err := mysqlserver.Start(ctx, *dir, mysqlserver.Options{Port: *port, Detach: !*foreground})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mysqlserver:", err)
		os.Exit(1)
	}
	fmt.Println(s.DSN())
	if !*foreground {
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	if err := s.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "mysqlserver:", err)
		os.Exit(1)
	}
}
