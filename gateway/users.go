package gateway

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/BurntSushi/toml"

	"github.com/relchain/relchain/keyring"
	"github.com/relchain/relchain/pgwire"
)

// User is one name a PostgreSQL client may connect as: the key its
// writes are signed with and the SCRAM-SHA-256 verifier of its password.
type User struct {
	Name     string
	Key      ed25519.PrivateKey
	Verifier pgwire.Verifier
}

// usersFile is the TOML form of a users file. Key paths are relative to
// the file's directory; the file holds no password, only verifiers.
type usersFile struct {
	Users []userEntry `toml:"users"`
}

type userEntry struct {
	Name  string `toml:"name"`
	Key   string `toml:"key"`
	SCRAM string `toml:"scram"`
}

// Users is a loaded users file.
type Users struct {
	byName map[string]*User
}

// userName is what a user name may be: what PostgreSQL clients send
// without quoting trouble, and a safe key file name.
var userName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,62}$`)

// LoadUsers reads a users file and every key it names.
func LoadUsers(path string) (*Users, error) {
	f, err := readUsersFile(path)
	if err != nil {
		return nil, err
	}
	u := &Users{byName: map[string]*User{}}
	for i, e := range f.Users {
		if !userName.MatchString(e.Name) {
			return nil, fmt.Errorf("users file %s: entry %d: bad user name %q", path, i+1, e.Name)
		}
		if _, dup := u.byName[e.Name]; dup {
			return nil, fmt.Errorf("users file %s: user %q appears twice", path, e.Name)
		}
		v, err := pgwire.ParseVerifier(e.SCRAM)
		if err != nil {
			return nil, fmt.Errorf("users file %s: user %q: scram: %w", path, e.Name, err)
		}
		k, err := keyring.LoadFile(resolve(path, e.Key))
		if err != nil {
			return nil, fmt.Errorf("users file %s: user %q: key: %w", path, e.Name, err)
		}
		u.byName[e.Name] = &User{Name: e.Name, Key: k.Private, Verifier: v}
	}
	return u, nil
}

// Lookup returns a user by name.
func (u *Users) Lookup(name string) (*User, bool) {
	usr, ok := u.byName[name]
	return usr, ok
}

// Verifier is a pgwire.UserLookup.
func (u *Users) Verifier(name string) (pgwire.Verifier, bool) {
	usr, ok := u.byName[name]
	if !ok {
		return pgwire.Verifier{}, false
	}
	return usr.Verifier, true
}

// Names lists the users in byte order.
func (u *Users) Names() []string {
	names := make([]string, 0, len(u.byName))
	for n := range u.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func readUsersFile(path string) (*usersFile, error) {
	var f usersFile
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &f, err
	}
	if err != nil {
		return nil, fmt.Errorf("users file: %w", err)
	}
	if _, err := toml.Decode(string(b), &f); err != nil {
		return nil, fmt.Errorf("users file %s: %w", path, err)
	}
	return &f, nil
}

func resolve(usersPath, keyPath string) string {
	if filepath.IsAbs(keyPath) {
		return keyPath
	}
	return filepath.Join(filepath.Dir(usersPath), keyPath)
}

// AddUser adds name to the users file at path (created if missing, mode
// 0600) with password's verifier. keyFile names the user's signing key;
// "" creates one in keys/ beside the file. A name already present has its
// password (and, when keyFile is given, its key) replaced. It returns the
// key's public key, for `relchain admin grant`.
func AddUser(path, name, password, keyFile string) (ed25519.PublicKey, error) {
	if !userName.MatchString(name) {
		return nil, fmt.Errorf("bad user name %q: letters, digits, _ . - (up to 63), not starting with a digit", name)
	}
	if password == "" {
		return nil, errors.New("empty password")
	}
	f, err := readUsersFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	v, err := pgwire.NewVerifier(password, 0)
	if err != nil {
		return nil, err
	}
	idx := -1
	for i, e := range f.Users {
		if e.Name == name {
			idx = i
		}
	}
	if idx < 0 {
		f.Users = append(f.Users, userEntry{Name: name})
		idx = len(f.Users) - 1
	}
	entry := &f.Users[idx]
	entry.SCRAM = v.String()
	key, err := userKey(path, name, keyFile, entry)
	if err != nil {
		return nil, err
	}
	return key.Public(), writeUsersFile(path, f)
}

// userKey loads keyFile, keeps the entry's key, or creates one.
func userKey(usersPath, name, keyFile string, entry *userEntry) (keyring.Key, error) {
	if keyFile != "" {
		k, err := keyring.LoadFile(keyFile)
		if err != nil {
			return keyring.Key{}, err
		}
		abs, err := filepath.Abs(keyFile)
		if err != nil {
			return keyring.Key{}, err
		}
		entry.Key = abs
		return k, nil
	}
	if entry.Key != "" {
		return keyring.LoadFile(resolve(usersPath, entry.Key))
	}
	dir := keyring.Dir(filepath.Join(filepath.Dir(usersPath), "keys"))
	k, err := dir.Add(name)
	if err != nil {
		return keyring.Key{}, fmt.Errorf("create %s's key: %w", name, err)
	}
	entry.Key = filepath.Join("keys", name+".json")
	return k, nil
}

func writeUsersFile(path string, f *usersFile) error {
	var buf bytes.Buffer
	buf.WriteString("# relchain gateway users: who may connect, the key each one's writes are signed with,\n" +
		"# and the SCRAM-SHA-256 verifier of its password (never the password). Edit with\n" +
		"# `relchain gateway users add NAME`.\n")
	if err := toml.NewEncoder(&buf).Encode(f); err != nil {
		return fmt.Errorf("users file: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("users file: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("users file: %w", err)
	}
	return os.Rename(tmp, path)
}
