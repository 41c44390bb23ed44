package keyring

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// DefaultName is the key used when none is named.
const DefaultName = "default"

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Key is a named ed25519 key pair.
type Key struct {
	Name    string
	Private ed25519.PrivateKey
}

// Public returns the public key.
func (k Key) Public() ed25519.PublicKey { return k.Private.Public().(ed25519.PublicKey) }

// PublicHex returns the public key in hex, as relchain prints it.
func (k Key) PublicHex() string { return hex.EncodeToString(k.Public()) }

type file struct {
	Name    string `json:"name"`
	Public  string `json:"public_key"`
	Private string `json:"private_key"`
}

// Dir is a directory of keys.
type Dir string

// ErrNotFound is returned by Load for a missing key.
var ErrNotFound = errors.New("key not found")

func (d Dir) path(name string) string { return filepath.Join(string(d), name+".json") }

// Add creates a new key; it refuses to overwrite one.
func (d Dir) Add(name string) (Key, error) {
	if !validName.MatchString(name) {
		return Key{}, fmt.Errorf("key name %q: use 1-64 letters, digits, '.', '_' or '-'", name)
	}
	if _, err := os.Stat(d.path(name)); err == nil {
		return Key{}, fmt.Errorf("key %q already exists in %s", name, d)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return Key{}, fmt.Errorf("generate key: %w", err)
	}
	k := Key{Name: name, Private: priv}
	return k, d.save(k)
}

func (d Dir) save(k Key) error {
	if err := os.MkdirAll(string(d), 0o700); err != nil {
		return fmt.Errorf("create key directory: %w", err)
	}
	f, err := os.OpenFile(d.path(k.Name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write key %q: %w", k.Name, err)
	}
	if _, err := f.Write(Encode(k)); err != nil {
		f.Close()
		return fmt.Errorf("write key %q: %w", k.Name, err)
	}
	return f.Close()
}

// Load reads a key by name.
func (d Dir) Load(name string) (Key, error) {
	return LoadFile(d.path(name))
}

// LoadOrCreateDefault returns the default key, creating it on first use.
func (d Dir) LoadOrCreateDefault() (Key, error) {
	k, err := d.Load(DefaultName)
	if errors.Is(err, ErrNotFound) {
		return d.Add(DefaultName)
	}
	return k, err
}

// LoadFile reads a key file.
func LoadFile(path string) (Key, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Key{}, fmt.Errorf("%w: %s (create one with `relchain keys add NAME`)", ErrNotFound, path)
	}
	if err != nil {
		return Key{}, fmt.Errorf("read key: %w", err)
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return Key{}, fmt.Errorf("parse key file %s: %w", path, err)
	}
	priv, err := hex.DecodeString(f.Private)
	if err != nil || len(priv) != ed25519.PrivateKeySize {
		return Key{}, fmt.Errorf("key file %s: private_key must be %d hex-encoded bytes", path, ed25519.PrivateKeySize)
	}
	return Key{Name: f.Name, Private: ed25519.PrivateKey(priv)}, nil
}

// List returns the keys in the directory, sorted by name.
func (d Dir) List() ([]Key, error) {
	entries, err := os.ReadDir(string(d))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	var keys []Key
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		k, err := LoadFile(filepath.Join(string(d), e.Name()))
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Name < keys[j].Name })
	return keys, nil
}

// Path is the file of the key named name.
func (d Dir) Path(name string) string { return d.path(name) }

// Has reports whether d holds a key named name (a valid name whose file
// exists).
func (d Dir) Has(name string) bool {
	if !validName.MatchString(name) {
		return false
	}
	_, err := os.Stat(d.path(name))
	return err == nil
}

// Import stores priv as the key name; it refuses an invalid name and an
// existing key.
func (d Dir) Import(name string, priv ed25519.PrivateKey) (Key, error) {
	if !validName.MatchString(name) {
		return Key{}, fmt.Errorf("key name %q: use 1-64 letters, digits, '.', '_' or '-'", name)
	}
	if d.Has(name) {
		return Key{}, fmt.Errorf("key %q already exists in %s: delete it first (relchain keys delete %s) or choose another name", name, d, name)
	}
	k := Key{Name: name, Private: priv}
	return k, d.save(k)
}

// Delete removes the key named name; an unknown name is an error wrapping
// ErrNotFound.
func (d Dir) Delete(name string) error {
	if !d.Has(name) {
		return fmt.Errorf("%w: no key named %q in %s (relchain keys list shows them)", ErrNotFound, name, d)
	}
	if err := os.Remove(d.path(name)); err != nil {
		return fmt.Errorf("delete key %q: %w", name, err)
	}
	return nil
}

// Encode is the key file of k, as keys are stored and exported.
func Encode(k Key) []byte {
	b, _ := json.MarshalIndent(file{Name: k.Name, Public: k.PublicHex(), Private: hex.EncodeToString(k.Private)}, "", "  ")
	return append(b, '\n')
}

// ParsePrivate reads a private key from b: a relchain key file (JSON, as
// Encode writes it), or hex text of an ed25519 private key (64 bytes) or
// seed (32 bytes). A key file whose public key does not match its private
// key is refused.
func ParsePrivate(b []byte) (ed25519.PrivateKey, error) {
	s := strings.TrimSpace(string(b))
	if strings.HasPrefix(s, "{") {
		var f file
		if err := json.Unmarshal([]byte(s), &f); err != nil {
			return nil, fmt.Errorf("not a relchain key file: %w", err)
		}
		priv, err := hex.DecodeString(f.Private)
		if err != nil || len(priv) != ed25519.PrivateKeySize {
			return nil, fmt.Errorf("key file: private_key must be %d hex-encoded bytes", ed25519.PrivateKeySize)
		}
		k := Key{Private: priv}
		if f.Public != "" && !strings.EqualFold(f.Public, k.PublicHex()) {
			return nil, errors.New("key file: public_key does not belong to private_key")
		}
		return k.Private, nil
	}
	raw, err := hex.DecodeString(s)
	if err != nil {
		return nil, errors.New("neither a relchain key file (JSON) nor a hex private key")
	}
	switch len(raw) {
	case ed25519.SeedSize:
		return ed25519.NewKeyFromSeed(raw), nil
	case ed25519.PrivateKeySize:
		k := ed25519.NewKeyFromSeed(raw[:ed25519.SeedSize])
		if !k.Equal(ed25519.PrivateKey(raw)) {
			return nil, errors.New("hex private key: its public half does not belong to its seed")
		}
		return k, nil
	}
	return nil, fmt.Errorf("hex private key: %d bytes, want %d (seed) or %d (private key)", len(raw), ed25519.SeedSize, ed25519.PrivateKeySize)
}
