package pgwire

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Startup packet codes (PostgreSQL's pqcomm.h).
const (
	protocolVersion3  = 3 << 16
	sslRequestCode    = 80877103
	gssEncRequestCode = 80877104
	cancelRequestCode = 80877102
	maxStartupPacket  = 10000 // MAX_STARTUP_PACKET_LENGTH
)

// errCancelHandled ends a connection that carried a CancelRequest: no reply is sent.
var errCancelHandled = errors.New("pgwire: cancel request handled")

// startupInfo is what the client asked for in its StartupMessage.
type startupInfo struct {
	user   string
	params map[string]string
}

// readStartupPacket reads one length-prefixed startup packet straight from the connection,
// unbuffered: bytes a client sends after an SSLRequest must not be read before the TLS
// handshake (CVE-2021-23214).
func readStartupPacket(r io.Reader) (code uint32, body []byte, err error) {
	var hdr [8]byte
	if _, err := io.ReadFull(r, hdr[:4]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	if n < 8 || n > maxStartupPacket {
		return 0, nil, fatalf(codeProtocolViolation, "invalid length of startup packet: %d", n)
	}
	if _, err := io.ReadFull(r, hdr[4:]); err != nil {
		return 0, nil, err
	}
	body = make([]byte, n-8)
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, nil, err
	}
	return binary.BigEndian.Uint32(hdr[4:]), body, nil
}

// startup negotiates TLS and reads the StartupMessage. It returns errCancelHandled for a
// CancelRequest connection and a FATAL *Error the caller sends for a refused startup.
func (c *conn) startup() (*startupInfo, error) {
	for {
		code, body, err := readStartupPacket(c.nc)
		if err != nil {
			return nil, err
		}
		switch {
		case code == sslRequestCode:
			if err := c.negotiateTLS(); err != nil {
				return nil, err
			}
		case code == gssEncRequestCode:
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return nil, err
			}
		case code == cancelRequestCode:
			if len(body) != 8 {
				return nil, fatalf(codeProtocolViolation, "invalid length of cancel request")
			}
			c.srv.cancel(binary.BigEndian.Uint32(body[:4]), binary.BigEndian.Uint32(body[4:]))
			return nil, errCancelHandled
		case code>>16 == 3:
			return c.startupMessage(code, body)
		default:
			return nil, fatalf(codeFeatureNotSupported,
				"unsupported frontend protocol %d.%d: server supports 3.0 to 3.0", code>>16, code&0xffff)
		}
	}
}

func (c *conn) negotiateTLS() error {
	if c.tls {
		return fatalf(codeProtocolViolation, "SSLRequest received on an encrypted connection")
	}
	if c.srv.TLS == nil {
		_, err := c.nc.Write([]byte{'N'})
		return err
	}
	if _, err := c.nc.Write([]byte{'S'}); err != nil {
		return err
	}
	tc := tls.Server(c.nc, c.srv.TLS)
	if err := tc.Handshake(); err != nil {
		return fmt.Errorf("pgwire: TLS handshake: %w", err)
	}
	c.nc, c.tls = tc, true
	return nil
}

// startupMessage parses the parameters of a protocol 3.x StartupMessage. A newer minor
// version, or _pq_.* protocol options, get a NegotiateProtocolVersion answer: 3.0 and none.
func (c *conn) startupMessage(version uint32, body []byte) (*startupInfo, error) {
	params := map[string]string{}
	var unknownOptions []string
	for {
		name, rest, ok := bytes.Cut(body, []byte{0})
		if !ok {
			return nil, fatalf(codeProtocolViolation, "invalid startup packet layout: missing terminator")
		}
		if len(name) == 0 {
			break
		}
		value, rest2, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return nil, fatalf(codeProtocolViolation, "invalid startup packet layout: value of %q unterminated", name)
		}
		body = rest2
		if strings.HasPrefix(string(name), "_pq_.") {
			unknownOptions = append(unknownOptions, string(name))
			continue
		}
		params[string(name)] = string(value)
	}
	if c.srv.RequireTLS && !c.tls {
		return nil, fatalf(codeInvalidAuthorization,
			"this server requires an SSL/TLS connection (use sslmode=require)")
	}
	user := params["user"]
	if user == "" {
		return nil, fatalf(codeInvalidAuthorization, "no PostgreSQL user name specified in startup packet")
	}
	if params["database"] == "" {
		params["database"] = user
	}
	if version&0xffff != 0 || len(unknownOptions) > 0 {
		c.pending = append(c.pending, &negotiateProtocolVersion{options: unknownOptions})
	}
	return &startupInfo{user: user, params: params}, nil
}

// negotiateProtocolVersion is the 'v' message (pgproto3 has no encoder for it).
type negotiateProtocolVersion struct{ options []string }

func (*negotiateProtocolVersion) Backend()                 {}
func (*negotiateProtocolVersion) Decode(data []byte) error { return errors.New("not decodable") }
func (m *negotiateProtocolVersion) Encode(dst []byte) ([]byte, error) {
	body := binary.BigEndian.AppendUint32(nil, 0) // newest minor version supported: 3.0
	body = binary.BigEndian.AppendUint32(body, uint32(len(m.options)))
	for _, o := range m.options {
		body = append(append(body, o...), 0)
	}
	dst = append(dst, 'v')
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(body)+4))
	return append(dst, body...), nil
}

// sendFatalRaw writes a FATAL ErrorResponse before a Backend exists.
func sendFatalRaw(w io.Writer, e *Error, deadline time.Duration) {
	if e.Severity == "" {
		e.Severity = severityFatal
	}
	buf, err := errorResponse(e).Encode(nil)
	if err != nil {
		return
	}
	if d, ok := w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		_ = d.SetWriteDeadline(time.Now().Add(deadline))
	}
	_, _ = w.Write(buf)
}

// startupParameterStatus is what PostgreSQL reports after authentication; clients (pgx,
// lib/pq, JDBC) read server_version, integer_datetimes and standard_conforming_strings. A
// ParameterReporter's values replace these defaults and add to them; the client is
// then told of each later change (readyForQuery).
func (c *conn) startupParameterStatus(info *startupInfo) []*pgproto3.ParameterStatus {
	kv := [][2]string{
		{"server_version", c.srv.serverVersion()},
		{"server_encoding", "UTF8"},
		{"client_encoding", "UTF8"},
		{"DateStyle", "ISO, MDY"},
		{"integer_datetimes", "on"},
		{"standard_conforming_strings", "on"},
		{"TimeZone", "UTC"},
		{"application_name", info.params["application_name"]},
		{"IntervalStyle", "postgres"},
		{"is_superuser", "off"},
		{"session_authorization", info.user},
	}
	var session map[string]string
	if r, ok := c.sess.(ParameterReporter); ok {
		session = r.ReportedParameters()
	}
	out := make([]*pgproto3.ParameterStatus, 0, len(kv)+len(session))
	for _, p := range kv {
		if v, ok := session[p[0]]; ok {
			p[1] = v
		}
		out = append(out, &pgproto3.ParameterStatus{Name: p[0], Value: p[1]})
		c.reported[p[0]] = p[1]
	}
	names := make([]string, 0, len(session))
	for name := range session {
		if _, ok := c.reported[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		out = append(out, &pgproto3.ParameterStatus{Name: name, Value: session[name]})
		c.reported[name] = session[name]
	}
	return out
}
