// Package workloadtest runs the lab's workloads (bench/workload) through
// relchain's real block executor in process, on app/workloadtest's Chain:
// Setup, Run and Check of a workload, and reads normalized as
// workload.Normalize does. Workload packages use it to test that their SQL
// passes the gate and keeps their consistency conditions.
//
// It lives in the lab, not under app: the executor's harness
// (app/workloadtest) does not import the lab, so the dependency runs one
// way, bench → app.
package workloadtest
