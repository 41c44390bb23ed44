//go:build e2e_clock && !(linux && amd64)

package clockfault

import (
	"errors"
	"os"
	"time"
)

// EnvOffset names the environment variable InstallFromEnv reads.
const EnvOffset = "RELCHAIN_E2E_CLOCK_OFFSET"

var errUnsupported = errors.New("clockfault: offsetting the wall clock needs linux/amd64")

// Install fails: the patch is written for linux/amd64 only.
func Install(time.Duration) error { return errUnsupported }

// InstallFromEnv fails if EnvOffset is set.
func InstallFromEnv() (time.Duration, error) {
	if os.Getenv(EnvOffset) == "" {
		return 0, nil
	}
	return 0, errUnsupported
}

// Offset is always 0 here.
func Offset() time.Duration { return 0 }
