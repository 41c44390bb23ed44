package pgwire

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
)

const scramMechanism = "SCRAM-SHA-256"

// scramExchange is the state of one SCRAM-SHA-256 exchange (RFC 5802 §3) on the server side.
type scramExchange struct {
	verifier    Verifier
	known       bool   // false: unknown user, the exchange runs against a mock and fails
	gs2Header   string // e.g. "n,," – echoed base64-encoded in the client-final c= attribute
	clientBare  string // client-first-message-bare
	serverFirst string
	nonce       string // client nonce + server nonce
}

// authFailed is the one error both an unknown user and a wrong password get, so that a
// client cannot probe which user names exist.
func authFailed(user string) *Error {
	return fatalf(codeInvalidPassword, "password authentication failed for user %q", user)
}

func malformedSCRAM(what string) *Error {
	return fatalf(codeProtocolViolation, "malformed SCRAM message: %s", what)
}

// authenticate runs SASL SCRAM-SHA-256 for user; it returns nil once the proof verified and
// AuthenticationOk is queued, otherwise a FATAL *Error.
func (c *conn) authenticate(user string) *Error {
	ex := &scramExchange{}
	ex.verifier, ex.known = c.srv.lookupVerifier(user)
	c.be.Send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{scramMechanism}})
	if err := c.be.Flush(); err != nil {
		return fatalf(codeConnectionFailure, "sending authentication request: %v", err)
	}
	c.authPhase = pgproto3.AuthTypeSASL
	msg, err := c.receive()
	if err != nil {
		return c.authReadError(err)
	}
	initial, ok := msg.(*pgproto3.SASLInitialResponse)
	if !ok {
		return fatalf(codeProtocolViolation, "expected SASL initial response, got %T", msg)
	}
	if initial.AuthMechanism != scramMechanism {
		return fatalf(codeProtocolViolation, "client selected an invalid SASL authentication mechanism")
	}
	if e := ex.readClientFirst(string(initial.Data)); e != nil {
		return e
	}
	c.be.Send(&pgproto3.AuthenticationSASLContinue{Data: []byte(ex.serverFirst)})
	if err := c.be.Flush(); err != nil {
		return fatalf(codeConnectionFailure, "sending SCRAM server-first message: %v", err)
	}
	c.authPhase = pgproto3.AuthTypeSASLContinue
	msg, err = c.receive()
	if err != nil {
		return c.authReadError(err)
	}
	final, ok := msg.(*pgproto3.SASLResponse)
	if !ok {
		return fatalf(codeProtocolViolation, "expected SASL response, got %T", msg)
	}
	serverFinal, e := ex.verifyClientFinal(string(final.Data), user)
	if e != nil {
		return e
	}
	c.be.Send(&pgproto3.AuthenticationSASLFinal{Data: []byte(serverFinal)})
	c.be.Send(&pgproto3.AuthenticationOk{})
	c.authPhase = 0
	return nil
}

// readClientFirst parses "gs2-header client-first-bare" and builds the server-first message.
func (ex *scramExchange) readClientFirst(data string) *Error {
	var rest string
	switch {
	case strings.HasPrefix(data, "n,"), strings.HasPrefix(data, "y,"):
		rest = data[2:]
	case strings.HasPrefix(data, "p="):
		return malformedSCRAM("channel binding was not offered by the server")
	default:
		return malformedSCRAM("unexpected GS2 header")
	}
	authzid, bare, ok := strings.Cut(rest, ",")
	if !ok {
		return malformedSCRAM("client-first message is truncated")
	}
	if authzid != "" {
		return malformedSCRAM("authorization identity is not supported")
	}
	ex.gs2Header, ex.clientBare = data[:len(data)-len(bare)], bare
	attrs := strings.Split(bare, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "n=") || !strings.HasPrefix(attrs[1], "r=") {
		return malformedSCRAM("client-first message lacks n= or r=")
	}
	clientNonce := attrs[1][2:]
	if clientNonce == "" {
		return malformedSCRAM("empty client nonce")
	}
	serverNonce := make([]byte, 18)
	if _, err := rand.Read(serverNonce); err != nil {
		return fatalf(codeInternal, "generating SCRAM nonce: %v", err)
	}
	ex.nonce = clientNonce + base64.StdEncoding.EncodeToString(serverNonce)
	ex.serverFirst = fmt.Sprintf("r=%s,s=%s,i=%d", ex.nonce,
		base64.StdEncoding.EncodeToString(ex.verifier.Salt), ex.verifier.Iterations)
	return nil
}

// verifyClientFinal checks the client proof and returns the server-final message.
func (ex *scramExchange) verifyClientFinal(data, user string) (string, *Error) {
	idx := strings.LastIndex(data, ",p=")
	if idx < 0 {
		return "", malformedSCRAM("client-final message lacks the proof")
	}
	withoutProof, proofText := data[:idx], data[idx+3:]
	attrs := strings.Split(withoutProof, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "c=") || !strings.HasPrefix(attrs[1], "r=") {
		return "", malformedSCRAM("client-final message lacks c= or r=")
	}
	if attrs[0][2:] != base64.StdEncoding.EncodeToString([]byte(ex.gs2Header)) {
		return "", malformedSCRAM("channel binding data does not match")
	}
	if attrs[1][2:] != ex.nonce {
		return "", malformedSCRAM("nonce does not match")
	}
	proof, err := base64.StdEncoding.DecodeString(proofText)
	if err != nil || len(proof) != sha256.Size {
		return "", malformedSCRAM("invalid client proof")
	}
	authMessage := []byte(ex.clientBare + "," + ex.serverFirst + "," + withoutProof)
	clientSig := hmacSHA256(ex.verifier.StoredKey, authMessage)
	clientKey := make([]byte, sha256.Size)
	for i := range clientKey {
		clientKey[i] = proof[i] ^ clientSig[i]
	}
	stored := sha256.Sum256(clientKey)
	if !hmac.Equal(stored[:], ex.verifier.StoredKey) || !ex.known {
		return "", authFailed(user)
	}
	serverSig := hmacSHA256(ex.verifier.ServerKey, authMessage)
	return "v=" + base64.StdEncoding.EncodeToString(serverSig), nil
}

// lookupVerifier returns the user's verifier, or for an unknown user a mock whose salt is
// derived from the name and a per-server secret – like PostgreSQL's mock authentication,
// the exchange then looks the same as for a real user until it fails at the proof.
func (s *Server) lookupVerifier(user string) (Verifier, bool) {
	if s.Users != nil {
		if v, ok := s.Users(user); ok && len(v.StoredKey) == sha256.Size && v.Iterations > 0 {
			return v, true
		}
	}
	secret := s.mockSecret()
	salt := hmacSHA256(secret, []byte("salt:"+user))[:scramSaltLen]
	return Verifier{
		Salt:       salt,
		Iterations: DefaultSCRAMIterations,
		StoredKey:  hmacSHA256(secret, []byte("stored:"+user)),
		ServerKey:  hmacSHA256(secret, []byte("server:"+user)),
	}, false
}

// authReadError is the FATAL answer to a failed read during SCRAM: a malformed message's
// own protocol error, the startup timeout, or a neutral text (the client is likely gone).
func (c *conn) authReadError(err error) *Error {
	var pe *protocolError
	var ne net.Error
	switch {
	case errors.As(err, &pe):
		c.logProtocolError(pe)
		return fatalf(codeProtocolViolation, "%s", pe.Message)
	case errors.As(err, &ne) && ne.Timeout():
		return fatalf(codeProtocolViolation, "startup did not finish in time")
	}
	return fatalf(codeConnectionFailure, "could not read the SASL response")
}
