package mysql

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/relchain/relchain/backend"
)

// profileSetting is one setting of the network's profile (see
// backend.Profile): how to read it and its default value.
type profileSetting struct {
	backend.ProfileSetting
	expr string // a SQL expression of its value, as text
	def  string
}

// profileSettings are the server settings relchain cannot pin on its own
// sessions (read-only or global only, or settable only with SUPER) and
// that decide a statement's result or whether it fails. See DESIGN.md,
// "Server configuration".
func profileSettings(fl flavor) []profileSetting {
	s := []profileSetting{
		{ProfileSetting: backend.ProfileSetting{Name: "init_connect",
			Why: "the server runs it on every connection of an account without SUPER: it can change session " +
				"variables relchain does not pin, create temporary tables that shadow replicated ones, or write",
			Fix: "SET GLOBAL init_connect = '' and remove init_connect from my.cnf"},
			expr: "@@global.init_connect", def: ""},
		{ProfileSetting: backend.ProfileSetting{Name: "innodb_page_size",
			Why: "it decides the largest row and index key InnoDB accepts: whether CREATE TABLE, ALTER TABLE " +
				"and INSERT fail with errors 1118 (row size too large) and 1071 (key too long)",
			Fix: "initialise the server's data directory with --innodb-page-size (it cannot change afterwards)"},
			expr: "@@global.innodb_page_size", def: "16384"},
		{ProfileSetting: backend.ProfileSetting{Name: "innodb_default_row_format",
			Why: "tables created without ROW_FORMAT get it: it decides whether wide rows and long index keys " +
				"fail with errors 1118 and 1071",
			Fix: "SET GLOBAL innodb_default_row_format = 'dynamic' and innodb_default_row_format = dynamic in my.cnf"},
			expr: "@@global.innodb_default_row_format", def: "dynamic"},
		{ProfileSetting: backend.ProfileSetting{Name: "server_version_family",
			Why: "functions, casts and error checks differ between server versions",
			Fix: "run the server version the network's genesis names"},
			expr: "VERSION()", def: backend.AnyValue},
	}
	if fl.mariadb {
		return append(s,
			profileSetting{ProfileSetting: backend.ProfileSetting{Name: "innodb_force_primary_key",
				Why: "with it, CREATE TABLE without a primary key fails (error 1173)",
				Fix: "SET GLOBAL innodb_force_primary_key = OFF and remove it from my.cnf"},
				expr: "@@global.innodb_force_primary_key + 0", def: "0"},
			profileSetting{ProfileSetting: backend.ProfileSetting{Name: "enforce_storage_engine",
				Why: "with it, CREATE TABLE naming another engine fails or is substituted",
				Fix: "SET GLOBAL enforce_storage_engine = NULL and remove it from my.cnf"},
				expr: "@@global.enforce_storage_engine", def: ""},
			profileSetting{ProfileSetting: backend.ProfileSetting{Name: "system_versioning_asof",
				Why: "queries of system-versioned tables read the rows as of that time",
				Fix: "SET GLOBAL system_versioning_asof = DEFAULT and remove it from my.cnf"},
				expr: "@@global.system_versioning_asof", def: "DEFAULT"})
	}
	return append(s,
		profileSetting{ProfileSetting: backend.ProfileSetting{Name: "sql_require_primary_key",
			Why: "with it, CREATE TABLE without a primary key fails (error 3750)",
			Fix: "SET PERSIST sql_require_primary_key = OFF"},
			expr: "@@session.sql_require_primary_key + 0", def: "0"},
		profileSetting{ProfileSetting: backend.ProfileSetting{Name: "regexp_stack_limit",
			Why: "REGEXP fails (error 3698) past it",
			Fix: "SET PERSIST regexp_stack_limit = 8000000"},
			expr: "@@global.regexp_stack_limit", def: "8000000"},
		profileSetting{ProfileSetting: backend.ProfileSetting{Name: "regexp_time_limit",
			Why: "REGEXP fails (error 3699) past that many match steps",
			Fix: "SET PERSIST regexp_time_limit = 32"},
			expr: "@@global.regexp_time_limit", def: "32"})
}

// profileColumns is a SELECT list that reads every setting of the
// profile, as text, NULL as "".
func profileColumns(settings []profileSetting) string {
	cols := make([]string, len(settings))
	for i, s := range settings {
		cols[i] = "COALESCE(CAST(" + s.expr + " AS CHAR), '')"
	}
	return strings.Join(cols, ", ")
}

// observed turns the values profileColumns read into a Profile.
func observed(settings []profileSetting, vals []string) backend.Profile {
	p := make(backend.Profile, len(settings))
	for i, s := range settings {
		v := vals[i]
		if s.Name == "server_version_family" {
			v = versionFamily(v)
		}
		p[s.Name] = v
	}
	return p
}

// versionFamily is a VERSION() text's major.minor ("10.11" of
// "10.11.19-MariaDB-0+deb12u1").
func versionFamily(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// profile is the network's expected profile of the server.
type profile struct {
	settings []profileSetting
	columns  string // profileColumns(settings)

	mu   sync.Mutex
	want backend.Profile
}

func newProfile(fl flavor) *profile {
	p := &profile{settings: profileSettings(fl)}
	p.columns = profileColumns(p.settings)
	p.want = p.defaults()
	return p
}

func (p *profile) defaults() backend.Profile {
	d := make(backend.Profile, len(p.settings))
	for _, s := range p.settings {
		d[s.Name] = s.def
	}
	return d
}

// check compares the server's values (as p.columns reads them) with the
// expected profile.
func (p *profile) check(vals []string) error {
	p.mu.Lock()
	want := p.want
	p.mu.Unlock()
	generic := make([]backend.ProfileSetting, len(p.settings))
	for i, s := range p.settings {
		generic[i] = s.ProfileSetting
	}
	return backend.CompareProfile("mysql", generic, observed(p.settings, vals), want)
}

// DefaultProfile implements backend.ProfileChecker.
func (b *Backend) DefaultProfile() backend.Profile { return b.profile.defaults() }

// CheckProfile implements backend.ProfileChecker: it reads the server's
// values on a connection of the writer's account. Begin reads them again
// for every block, in the round trip that reads the block's height.
func (b *Backend) CheckProfile(ctx context.Context, overrides map[string]string) error {
	want, err := backend.MergeProfile(b.profile.defaults(), overrides)
	if err != nil {
		return fmt.Errorf("mysql: %w", err)
	}
	vals := make([]string, len(b.profile.settings))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := b.internal.QueryRowContext(ctx, "SELECT "+b.profile.columns).Scan(ptrs...); err != nil {
		return fmt.Errorf("mysql: read the server's settings: %w", err)
	}
	b.profile.mu.Lock()
	b.profile.want = want
	b.profile.mu.Unlock()
	return b.profile.check(vals)
}

var _ backend.ProfileChecker = (*Backend)(nil)
