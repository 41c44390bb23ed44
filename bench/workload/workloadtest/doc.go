// Package workloadtest runs the lab's workloads (bench/workload) through
// relchain's real block executor in process, on app/workloadtest's Chain:
// Setup, Run and Check of a workload, and reads normalized as
// workload.Normalize does. Workload packages use it to test that their SQL
// passes the gate and keeps their consistency conditions.
//
// On a chain speaking a translated SQL dialect (NewChainSpeaking: the
// postgres dialect on SQLite), a statement the translator refuses
// (SQLSTATE 0A000) skips the test naming the statement and the refusal,
// in Setup, Run and Check alike: a workload the translator cannot run yet
// is reported, never rewritten around. Any other failure fails the test.
//
// It lives in the lab, not under app: the executor's harness
// (app/workloadtest) does not import the lab, so the dependency runs one
// way, bench → app.
package workloadtest
