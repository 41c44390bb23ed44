// Package clockfault offsets the wall clock of the process it runs in: a
// fault-injection aid for the e2e harness (a validator whose clock is an
// hour off), compiled only into builds with the e2e_clock tag and never
// into a release binary.
//
// Why in-process: Go reads CLOCK_REALTIME through the vDSO, not libc, so
// libfaketime (an LD_PRELOAD of libc's clock functions) does not move it;
// a time namespace (CLONE_NEWTIME) offsets only CLOCK_MONOTONIC and
// CLOCK_BOOTTIME, never CLOCK_REALTIME; setting the host's clock moves
// every process on the machine. So Install overwrites the entry of the
// runtime function behind time.Now (time.runtimeNow) with a jump to a
// function that adds the offset to the wall reading and leaves the
// monotonic reading alone: every time.Now in the process, CometBFT's
// included (cmttime.Now for votes and proposals), reads the shifted wall
// clock, while durations, timers and sleeps stay right.
package clockfault
