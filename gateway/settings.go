package gateway

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/relchain/relchain/pgwire"
)

// Gateway-level settings, intercepted by the gateway and never sent to
// the chain (docs/clients.md#gateway-settings).
const (
	// SettingMinHeight: reads outside a transaction are served at a height
	// of at least this (on top of read-your-writes).
	SettingMinHeight = "relchain.min_height"
	// SettingCrossCheck: reads outside a transaction are asked of every
	// node the gateway knows, at one height, and must agree.
	SettingCrossCheck = "relchain.cross_check"
	// SettingCopySplit: a COPY FROM STDIN inside a transaction that outgrows
	// one bc-transaction commits the transaction so far and the COPY's
	// batches (on), or is refused (off, the default): see copy.go.
	SettingCopySplit = "relchain.copy_split_transaction"
	// SettingHeight (SHOW only): the height of the session's last commit.
	SettingHeight = "relchain.last_commit_height"
)

// set handles SET, RESET and SET [SESSION CHARACTERISTICS AS] TRANSACTION.
// Every setting is answered here, never sent to the chain: a value the
// gateway cannot honour is refused (settingsTable), never remembered.
func (s *session) set(sql string) (*pgwire.Result, error) {
	w := words(sql, 3)
	if w[0] == "RESET" {
		return s.reset(sql)
	}
	if len(w) > 1 && w[1] == "TRANSACTION" {
		return s.setTransaction(sql, "TRANSACTION", false)
	}
	if len(w) > 2 && w[1] == "SESSION" && w[2] == "CHARACTERISTICS" {
		return s.setTransaction(sql, "CHARACTERISTICS", true)
	}
	if len(w) > 2 && (w[1] == "SESSION" || w[1] == "LOCAL") && w[2] == "AUTHORIZATION" || len(w) > 1 && w[1] == "ROLE" {
		return nil, refused("SET %s is not supported: a relchain session acts as the user it authenticated as", strings.Join(w[1:], " "))
	}
	name, value, err := parseSet(sql)
	if err != nil {
		return nil, err
	}
	if len(w) > 1 && w[1] == "LOCAL" {
		if s.tx == nil { // PostgreSQL: a warning, and no effect
			if _, ok := lookupSetting(name); !ok {
				return nil, unknownSetting(name)
			}
			return &pgwire.Result{Tag: "SET"}, nil
		}
		if s.tx.local == nil {
			s.tx.local = map[string]bool{}
		}
		s.tx.local[name] = true
	}
	if strings.EqualFold(value, "DEFAULT") {
		return s.resetOne(name, "SET")
	}
	if err := s.assign(name, value); err != nil {
		return nil, err
	}
	return &pgwire.Result{Tag: "SET"}, nil
}

// reset handles RESET name, RESET ALL and RESET SESSION AUTHORIZATION.
func (s *session) reset(sql string) (*pgwire.Result, error) {
	name := strings.ToLower(settingName(sql, "RESET"))
	switch name {
	case "all":
		s.resetAll()
		return &pgwire.Result{Tag: "RESET"}, nil
	case "session authorization", "role":
		return &pgwire.Result{Tag: "RESET"}, nil // never changed: SET refuses them
	case "time zone":
		name = "timezone"
	case "transaction isolation level":
		name = "transaction_isolation"
	}
	return s.resetOne(name, "RESET")
}

// resetOne returns a setting to its default (RESET name, SET name TO DEFAULT).
func (s *session) resetOne(name, tag string) (*pgwire.Result, error) {
	st, ok := lookupSetting(name)
	if !ok {
		return nil, unknownSetting(name)
	}
	if st.readOnly {
		return nil, readOnlySetting(name)
	}
	delete(s.settings, name)
	_ = s.applySetting(name, "") // the default is always valid
	return &pgwire.Result{Tag: tag}, nil
}

// savedSettings is a copy of a session's settings.
type savedSettings struct {
	settings        map[string]string
	minHeight       int64
	crossCheck      bool
	copySplit       bool
	timeout         int64
	defaultReadOnly bool
}

func (s *session) saveSettings() *savedSettings {
	m := make(map[string]string, len(s.settings))
	for k, v := range s.settings {
		m[k] = v
	}
	return &savedSettings{settings: m, minHeight: s.minHeight, crossCheck: s.crossCheck, copySplit: s.copySplit, timeout: s.timeout, defaultReadOnly: s.defaultReadOnly}
}

// copy is a copy that later changes of the session's settings leave alone.
func (v *savedSettings) copy() *savedSettings {
	c := *v
	c.settings = make(map[string]string, len(v.settings))
	for k, val := range v.settings {
		c.settings[k] = val
	}
	return &c
}

func (s *session) restoreSettings(v *savedSettings) {
	s.settings, s.minHeight, s.crossCheck, s.timeout, s.defaultReadOnly = v.settings, v.minHeight, v.crossCheck, v.timeout, v.defaultReadOnly
	s.copySplit = v.copySplit
}

// endSettings ends a transaction's settings as PostgreSQL does: a
// rollback restores those at BEGIN; a commit keeps SET's and undoes SET
// LOCAL's.
func (s *session) endSettings(tx *transaction, committed bool) {
	if tx == nil || tx.saved == nil {
		return
	}
	if !committed {
		s.restoreSettings(tx.saved)
		return
	}
	for name := range tx.local {
		if v, ok := tx.saved.settings[name]; ok {
			s.settings[name] = v
			_ = s.applySetting(name, v) // it was valid before
		} else {
			delete(s.settings, name)
			_ = s.applySetting(name, "")
		}
	}
}

// resetAll is RESET ALL (and part of DISCARD ALL): every setting at its default.
func (s *session) resetAll() {
	s.settings, s.minHeight, s.crossCheck, s.timeout, s.defaultReadOnly = map[string]string{}, 0, false, 0, false
	s.copySplit = false
}

// assign validates name = value and applies it: the value is stored as
// SHOW reports it. Errors are PostgreSQL's codes: 42704 for an unknown
// name, 22023 for a malformed value, 0A000 for a value relchain cannot honour.
func (s *session) assign(name, value string) error {
	st, ok := lookupSetting(name)
	if !ok {
		return unknownSetting(name)
	}
	if st.readOnly {
		return readOnlySetting(name)
	}
	shown := value
	if st.check != nil {
		var err error
		if shown, err = st.check(value); err != nil {
			return err
		}
	}
	if err := s.applySetting(name, shown); err != nil {
		return err
	}
	s.settings[name] = shown
	return nil
}

// applySetting applies a setting the gateway acts on; value "" is its default.
func (s *session) applySetting(name, value string) error {
	switch name {
	case SettingMinHeight:
		if value == "" {
			s.minHeight = 0
			return nil
		}
		h, err := strconv.ParseInt(value, 10, 64)
		if err != nil || h < 0 {
			return &pgwire.Error{Code: stateInvalidValue, Message: fmt.Sprintf("%s must be a height (a non-negative integer), not %q", name, value)}
		}
		s.minHeight = h
	case SettingCrossCheck, SettingCopySplit:
		on, err := parseBool(value)
		if err != nil {
			return &pgwire.Error{Code: stateInvalidValue, Message: fmt.Sprintf("%s must be on or off, not %q", name, value)}
		}
		if name == SettingCopySplit {
			s.copySplit = on
		} else {
			s.crossCheck = on
		}
	case "statement_timeout":
		ms, _ := parseDuration(value) // checked by the setting's check
		s.timeout = ms
	case "default_transaction_read_only":
		s.defaultReadOnly, _ = parseBool(value)
	case "transaction_read_only":
		if on, _ := parseBool(value); s.tx != nil {
			s.tx.readOnly = on
		}
	}
	return nil
}

// setTransaction handles SET TRANSACTION … and SET SESSION CHARACTERISTICS
// AS TRANSACTION …: modes are ISOLATION LEVEL x, READ ONLY, READ WRITE,
// [NOT] DEFERRABLE, separated by spaces or commas.
func (s *session) setTransaction(sql, after string, session bool) (*pgwire.Result, error) {
	upper := strings.ToUpper(strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSuffix(strings.TrimSpace(stripComments(sql)), ";"), ",", " ")), " "))
	i := strings.Index(upper, after)
	if i < 0 {
		return nil, &pgwire.Error{Code: stateSyntax, Message: fmt.Sprintf("cannot read %q: want SET TRANSACTION mode", sql)}
	}
	modes := strings.TrimSpace(upper[i+len(after):])
	if session {
		modes = strings.TrimSpace(strings.TrimPrefix(modes, "AS TRANSACTION"))
	}
	readOnly := -1
	for modes != "" {
		switch {
		case strings.HasPrefix(modes, "ISOLATION LEVEL "):
			rest := modes[len("ISOLATION LEVEL "):]
			level := ""
			for _, l := range []string{"SERIALIZABLE", "REPEATABLE READ", "READ COMMITTED", "READ UNCOMMITTED"} {
				if strings.HasPrefix(rest, l) {
					level = l
				}
			}
			if level == "" {
				return nil, &pgwire.Error{Code: stateSyntax, Message: fmt.Sprintf("cannot read %q: want ISOLATION LEVEL SERIALIZABLE", sql)}
			}
			if err := isolationError(strings.ToLower(level)); err != nil {
				return nil, err
			}
			modes = rest[len(level):]
		case strings.HasPrefix(modes, "READ ONLY"):
			readOnly, modes = 1, modes[len("READ ONLY"):]
		case strings.HasPrefix(modes, "READ WRITE"):
			readOnly, modes = 0, modes[len("READ WRITE"):]
		case strings.HasPrefix(modes, "NOT DEFERRABLE"):
			modes = modes[len("NOT DEFERRABLE"):]
		case strings.HasPrefix(modes, "DEFERRABLE"):
			modes = modes[len("DEFERRABLE"):] // only affects serializable read-only transactions' waiting; relchain's never wait
		default:
			return nil, &pgwire.Error{Code: stateSyntax, Message: fmt.Sprintf("cannot read transaction mode %q in %q", modes, sql)}
		}
		modes = strings.TrimSpace(modes)
	}
	switch {
	case readOnly < 0:
	case session:
		s.defaultReadOnly = readOnly == 1
		s.settings["default_transaction_read_only"] = onOff(s.defaultReadOnly)
	case s.tx != nil:
		if readOnly == 0 && s.tx.readOnly && (s.tx.writes || len(s.tx.stmts) > 0) {
			return nil, &pgwire.Error{Code: stateActiveTx, Message: "transaction read-write mode must be set before any query"}
		}
		s.tx.readOnly = readOnly == 1
	}
	return &pgwire.Result{Tag: "SET"}, nil
}

// isolationError refuses an isolation level relchain does not provide:
// every relchain transaction is serializable (its observations are
// compared in the block), so nothing weaker is in effect.
func isolationError(level string) error {
	if level == "serializable" {
		return nil
	}
	e := refused("isolation level %q is not available: every relchain transaction is serializable", level)
	e.Hint = "Use SERIALIZABLE (or leave the isolation level at its default); retry a transaction that fails with 40001."
	return e
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "", "off", "false", "0", "no", "f", "n", "of":
		return false, nil
	case "on", "true", "1", "yes", "t", "y":
		return true, nil
	}
	return false, fmt.Errorf("not a boolean: %q", v)
}

// parseSet reads SET [SESSION|LOCAL] name {=|TO} value, and SET TIME ZONE
// value. The value's quotes are removed; a list stays as written.
func parseSet(sql string) (name, value string, err error) {
	rest := strings.TrimSpace(skipSpaceAndComments(sql))[len("SET"):]
	rest = strings.TrimSuffix(strings.TrimSpace(rest), ";")
	for _, mod := range []string{"SESSION ", "LOCAL "} {
		if len(rest) > len(mod) && strings.EqualFold(rest[:len(mod)], mod) {
			rest = strings.TrimSpace(rest[len(mod):])
		}
	}
	if len(rest) > 9 && strings.EqualFold(rest[:9], "TIME ZONE") {
		v := strings.TrimSpace(rest[9:])
		if strings.EqualFold(v, "LOCAL") {
			v = "DEFAULT"
		}
		return "timezone", unquote(v), nil
	}
	for _, alias := range [][2]string{{"NAMES ", "client_encoding"}, {"SCHEMA ", "search_path"}} {
		if len(rest) > len(alias[0]) && strings.EqualFold(rest[:len(alias[0])], alias[0]) {
			return alias[1], unquote(strings.TrimSpace(rest[len(alias[0]):])), nil
		}
	}
	end := strings.IndexAny(rest, " \t\n=")
	if end <= 0 {
		return "", "", &pgwire.Error{Code: stateSyntax, Message: fmt.Sprintf("cannot read SET statement %q: want SET name = value", sql)}
	}
	name = strings.ToLower(unquote(rest[:end]))
	value = strings.TrimSpace(rest[end:])
	switch {
	case strings.HasPrefix(value, "="):
		value = value[1:]
	case len(value) >= 2 && strings.EqualFold(value[:2], "TO"):
		value = value[2:]
	default:
		return "", "", &pgwire.Error{Code: stateSyntax, Message: fmt.Sprintf("cannot read SET statement %q: want SET name = value", sql)}
	}
	return name, unquote(strings.TrimSpace(value)), nil
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '\'' && v[len(v)-1] == '\'' || v[0] == '"' && v[len(v)-1] == '"') {
		q := v[:1]
		return strings.ReplaceAll(v[1:len(v)-1], q+q, q)
	}
	return v
}

// settingName is the name after SHOW or RESET.
func settingName(sql, verb string) string {
	rest := strings.TrimSpace(skipSpaceAndComments(sql))[len(verb):]
	return unquote(strings.TrimSuffix(strings.TrimSpace(rest), ";"))
}

// showName is the setting a SHOW statement names (lower case) and the
// column name PostgreSQL gives its answer.
func showName(sql string) (name, column string) {
	raw := settingName(sql, "SHOW")
	name = strings.ToLower(strings.Join(strings.Fields(raw), " "))
	switch name {
	case "transaction isolation level":
		name = "transaction_isolation"
	case "time zone":
		name = "timezone"
	case "session authorization":
		name = "session_authorization"
	}
	if st, ok := lookupSetting(name); ok && st.column != "" {
		return name, st.column
	}
	return name, name
}

// show answers SHOW name with the session's value.
func (s *session) show(sql string) (*pgwire.Result, error) {
	name, column := showName(sql)
	if name == "all" {
		return nil, refused("SHOW ALL is not supported: SHOW one setting")
	}
	v, ok := s.showValue(name)
	if !ok {
		return nil, unknownSetting(settingName(sql, "SHOW"))
	}
	return &pgwire.Result{Columns: []pgwire.Column{{Name: column, OID: 25}}, Rows: [][]any{{v}}, Tag: "SHOW"}, nil
}

func (s *session) showValue(name string) (string, bool) {
	switch name {
	case SettingHeight:
		return strconv.FormatInt(s.lastCommit, 10), true
	case "server_version":
		return s.g.serverVersion(), true
	case "relchain.backend":
		return s.g.dialect, true
	case "session_authorization":
		if s.user != nil {
			return s.user.Name, true
		}
		return "", true
	case "transaction_read_only":
		if s.tx != nil {
			return onOff(s.tx.readOnly), true
		}
		return onOff(s.defaultReadOnly), true
	}
	if v, ok := s.settings[name]; ok {
		return v, true
	}
	switch name {
	case SettingMinHeight:
		return strconv.FormatInt(s.minHeight, 10), true
	case SettingCrossCheck:
		return onOff(s.crossCheck), true
	case SettingReadGuarantee:
		return s.guarantee, true
	case SettingCopySplit:
		return onOff(s.copySplit), true
	}
	st, ok := lookupSetting(name)
	return st.def, ok && !st.custom
}

// reportedSettings are PostgreSQL 15's GUC_REPORT parameters: their
// values go to the client in ParameterStatus at startup and whenever they
// change (ReportedParameters), by these names.
var reportedSettings = []string{"application_name", "client_encoding", "DateStyle", "default_transaction_read_only",
	"in_hot_standby", "integer_datetimes", "IntervalStyle", "is_superuser", "server_encoding", "server_version",
	"session_authorization", "standard_conforming_strings", "TimeZone"}

// ReportedParameters is pgwire.ParameterReporter: the values SHOW gives
// of reportedSettings.
func (s *session) ReportedParameters() map[string]string {
	m := make(map[string]string, len(reportedSettings))
	for _, name := range reportedSettings {
		if v, ok := s.showValue(strings.ToLower(name)); ok {
			m[name] = v
		}
	}
	return m
}

func unknownSetting(name string) *pgwire.Error {
	return &pgwire.Error{Code: stateUndefinedParam, Message: fmt.Sprintf("unrecognized configuration parameter %q", name)}
}

func readOnlySetting(name string) *pgwire.Error {
	if name == SettingHeight {
		return &pgwire.Error{Code: "55P02", Message: name + " is read-only: it is the height of this session's last commit"}
	}
	return &pgwire.Error{Code: "55P02", Message: fmt.Sprintf("parameter %q cannot be changed", name)}
}
