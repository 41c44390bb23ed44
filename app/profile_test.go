package app_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
)

// The genesis may override values of the backend's server profile; old
// genesis files (no db_profile) keep the backend's default profile.
func TestGenesisDBProfile(t *testing.T) {
	p, err := app.ParseParams([]byte(`{"backend":"postgres"}`))
	if err != nil || p.DBProfile != nil {
		t.Fatalf("a genesis without db_profile: %v, %v; want none (the backend's defaults)", p.DBProfile, err)
	}
	p, err = app.ParseParams([]byte(`{"backend":"postgres","db_profile":{"max_stack_depth":"7168"}}`))
	if err != nil || p.DBProfile["max_stack_depth"] != "7168" {
		t.Fatalf("db_profile = %v, %v", p.DBProfile, err)
	}
	if p.Equal(app.Params{MaxTxBytes: p.MaxTxBytes, MaxStatements: p.MaxStatements, Backend: p.Backend}) {
		t.Fatal("parameters that differ in db_profile are Equal")
	}
	if _, err := app.ParseParams([]byte(`{"db_profile":{"":"1"}}`)); err == nil {
		t.Fatal("a db_profile with an empty setting name was accepted")
	}
}

// A node whose database server differs from the network's profile does
// not start: NewExecutor names the setting; an override of a setting the
// backend does not know, or a db_profile on a backend without one, is
// refused too.
func TestExecutorRefusesAServerOutsideTheProfile(t *testing.T) {
	for _, s := range stores(t) {
		t.Run(s.dialect, func(t *testing.T) {
			be := s.open(t)
			defer be.Close()
			p := app.DefaultParams()
			p.Backend = s.dialect
			pc, ok := be.(backend.ProfileChecker)
			if !ok {
				p.DBProfile = map[string]string{"max_stack_depth": "2048"}
				if _, err := app.NewExecutor(context.Background(), be, chainID, p); err == nil || !strings.Contains(err.Error(), "db_profile") {
					t.Fatalf("a db_profile on %s: %v; want it refused", s.dialect, err)
				}
				return
			}
			// Expect a value this server does not have.
			var name string
			for k, v := range pc.DefaultProfile() {
				if v != backend.AnyValue {
					name = k
					break
				}
			}
			p.DBProfile = map[string]string{name: "not-this-server"}
			_, err := app.NewExecutor(context.Background(), be, chainID, p)
			var pe *backend.ProfileError
			if !errors.As(err, &pe) || pe.Setting != name || pe.Want != "not-this-server" {
				t.Fatalf("NewExecutor on a server outside the profile: %v; want a profile error naming %s", err, name)
			}
			p.DBProfile = map[string]string{"no_such_setting": "1"}
			if _, err := app.NewExecutor(context.Background(), be, chainID, p); err == nil || !strings.Contains(err.Error(), "no_such_setting") {
				t.Fatalf("an unknown setting in db_profile: %v; want it refused, naming it", err)
			}
			p.DBProfile = nil
			if _, err := app.NewExecutor(context.Background(), be, chainID, p); err != nil {
				t.Fatalf("the default profile on the test server: %v", err)
			}
		})
	}
}
