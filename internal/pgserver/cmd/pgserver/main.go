// Command pgserver starts a private PostgreSQL cluster for tests and prints
// its superuser DSN, so that a test script can start one server and hand it
// to every test package through RELCHAIN_TEST_PG:
//
//	export RELCHAIN_TEST_PG=$(go run ./internal/pgserver/cmd/pgserver -dir /tmp/relchain-pg)
//	go test ./...
//	go run ./internal/pgserver/cmd/pgserver -dir /tmp/relchain-pg -stop
//
// By default the server is detached (it outlives pgserver) and pgserver
// exits after printing the DSN; if a server already runs on -dir, its DSN is
// printed. With -foreground pgserver keeps the server until it receives
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

	"github.com/relchain/relchain/internal/pgserver"
)

func main() {
	dir := flag.String("dir", "", "cluster directory (created if missing; required)")
	port := flag.Int("port", 0, "TCP port on 127.0.0.1 (0: a free one)")
	foreground := flag.Bool("foreground", false, "keep running until SIGINT/SIGTERM, then stop the server")
	stop := flag.Bool("stop", false, "stop the server running on -dir and exit")
	durable := flag.Bool("durable", false, "keep fsync and full-page writes on (for benchmarks); tests run without")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "pgserver: -dir is required")
		os.Exit(2)
	}
	if *stop {
		if err := pgserver.StopDir(*dir); err != nil {
			fmt.Fprintln(os.Stderr, "pgserver:", err)
			os.Exit(1)
		}
		return
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	s, err := pgserver.Start(ctx, *dir, pgserver.Options{Port: *port, Detach: !*foreground, Durable: *durable})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgserver:", err)
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
		fmt.Fprintln(os.Stderr, "pgserver:", err)
		os.Exit(1)
	}
}
