package pgwire

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// DefaultSCRAMIterations is PostgreSQL's default scram_iterations.
const DefaultSCRAMIterations = 4096

const scramSaltLen = 16

// UserLookup returns the SCRAM-SHA-256 verifier stored for a user; false: no such user.
type UserLookup func(user string) (Verifier, bool)

// Verifier is a SCRAM-SHA-256 stored credential (RFC 5802 / RFC 7677): the server never
// holds the password, only what it needs to check a proof and to prove itself.
type Verifier struct {
	Salt       []byte
	Iterations int
	StoredKey  []byte
	ServerKey  []byte
}

// NewVerifier derives a verifier for password with a random 16-byte salt. iterations 0
// means DefaultSCRAMIterations.
//
// The password is used as its UTF-8 bytes without SASLprep normalisation; PostgreSQL does the
// same for passwords that are not valid SASLprep input, and for ASCII passwords the two agree.
func NewVerifier(password string, iterations int) (Verifier, error) {
	if iterations == 0 {
		iterations = DefaultSCRAMIterations
	}
	if iterations < 1 {
		return Verifier{}, fmt.Errorf("pgwire: SCRAM iteration count %d must be positive", iterations)
	}
	salt := make([]byte, scramSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return Verifier{}, fmt.Errorf("pgwire: generating SCRAM salt: %w", err)
	}
	return deriveVerifier(password, salt, iterations)
}

func deriveVerifier(password string, salt []byte, iterations int) (Verifier, error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return Verifier{}, fmt.Errorf("pgwire: deriving SCRAM salted password: %w", err)
	}
	clientKey := hmacSHA256(salted, []byte("Client Key"))
	stored := sha256.Sum256(clientKey)
	return Verifier{
		Salt:       salt,
		Iterations: iterations,
		StoredKey:  stored[:],
		ServerKey:  hmacSHA256(salted, []byte("Server Key")),
	}, nil
}

func hmacSHA256(key, msg []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(msg)
	return h.Sum(nil)
}

// String renders v the way PostgreSQL stores it in pg_authid.rolpassword:
// "SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>" with standard base64.
func (v Verifier) String() string {
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s",
		v.Iterations, b64(v.Salt), b64(v.StoredKey), b64(v.ServerKey))
}

// ParseVerifier parses the form String produces (and PostgreSQL stores).
func ParseVerifier(s string) (Verifier, error) {
	rest, ok := strings.CutPrefix(s, "SCRAM-SHA-256$")
	if !ok {
		return Verifier{}, errors.New("pgwire: verifier does not start with SCRAM-SHA-256$")
	}
	iterSalt, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return Verifier{}, errors.New("pgwire: verifier lacks the $ between salt and keys")
	}
	iterText, saltText, ok1 := strings.Cut(iterSalt, ":")
	storedText, serverText, ok2 := strings.Cut(keys, ":")
	if !ok1 || !ok2 {
		return Verifier{}, errors.New("pgwire: verifier lacks a ':' separator")
	}
	iter, err := strconv.Atoi(iterText)
	if err != nil || iter < 1 {
		return Verifier{}, fmt.Errorf("pgwire: verifier iteration count %q is not a positive integer", iterText)
	}
	v := Verifier{Iterations: iter}
	for _, f := range []struct {
		dst  *[]byte
		text string
		name string
	}{{&v.Salt, saltText, "salt"}, {&v.StoredKey, storedText, "StoredKey"}, {&v.ServerKey, serverText, "ServerKey"}} {
		b, err := base64.StdEncoding.DecodeString(f.text)
		if err != nil {
			return Verifier{}, fmt.Errorf("pgwire: verifier %s is not base64: %w", f.name, err)
		}
		*f.dst = b
	}
	if len(v.StoredKey) != sha256.Size || len(v.ServerKey) != sha256.Size || len(v.Salt) == 0 {
		return Verifier{}, errors.New("pgwire: verifier keys must be 32 bytes and the salt non-empty")
	}
	return v, nil
}
