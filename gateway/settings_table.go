package gateway

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/relchain/relchain/pgwire"
)

// setting is one session setting the gateway answers.
type setting struct {
	column   string // SHOW's column name when it is not the lower-case name (PostgreSQL's spelling)
	def      string // SHOW's value when nobody set it ("" for a custom name: unset)
	readOnly bool   // SET refuses it (55P02), as PostgreSQL does
	custom   bool   // a dotted placeholder name (myapp.x): remembered, no effect
	// check validates a value and returns it as SHOW reports it, or a
	// 22023 (malformed) or 0A000 (cannot be honoured) error; nil: any text.
	check func(v string) (string, error)
}

// settingsTable lists the settings the gateway answers and what it can
// honour of each. A value is accepted only when it is in effect: the
// gateway's wire output (UTF8, ISO dates in UTC, hex bytea, postgres
// intervals, shortest-exact floats) and relchain's transactions
// (serializable) are fixed, so other values are refused with 0A000.
var settingsTable = map[string]setting{
	"client_encoding":                     {def: "UTF8", check: checkEncoding},
	"server_encoding":                     {def: "UTF8", readOnly: true},
	"datestyle":                           {column: "DateStyle", def: "ISO, MDY", check: checkDateStyle},
	"timezone":                            {column: "TimeZone", def: "UTC", check: checkTimeZone},
	"intervalstyle":                       {column: "IntervalStyle", def: "postgres", check: only("IntervalStyle", "postgres", "sql_standard", "postgres_verbose", "iso_8601")},
	"bytea_output":                        {def: "hex", check: only("bytea_output", "hex", "escape")},
	"xmloption":                           {def: "content", check: only("xmloption", "content", "document")},
	"standard_conforming_strings":         {def: "on", check: onlyBool("standard_conforming_strings", true)},
	"check_function_bodies":               {def: "on", check: onlyBool("check_function_bodies", true)},
	"row_security":                        {def: "on", check: onlyBool("row_security", true)},
	"integer_datetimes":                   {def: "on", readOnly: true},
	"transaction_isolation":               {def: "serializable", check: checkIsolation},
	"default_transaction_isolation":       {def: "serializable", check: checkIsolation},
	"transaction_read_only":               {def: "off", check: anyBool("transaction_read_only")},
	"default_transaction_read_only":       {def: "off", check: anyBool("default_transaction_read_only")},
	"transaction_deferrable":              {def: "off", check: anyBool("transaction_deferrable")},
	"default_transaction_deferrable":      {def: "off", check: anyBool("default_transaction_deferrable")},
	"is_superuser":                        {def: "off", readOnly: true},
	"in_hot_standby":                      {def: "off", readOnly: true},
	"session_authorization":               {readOnly: true},
	"application_name":                    {def: "", check: checkApplicationName},
	"search_path":                         {def: `"$user", public`, check: checkSearchPath},
	"max_identifier_length":               {def: "63", readOnly: true},
	"server_version":                      {readOnly: true},
	"server_version_num":                  {def: "160000", readOnly: true},
	"lc_messages":                         {def: "C", check: only("lc_messages", "C")},
	"lc_monetary":                         {def: "C", check: only("lc_monetary", "C")},
	"lc_numeric":                          {def: "C", check: only("lc_numeric", "C")},
	"lc_time":                             {def: "C", check: only("lc_time", "C")},
	"client_min_messages":                 {def: "notice", check: checkMessageLevel},
	"statement_timeout":                   {def: "0", check: checkTimeout("statement_timeout", true)},
	"lock_timeout":                        {def: "0", check: checkTimeout("lock_timeout", false)},
	"idle_in_transaction_session_timeout": {def: "0", check: checkTimeout("idle_in_transaction_session_timeout", false)},
	"idle_session_timeout":                {def: "0", check: checkTimeout("idle_session_timeout", false)},
	"extra_float_digits":                  {def: "1", check: checkFloatDigits},
	SettingMinHeight:                      {def: "0"},
	SettingCrossCheck:                     {def: "off", check: anyBool(SettingCrossCheck)},
	SettingCopySplit:                      {def: "off", check: anyBool(SettingCopySplit)},
	SettingHeight:                         {readOnly: true},
	SettingReadGuarantee:                  {readOnly: true},
	"relchain.backend":                    {readOnly: true},
}

// lookupSetting finds a setting by lower-case name; a dotted name outside
// relchain's prefix is a custom placeholder, as in PostgreSQL.
func lookupSetting(name string) (setting, bool) {
	if st, ok := settingsTable[name]; ok {
		return st, true
	}
	if strings.Contains(name, ".") && !strings.HasPrefix(name, "relchain.") && !strings.HasPrefix(name, ".") && !strings.HasSuffix(name, ".") {
		return setting{custom: true}, true
	}
	return setting{}, false
}

func invalidValue(name, v string) *pgwire.Error {
	return &pgwire.Error{Code: stateInvalidValue, Message: fmt.Sprintf("invalid value for parameter %q: %q", name, v)}
}

// cannotHonour is a valid PostgreSQL value the gateway does not put in effect.
func cannotHonour(name, v, why string) *pgwire.Error {
	return refused("%s = %q is not supported by relchain: %s", name, v, why)
}

// only accepts the first of values (case-insensitive) and refuses the others.
func only(name string, values ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		for i, ok := range values {
			if strings.EqualFold(v, ok) {
				if i == 0 {
					return ok, nil
				}
				return "", cannotHonour(name, v, "the relchain gateway uses "+values[0]+" only")
			}
		}
		if len(values) == 1 {
			return "", cannotHonour(name, v, "the relchain gateway uses "+values[0]+" only")
		}
		return "", invalidValue(name, v)
	}
}

func anyBool(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		b, err := parseBool(v)
		if err != nil || v == "" {
			return "", &pgwire.Error{Code: stateInvalidValue, Message: fmt.Sprintf("parameter %q requires a Boolean value", name)}
		}
		return onOff(b), nil
	}
}

func onlyBool(name string, want bool) func(string) (string, error) {
	return func(v string) (string, error) {
		s, err := anyBool(name)(v)
		if err != nil {
			return "", err
		}
		if s != onOff(want) {
			return "", cannotHonour(name, v, "relchain runs with "+name+" = "+onOff(want)+" only")
		}
		return s, nil
	}
}

func checkEncoding(v string) (string, error) {
	switch strings.ToUpper(strings.NewReplacer("-", "", "_", "").Replace(v)) {
	case "UTF8", "UNICODE":
		return "UTF8", nil
	case "SQLASCII", "LATIN1", "LATIN2", "LATIN9", "WIN1250", "WIN1251", "WIN1252", "EUCJP", "EUCKR", "EUCCN", "SJIS", "BIG5", "GBK", "GB18030", "ISO88591", "ISO885915", "KOI8R", "KOI8U", "WIN866", "WIN874", "UHC", "JOHAB", "MULEINTERNAL":
		return "", cannotHonour("client_encoding", v, "the relchain gateway sends and reads UTF8 only")
	}
	return "", invalidValue("client_encoding", v)
}

// checkDateStyle applies PostgreSQL's DateStyle keywords to the default
// (ISO, MDY): the gateway sends dates in ISO and the chain reads
// ambiguous dates as MDY, so any other result is refused.
func checkDateStyle(v string) (string, error) {
	style, order := "ISO", "MDY"
	for _, tok := range strings.FieldsFunc(strings.ToUpper(v), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		switch tok {
		case "ISO", "SQL", "GERMAN":
			style = tok
		case "POSTGRES":
			style = "Postgres"
		case "DEFAULT":
			style, order = "ISO", "MDY"
		case "MDY", "US", "NONEURO", "NONEUROPEAN":
			order = "MDY"
		case "DMY", "EURO", "EUROPEAN":
			order = "DMY"
		case "YMD":
			order = "YMD"
		default:
			return "", invalidValue("DateStyle", v)
		}
	}
	if got := style + ", " + order; got != "ISO, MDY" {
		return "", cannotHonour("DateStyle", v, "the relchain gateway sends dates in ISO style and the chain reads ambiguous dates as MDY (DateStyle ISO, MDY only)")
	}
	return "ISO, MDY", nil
}

// utcZones are the time zone names that are UTC, as PostgreSQL shows them.
var utcZones = map[string]string{}

func init() {
	for _, z := range []string{"UTC", "Etc/UTC", "GMT", "Etc/GMT", "Zulu", "Etc/Zulu", "Universal", "Etc/Universal",
		"UCT", "Etc/UCT", "Greenwich", "Etc/Greenwich", "GMT0", "Etc/GMT0", "GMT+0", "Etc/GMT+0", "GMT-0", "Etc/GMT-0"} {
		utcZones[strings.ToLower(z)] = z
	}
}

// checkTimeZone accepts UTC under its names (and offset 0): timestamptz
// values are sent in UTC and the chain's databases run in UTC, so no
// other zone can be in effect.
func checkTimeZone(v string) (string, error) {
	if z, ok := utcZones[strings.ToLower(v)]; ok {
		return z, nil
	}
	if off, ok := intervalZone(v); ok { // SET TIME ZONE INTERVAL '+00:00' HOUR TO MINUTE (Sequelize)
		v = off
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f == 0 {
			return "<+00>-00", nil
		}
		return "", cannotHonour("TimeZone", v, "relchain sends timestamptz values in UTC and its databases run in UTC (SET TIME ZONE 'UTC')")
	}
	if _, err := time.LoadLocation(v); err != nil || v == "" || strings.EqualFold(v, "local") {
		return "", invalidValue("TimeZone", v)
	}
	return "", cannotHonour("TimeZone", v, "relchain sends timestamptz values in UTC and its databases run in UTC (SET TIME ZONE 'UTC')")
}

// intervalZonePattern is SET TIME ZONE's interval form.
var intervalZonePattern = regexp.MustCompile(`(?i)^interval\s*'\s*([+-]?)(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*'(?:\s+hour\s+to\s+minute)?$`)

// intervalZone reads SET TIME ZONE's interval form (INTERVAL '±hh[:mm[:ss]]'
// [HOUR TO MINUTE]) as an offset in hours; ok is false for other values.
func intervalZone(v string) (string, bool) {
	m := intervalZonePattern.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return "", false
	}
	secs := 0
	for i, unit := range []int{3600, 60, 1} {
		if m[2+i] != "" {
			n, _ := strconv.Atoi(m[2+i])
			secs += n * unit
		}
	}
	if m[1] == "-" {
		secs = -secs
	}
	return strconv.FormatFloat(float64(secs)/3600, 'f', -1, 64), true
}

func checkIsolation(v string) (string, error) {
	level := strings.ToLower(strings.Join(strings.Fields(v), " "))
	switch level {
	case "serializable", "repeatable read", "read committed", "read uncommitted":
		if err := isolationError(level); err != nil {
			return "", err
		}
		return level, nil
	}
	return "", invalidValue("transaction_isolation", v)
}

func checkApplicationName(v string) (string, error) {
	b := []byte(v)
	for i, c := range b { // PostgreSQL keeps printable ASCII only
		if c < 32 || c > 126 {
			b[i] = '?'
		}
	}
	if len(b) > 63 {
		b = b[:63]
	}
	return string(b), nil
}

// checkSearchPath accepts the paths that resolve names as the chain does:
// public, optionally after "$user" and pg_catalog (which PostgreSQL
// searches first anyway). SHOW reports the list as PostgreSQL does.
func checkSearchPath(v string) (string, error) {
	var items, shown []string
	for _, raw := range strings.Split(v, ",") {
		item := strings.TrimSpace(raw)
		if item == "" {
			continue
		}
		name := item
		if unq := unquote(item); unq != item {
			name = unq
		} else {
			name = strings.ToLower(item)
		}
		items = append(items, name)
		if name == "$user" || strings.ToLower(name) != name || strings.ContainsAny(name, " ,\"") {
			shown = append(shown, `"`+strings.ReplaceAll(name, `"`, `""`)+`"`)
		} else {
			shown = append(shown, name)
		}
	}
	rest := items
	for len(rest) > 0 && (rest[0] == "$user" || rest[0] == "pg_catalog") {
		rest = rest[1:]
	}
	if len(rest) != 1 || rest[0] != "public" {
		return "", cannotHonour("search_path", v, `the chain resolves unqualified names in schema public only (SET search_path TO public, or "$user", public)`)
	}
	return strings.Join(shown, ", "), nil
}

func checkMessageLevel(v string) (string, error) {
	l := strings.ToLower(v)
	switch l {
	case "debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error":
		return l, nil
	case "debug":
		return "debug2", nil
	}
	return "", invalidValue("client_min_messages", v)
}

// checkTimeout parses a PostgreSQL duration in milliseconds; settable
// says the gateway enforces non-zero values, else only 0 is in effect.
func checkTimeout(name string, settable bool) func(string) (string, error) {
	return func(v string) (string, error) {
		ms, err := parseDuration(v)
		if err != nil {
			return "", invalidValue(name, v)
		}
		if ms != 0 && !settable {
			return "", cannotHonour(name, v, "the relchain gateway does not enforce it (only 0 is in effect)")
		}
		return formatDuration(ms), nil
	}
}

// parseDuration reads an integer of milliseconds with an optional unit
// (us, ms, s, min, h, d), as PostgreSQL reads time settings.
func parseDuration(v string) (int64, error) {
	v = strings.TrimSpace(v)
	i := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '-' && r != '+' })
	num, unit := v, ""
	if i >= 0 {
		num, unit = v[:i], strings.TrimSpace(v[i:])
	}
	n, err := strconv.ParseInt(num, 10, 32)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a duration: %q", v)
	}
	mult := map[string]int64{"": 1, "ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000}
	m, ok := mult[unit]
	if !ok || n*m > 1<<31-1 {
		return 0, fmt.Errorf("not a duration: %q", v)
	}
	return n * m, nil
}

// formatDuration shows milliseconds in the largest exact unit, as SHOW does.
func formatDuration(ms int64) string {
	if ms == 0 {
		return "0"
	}
	for _, u := range []struct {
		name string
		ms   int64
	}{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}} {
		if ms%u.ms == 0 {
			return strconv.FormatInt(ms/u.ms, 10) + u.name
		}
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

// checkFloatDigits accepts 1 to 3: since PostgreSQL 12 every positive
// value means the shortest exact text, which is what the gateway sends;
// 0 and below round to fewer digits, which it does not do.
func checkFloatDigits(v string) (string, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case err != nil:
		return "", &pgwire.Error{Code: stateInvalidValue, Message: fmt.Sprintf("invalid value for parameter \"extra_float_digits\": %q", v)}
	case n < -15 || n > 3:
		return "", &pgwire.Error{Code: stateInvalidValue, Message: fmt.Sprintf("%d is outside the valid range for parameter \"extra_float_digits\" (-15 .. 3)", n)}
	case n <= 0:
		return "", cannotHonour("extra_float_digits", v, "the relchain gateway sends floats as their shortest exact text (extra_float_digits 1 to 3)")
	}
	return strconv.Itoa(n), nil
}
