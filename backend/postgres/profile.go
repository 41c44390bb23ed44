package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
)

// profileSetting is one setting of the network's profile (see
// backend.Profile): how to read it, as the writer's session sees it, and
// its default value.
type profileSetting struct {
	backend.ProfileSetting
	expr string // a SQL expression of its value, as text
	def  string
}

// profileSettings are the settings relchain cannot pin on its sessions
// (only a superuser may set them, or they are fixed when PostgreSQL is
// built) and that decide whether a statement fails. See DESIGN.md,
// "Server configuration".
var profileSettings = []profileSetting{
	{ProfileSetting: backend.ProfileSetting{Name: "max_stack_depth",
		Why: "in kB: how deeply an expression, a JSON value or a query may nest before the statement fails " +
			"with 54001 (stack depth limit exceeded); only a superuser may set it, per server, database or role",
		Fix: "ALTER ROLE <writer> RESET max_stack_depth, ALTER DATABASE <db> RESET max_stack_depth, and " +
			"max_stack_depth = 2MB (or remove it) in postgresql.conf, then reload"},
		expr: "(pg_size_bytes(current_setting('max_stack_depth')) / 1024)::text", def: "2048"},
	{ProfileSetting: backend.ProfileSetting{Name: "block_size",
		Why: "it decides the largest row and index entry: whether INSERT and CREATE INDEX fail with " +
			"54000 (row is too big, index row size exceeds maximum)",
		Fix: "run a PostgreSQL built with the default block size (8 kB)"},
		expr: "current_setting('block_size')", def: "8192"},
	{ProfileSetting: backend.ProfileSetting{Name: "max_identifier_length",
		Why: "longer names are truncated: two names that differ after it are the same object",
		Fix: "run a PostgreSQL built with the default NAMEDATALEN (64)"},
		expr: "current_setting('max_identifier_length')", def: "63"},
	{ProfileSetting: backend.ProfileSetting{Name: "max_function_args",
		Why: "calls with more arguments fail with 54023",
		Fix: "run a PostgreSQL built with the default FUNC_MAX_ARGS (100)"},
		expr: "current_setting('max_function_args')", def: "100"},
	{ProfileSetting: backend.ProfileSetting{Name: "max_index_keys",
		Why: "indexes with more columns fail with 54011",
		Fix: "run a PostgreSQL built with the default INDEX_MAX_KEYS (32)"},
		expr: "current_setting('max_index_keys')", def: "32"},
	{ProfileSetting: backend.ProfileSetting{Name: "integer_datetimes",
		Why: "timestamps stored as floats round differently",
		Fix: "run a PostgreSQL built with integer datetimes (every supported version is)"},
		expr: "current_setting('integer_datetimes')", def: "on"},
	{ProfileSetting: backend.ProfileSetting{Name: "server_version_family",
		Why: "functions, casts and error checks differ between major versions",
		Fix: "run the PostgreSQL major version the network's genesis names"},
		expr: "(current_setting('server_version_num')::int / 10000)::text", def: backend.AnyValue},
}

// profileSQL reads every setting of the profile, as text, in one row. It
// is sent with every Begin (see Backend.Begin).
var profileSQL = func() string {
	cols := make([]string, len(profileSettings))
	for i, s := range profileSettings {
		cols[i] = s.expr
	}
	return "SELECT " + strings.Join(cols, ", ")
}()

// genericProfile is profileSettings as backend.CompareProfile takes them.
var genericProfile = func() []backend.ProfileSetting {
	out := make([]backend.ProfileSetting, len(profileSettings))
	for i, s := range profileSettings {
		out[i] = s.ProfileSetting
	}
	return out
}()

func defaultProfile() backend.Profile {
	d := make(backend.Profile, len(profileSettings))
	for _, s := range profileSettings {
		d[s.Name] = s.def
	}
	return d
}

// profile is the network's expected profile of the writer's server.
type profile struct {
	mu   sync.Mutex
	want backend.Profile
}

// check compares the answer to profileSQL with the expected profile.
func (p *profile) check(res *pgconn.Result) error {
	if res == nil || len(res.Rows) != 1 || len(res.Rows[0]) != len(profileSettings) {
		return fmt.Errorf("read the server's settings: unexpected answer to %q", profileSQL)
	}
	have := make(backend.Profile, len(profileSettings))
	for i, s := range profileSettings {
		have[s.Name] = string(res.Rows[0][i])
	}
	p.mu.Lock()
	want := p.want
	p.mu.Unlock()
	if want == nil {
		want = defaultProfile()
	}
	return backend.CompareProfile("postgres", genericProfile, have, want)
}

// DefaultProfile implements backend.ProfileChecker.
func (b *Backend) DefaultProfile() backend.Profile { return defaultProfile() }

// CheckProfile implements backend.ProfileChecker: it reads the settings
// on the block writer's session (a role's or database's own settings
// included). Begin reads them again for every block, in BEGIN's round
// trip.
func (b *Backend) CheckProfile(ctx context.Context, overrides map[string]string) error {
	want, err := backend.MergeProfile(defaultProfile(), overrides)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	b.profile.mu.Lock()
	b.profile.want = want
	b.profile.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := sqlstore.CheckBegin("postgres", b.closed, b.open != nil); err != nil {
		return err
	}
	if err := b.connectWriter(ctx); err != nil {
		return fmt.Errorf("postgres: check the server's profile: %w", err)
	}
	res, err := b.writer.PgConn().Exec(ctx, profileSQL).ReadAll()
	if err != nil {
		b.dropWriter()
		return fmt.Errorf("postgres: read the server's settings: %w", err)
	}
	if len(res) != 1 {
		return fmt.Errorf("postgres: read the server's settings: unexpected answer to %q", profileSQL)
	}
	return b.profile.check(res[0])
}

var _ backend.ProfileChecker = (*Backend)(nil)
