package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// server is what testdb needs of a started server of either kind.
type server interface {
	DSN() string
	Stop() error
}

func main() {
	kind := flag.String("kind", "", "postgres or mysql (required)")
	dir := flag.String("dir", "", "server directory (created if missing; required)")
	port := flag.Int("port", 0, "TCP port on 127.0.0.1 (0: a free one)")
	foreground := flag.Bool("foreground", false, "keep running until SIGINT/SIGTERM, then stop the server")
	stop := flag.Bool("stop", false, "stop the server running on -dir and exit")
	durable := flag.Bool("durable", false, "postgres: keep fsync and full-page writes on (for benchmarks); tests run without")
	flag.Parse()
	if *dir == "" || (*kind != "postgres" && *kind != "mysql") {
		fmt.Fprintln(os.Stderr, "testdb: -kind postgres|mysql and -dir are required")
		os.Exit(2)
	}
	if *stop {
		stopDir := pgtest.StopDir
		if *kind == "mysql" {
			stopDir = mysqltest.StopDir
		}
		exitIf(stopDir(*dir))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	s, err := start(ctx, *kind, *dir, *port, !*foreground, *durable)
	cancel()
	exitIf(err)
	fmt.Println(s.DSN())
	if !*foreground {
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	exitIf(s.Stop())
}

func start(ctx context.Context, kind, dir string, port int, detach, durable bool) (server, error) {
	if kind == "mysql" {
		if durable {
			return nil, errors.New("-durable is for postgres (the MariaDB server is always durable)")
		}
		return mysqltest.Start(ctx, dir, mysqltest.Options{Port: port, Detach: detach})
	}
	return pgtest.Start(ctx, dir, pgtest.Options{Port: port, Detach: detach, Durable: durable})
}

func exitIf(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "testdb:", err)
		os.Exit(1)
	}
}
