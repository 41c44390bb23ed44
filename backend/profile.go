package backend

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Profile is a database server's expected value of each setting that can
// change a statement's result, or whether it fails, and that relchain
// cannot pin on its own connections (a read-only or server-wide setting
// such as MariaDB's innodb_page_size, or one only a superuser may set such
// as PostgreSQL's max_stack_depth). It maps the setting's name to its
// value as the server reports it; the value AnyValue leaves the setting
// unchecked.
//
// A Profile is part of the network's contract: every validator's server
// must match it, so that a statement that fails on one node for a limit
// fails on every node. A backend has a fixed default profile; the genesis
// may override values (app.Params.DBProfile), never add names.
type Profile map[string]string

// AnyValue as a Profile value leaves the setting unchecked.
const AnyValue = "*"

// ProfileChecker is implemented by a backend whose server has settings
// that are part of the network's Profile.
type ProfileChecker interface {
	// DefaultProfile is the profile of a network whose genesis overrides
	// nothing.
	DefaultProfile() Profile
	// CheckProfile makes DefaultProfile with overrides the profile the
	// backend's server must match, and checks it at once: an error wraps a
	// *ProfileError naming the first setting that differs, or reports an
	// override of a setting the backend does not know. Until CheckProfile
	// is called the default profile applies. The backend checks the
	// profile again whenever it (re)connects its block writer, and a block
	// does not begin on a server that differs (a node fault, never a tx
	// result).
	CheckProfile(ctx context.Context, overrides map[string]string) error
}

// ProfileError reports a server setting that differs from the network's
// profile: the node must not execute blocks on it.
type ProfileError struct {
	Backend string // "postgres", "mysql"
	Setting string
	Have    string // the server's value
	Want    string // the profile's value
	Why     string // what a different value changes
	Fix     string // how an operator makes the server match
}

func (e *ProfileError) Error() string {
	return fmt.Sprintf("%s: the database server has %s = %q; the network's profile expects %q "+
		"(%s). This node would compute different results than the others, so it does not execute blocks. Fix: %s",
		e.Backend, e.Setting, e.Have, e.Want, e.Why, e.Fix)
}

// MergeProfile is def with overrides applied. An override of a setting
// def does not name is an error, so that a typo in the genesis cannot
// silently leave a setting unchecked.
func MergeProfile(def Profile, overrides map[string]string) (Profile, error) {
	out := make(Profile, len(def))
	for k, v := range def {
		out[k] = v
	}
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, ok := def[k]; !ok {
			names := make([]string, 0, len(def))
			for n := range def {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("db_profile: unknown setting %q (this backend's profile has: %s)", k, strings.Join(names, ", "))
		}
		out[k] = overrides[k]
	}
	return out, nil
}

// ProfileSetting describes how a backend reads one setting of its
// profile and what a different value would change.
type ProfileSetting struct {
	Name string
	Why  string // what a different value changes
	Fix  string // how an operator sets it
	// Match compares the server's value with the profile's; nil: equal
	// strings.
	Match func(have, want string) bool
}

// CompareProfile checks have (the server's values) against want, setting
// by setting in the order of settings, and returns a *ProfileError for
// the first that differs.
func CompareProfile(backendName string, settings []ProfileSetting, have, want Profile) error {
	for _, s := range settings {
		w, ok := want[s.Name]
		if !ok || w == AnyValue {
			continue
		}
		h := have[s.Name]
		match := h == w
		if s.Match != nil {
			match = s.Match(h, w)
		}
		if !match {
			return &ProfileError{Backend: backendName, Setting: s.Name, Have: h, Want: w, Why: s.Why, Fix: s.Fix}
		}
	}
	return nil
}
