// Package mysqlserver starts and stops private MariaDB servers: a data
// directory under a given root, initialised with mariadb-install-db, and
// one mariadbd (found on PATH or in /usr/sbin) listening on a free loopback
// port and on a Unix socket in the root. The superuser is root with an
// empty password, over TCP from 127.0.0.1 (mariadb-install-db creates
// root@127.0.0.1). Tests use it through package mysqltest; scripts through
// mysqlserver/cmd/mysqlserver. It does not import package testing, so the
// relchain binary can link it.
//
// The server is configured the way relchain wants every MySQL-family
// validator to be: InnoDB durable at every commit
// (innodb_flush_log_at_trx_commit=1, doublewrite on, no binary log),
// utf8mb4 with collation utf8mb4_bin by default, time zone +00:00 and a
// strict sql_mode. The backend pins its session settings itself; the
// server defaults only make a hand-made connection behave the same.
//
// When the process runs as root, mariadb-install-db and mariadbd run as the
// "mysql" OS user, and the root directory is chowned to it: the data
// directory, pid file, socket and error log all live there.
package mysqlserver
