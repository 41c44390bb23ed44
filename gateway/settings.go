package gateway

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/relchain/relchain/pgwire"
)

// Gateway-level settings, intercepted by the gateway and never sent to
// the chain (README: PostgreSQL clients).
const (
	// SettingMinHeight: reads outside a transaction are served at a height
	// of at least this (on top of read-your-writes).
	SettingMinHeight = "relchain.min_height"
	// SettingCrossCheck: reads outside a transaction are asked of every
	// node the gateway knows, at one height, and must agree.
	SettingCrossCheck = "relchain.cross_check"
	// SettingHeight (SHOW only): the height of the session's last commit.
	SettingHeight = "relchain.last_commit_height"
)

// showDefaults are the values SHOW reports for settings nobody set:
// what PostgreSQL clients ask about at connection time.
var showDefaults = map[string]string{
	"client_encoding": "UTF8", "server_encoding": "UTF8", "datestyle": "ISO, MDY",
	"timezone": "UTC", "standard_conforming_strings": "on", "integer_datetimes": "on",
	"transaction_isolation": "serializable", "default_transaction_isolation": "serializable",
	"transaction_read_only": "off", "default_transaction_read_only": "off",
	"is_superuser": "off", "application_name": "", "search_path": "public",
	"max_identifier_length": "63", "intervalstyle": "postgres", "lc_messages": "C",
	"statement_timeout": "0", "lock_timeout": "0", "extra_float_digits": "1", "bytea_output": "hex",
}

// set handles SET and RESET.
func (s *session) set(sql string) (*pgwire.Result, error) {
	w := words(sql, 3)
	if w[0] == "RESET" {
		name := strings.ToLower(settingName(sql, "RESET"))
		if name == "all" {
			s.settings, s.minHeight, s.crossCheck = map[string]string{}, 0, false
		} else {
			delete(s.settings, name)
			s.applySetting(name, "")
		}
		return &pgwire.Result{Tag: "RESET"}, nil
	}
	if len(w) > 1 && (w[1] == "TRANSACTION" || (w[1] == "SESSION" && len(w) > 2 && w[2] == "CHARACTERISTICS")) {
		return &pgwire.Result{Tag: "SET"}, nil // every relchain transaction is serializable
	}
	name, value, err := parseSet(sql)
	if err != nil {
		return nil, err
	}
	if err := s.applySetting(name, value); err != nil {
		return nil, err
	}
	s.settings[name] = value
	return &pgwire.Result{Tag: "SET"}, nil
}

// applySetting validates and applies a gateway-level setting; other
// names are only remembered for SHOW.
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
	case SettingCrossCheck:
		on, err := parseBool(value)
		if err != nil {
			return &pgwire.Error{Code: stateInvalidValue, Message: fmt.Sprintf("%s must be on or off, not %q", name, value)}
		}
		s.crossCheck = on
	case SettingHeight:
		return &pgwire.Error{Code: "55P02", Message: name + " is read-only: it is the height of this session's last commit"}
	}
	return nil
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "", "off", "false", "0", "no":
		return false, nil
	case "on", "true", "1", "yes":
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
		return "timezone", unquote(strings.TrimSpace(rest[9:])), nil
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

// show answers SHOW name with the session's value.
func (s *session) show(sql string) (*pgwire.Result, error) {
	raw := settingName(sql, "SHOW")
	name := strings.ToLower(raw)
	if name == "all" {
		return nil, refused("SHOW ALL is not supported: SHOW one setting")
	}
	v, ok := s.showValue(name)
	if !ok {
		return nil, &pgwire.Error{Code: stateUndefinedParam, Message: fmt.Sprintf("unrecognized configuration parameter %q", raw)}
	}
	return &pgwire.Result{Columns: []pgwire.Column{{Name: name, OID: 25}}, Rows: [][]any{{v}}, Tag: "SHOW"}, nil
}

func (s *session) showValue(name string) (string, bool) {
	switch name {
	case SettingHeight:
		return strconv.FormatInt(s.lastCommit, 10), true
	case "server_version":
		return s.g.serverVersion(), true
	case "relchain.backend":
		return s.g.dialect, true
	}
	if v, ok := s.settings[name]; ok {
		return v, true
	}
	switch name {
	case SettingMinHeight:
		return strconv.FormatInt(s.minHeight, 10), true
	case SettingCrossCheck:
		return map[bool]string{true: "on", false: "off"}[s.crossCheck], true
	}
	v, ok := showDefaults[name]
	return v, ok
}
