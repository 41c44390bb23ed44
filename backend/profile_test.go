package backend_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
)

var settings = []backend.ProfileSetting{
	{Name: "page", Why: "row size", Fix: "reinitialise"},
	{Name: "version", Why: "functions", Fix: "upgrade"},
	{Name: "depth", Why: "stack", Fix: "reset it", Match: func(have, want string) bool { return have == want }},
}

// An override replaces a default; an unknown name is refused, naming it
// and the known ones; AnyValue leaves a setting unchecked; the first
// setting that differs is reported with both values.
func TestProfileMergeAndCompare(t *testing.T) {
	def := backend.Profile{"page": "16384", "version": backend.AnyValue, "depth": "2048"}
	if _, err := backend.MergeProfile(def, map[string]string{"pgae": "8192"}); err == nil ||
		!strings.Contains(err.Error(), `"pgae"`) || !strings.Contains(err.Error(), "depth, page, version") {
		t.Fatalf("unknown override: %v", err)
	}
	want, err := backend.MergeProfile(def, map[string]string{"depth": "7168"})
	if err != nil || want["depth"] != "7168" || want["page"] != "16384" || def["depth"] != "2048" {
		t.Fatalf("merged %v (%v); the defaults must stay %v", want, err, def)
	}
	have := backend.Profile{"page": "16384", "version": "10.11", "depth": "7168"}
	if err := backend.CompareProfile("x", settings, have, want); err != nil {
		t.Fatalf("a matching server: %v", err)
	}
	have["page"], have["depth"] = "8192", "2048"
	err = backend.CompareProfile("x", settings, have, want)
	var pe *backend.ProfileError
	if !errors.As(err, &pe) || pe.Setting != "page" || pe.Have != "8192" || pe.Want != "16384" ||
		!strings.Contains(err.Error(), "Fix: reinitialise") {
		t.Fatalf("a differing server: %v; want page named first with both values and the fix", err)
	}
}
