package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/relchain/relchain/dialect"
)

// Manifest is one network, its load, its faults and its invariants.
type Manifest struct {
	Name       string `toml:"name"`
	Validators int    `toml:"validators"`
	// Backend is every node's database, a name package dialect lists.
	// One network runs one backend: the genesis names it.
	Backend string `toml:"backend"`
	// Backends, instead of Backend, is validator i's database in
	// Backends[i]: a network over several engines (issue 37), speaking
	// PostgreSQL's SQL at protocol version 5. Full nodes run Backends[0].
	Backends []string `toml:"backends"`
	// Network is "netns" (each node in a network namespace of its own:
	// partitions and disconnections possible), "loopback" (127.0.0.1,
	// for machines without namespaces) or "auto" (netns where the machine
	// allows it). A manifest that partitions needs netns.
	Network string `toml:"network"`
	// FullNodes adds that many full nodes (not validators: no vote)
	// after the validators start, each replaying the chain from genesis
	// and serving clients like the validators; they are nodes
	// Validators..Validators+FullNodes-1 to kill, pause and restart, and
	// every check covers them. They run in the caller's namespace.
	FullNodes int `toml:"full_nodes"`
	// Lanes is validator i's relchain.toml [block] lanes in Lanes[i]
	// (issue 38: parallel execution on PostgreSQL; node-local, so a
	// network whose validators differ in it must still agree).
	Lanes   []int       `toml:"lanes"`
	Load    Load        `toml:"load"`
	Perturb []Perturb   `toml:"perturb"`
	Random  *RandomPlan `toml:"random"`
	Check   Check       `toml:"check"`
}

// Load is the client workload.
type Load struct {
	// Workload is "insert" (each operation inserts a unique id) or "bank"
	// (each moves money between two accounts and logs the transfer).
	Workload string `toml:"workload"`
	Clients  int    `toml:"clients"`
	// Rate is the operations per second all clients together aim at.
	Rate     float64  `toml:"rate"`
	Duration Duration `toml:"duration"`
	// Accounts and Balance set up the bank workload.
	Accounts int   `toml:"accounts"`
	Balance  int64 `toml:"balance"`
	// OpTimeout bounds one operation (default 10 s): past it, its outcome
	// is unknown until the checker looks the tx up.
	OpTimeout Duration `toml:"op_timeout"`
	// MinAcked is the fewest writes the run must have acknowledged (or
	// found committed ok) for its checks to mean anything. Required: a run
	// that committed a handful of writes passes every other check.
	MinAcked int `toml:"min_acked"`
	// Resend is the share of a client's ticks on which it sends one of
	// its last writes again, the same signed bytes, instead of a new one
	// (default 0.1; at most 0.5). Besides, a write whose outcome was
	// unknown is always sent again to the next node. The checker holds
	// every resend to the committed outcome.
	Resend float64 `toml:"resend"`
}

// Perturb is one fault at a time since the load started. For kill,
// pause, partition and disconnect, For (if set) undoes it after that long
// (restart, resume, heal).
type Perturb struct {
	At     Duration `toml:"at"`
	Action string   `toml:"action"`
	Node   int      `toml:"node"`
	Groups [][]int  `toml:"groups"`
	For    Duration `toml:"for"`
	// ExpectHalt says the network must commit no block while this fault
	// lasts (a partition with no side holding two thirds of the power):
	// the proof that the fault took effect.
	ExpectHalt bool `toml:"expect_halt"`
	// SQL is what tamper runs on the node's database outside the chain
	// (through `relchain debug tamper` of a test-hooks build).
	SQL []string `toml:"sql"`
	// Latency and Jitter are what delay adds to each of the node's links,
	// one way: Latency plus a uniform draw below Jitter.
	Latency Duration `toml:"latency"`
	Jitter  Duration `toml:"jitter"`
	// Offset (action clock) is how far Node's wall clock is off, signed:
	// "+1h", "-1h". A clock fault is in force from the network's start
	// (at = "0s", no for): the node runs an e2e_clock build of relchain
	// that shifts its own wall clock (see internal/clockfault).
	Offset Duration `toml:"offset"`
	// Rate (action throttle) caps Node's link to the others, both ways,
	// in tc's units: "256kbit", "1mbit". Beyond it packets queue up to
	// 200 ms and are then dropped: real loss, under load.
	Rate string `toml:"rate"`
}

// RandomPlan makes a schedule from a seed (the long set): Faults faults
// drawn from Actions, each lasting up to MaxFor, spread over the load.
// Seed 0 draws a seed, which the run prints and the report records.
type RandomPlan struct {
	Seed    int64    `toml:"seed"`
	Faults  int      `toml:"faults"`
	Actions []string `toml:"actions"`
	MaxFor  Duration `toml:"max_for"`
}

// Check lists the invariants to check (all of them when empty) and bounds
// how long the network may take to recover after the last fault.
type Check struct {
	Invariants  []string `toml:"invariants"`
	MaxRecovery Duration `toml:"max_recovery"`
	// BlockTimeBound (default 5 s) bounds how far a block's time may be
	// from the harness's clock when it saw the block (block-times-sane)
	// and how far a skewed node's vote times may be from its offset
	// (clock-offset-seen).
	BlockTimeBound Duration `toml:"block_time_bound"`
}

// fileBackends keep their database in the node home, which a rebuild
// (tamper's undo) can wipe; a server database belongs to its owner.
var fileBackends = dialect.Files()

// The invariants.
const (
	InvExactlyOnce  = "acked-exactly-once"
	InvFailedAbsent = "failed-absent"
	InvReads        = "reads-see-acked"
	InvAppHash      = "apphash-equal"
	InvVerify       = "verify"
	InvBank         = "bank-conserved"
	// InvBlockTimes: block times strictly increase, and each block
	// committed during the load has a time within BlockTimeBound of the
	// real time at which the harness first saw it (and its parent).
	InvBlockTimes = "block-times-sane"
	// InvClockSeen: the votes of each node with a clock fault carry
	// timestamps that show its offset (the proof that the fault took
	// effect; see checkClockSeen).
	InvClockSeen = "clock-offset-seen"
	// InvLogsClean: no node's log has a CONSENSUS FAILURE, a Go panic or
	// a fatal error line.
	InvLogsClean = "logs-clean"
)

var allInvariants = []string{InvExactlyOnce, InvFailedAbsent, InvReads, InvAppHash, InvVerify, InvBank, InvBlockTimes, InvClockSeen, InvLogsClean}

// The perturbations.
const (
	ActKill       = "kill"
	ActRestart    = "restart"
	ActPause      = "pause"
	ActResume     = "resume"
	ActPartition  = "partition"
	ActDisconnect = "disconnect"
	ActHeal       = "heal"
	// ActTamper changes the node's database outside the chain; the node
	// must stop by itself saying so. ActRebuild (its undo) checks that it
	// did, wipes the node's data and restarts it to sync from its peers.
	ActTamper  = "tamper"
	ActRebuild = "rebuild"
	// ActDiskFull fills the node's data disk (a small tmpfs: root only);
	// the node must stop promptly saying its disk is full. ActFreeDisk
	// (its undo) checks that it did, frees the space and restarts it.
	ActDiskFull = "disk-full"
	ActFreeDisk = "free-disk"
	// ActDelay adds one-way latency to every p2p link of the node, in
	// user-space relays (links.go); ActUndelay takes it off.
	ActDelay   = "delay"
	ActUndelay = "undelay"
	// ActClock offsets a node's wall clock for the whole run.
	ActClock = "clock"
	// ActThrottle caps a node's bandwidth (tc tbf on its veth: network
	// namespaces only); ActUnthrottle takes the cap off.
	ActThrottle   = "throttle"
	ActUnthrottle = "unthrottle"
	// ActDBDisconnect terminates every connection of Node to its
	// database, as the server's administrator (PostgreSQL
	// pg_terminate_backend, MariaDB KILL CONNECTION). Without for it is
	// instant; with for, the connections are terminated again every
	// 200 ms until ActDBReconnect, its undo (a node spends most of a
	// block between its statements: a single termination mostly lands
	// between blocks, and repeated ones reach the commit).
	ActDBDisconnect = "db-disconnect"
	ActDBReconnect  = "db-reconnect"
	// ActDBKill kills (SIGKILL) the private database server of Node (the
	// harness gives each such node a server of its own); ActDBRestart,
	// its undo, starts it again on the same data and port.
	ActDBKill    = "db-kill"
	ActDBRestart = "db-restart"
	// ActSharedDBKill kills the one private server holding every
	// validator's database; ActSharedDBRestart starts it again.
	ActSharedDBKill    = "shared-db-kill"
	ActSharedDBRestart = "shared-db-restart"
	// ActStateSyncKill adds a full node that joins by state sync and
	// kills it between "Snapshot restored" and its first block;
	// ActStateSyncRestart, its undo, starts it again: it must heal.
	ActStateSyncKill    = "statesync-kill"
	ActStateSyncRestart = "statesync-restart"
	// ActRestartAll kills every node and starts them all again, then
	// resends writes acknowledged before (instant: no for).
	ActRestartAll = "restart-all"
)

var allActions = []string{ActKill, ActRestart, ActPause, ActResume, ActPartition, ActDisconnect, ActHeal,
	ActTamper, ActRebuild, ActDiskFull, ActFreeDisk, ActDelay, ActUndelay, ActClock, ActThrottle, ActUnthrottle,
	ActDBDisconnect, ActDBReconnect, ActDBKill, ActDBRestart, ActSharedDBKill, ActSharedDBRestart, ActStateSyncKill, ActStateSyncRestart, ActRestartAll}

// isInstant reports whether p is done when applied (no undo): the
// schedule measures the recovery from the fault itself.
func (p Perturb) isInstant() bool {
	return p.For.Duration == 0 && (p.Action == ActDBDisconnect || p.Action == ActRestartAll)
}

// serverBackends keep a node's database on a database server.
var serverBackends = dialect.Servers()

// Duration is a time.Duration written as "1m30s" in TOML.
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: %w", b, err)
	}
	d.Duration = v
	return nil
}

// MarshalText writes a Go duration.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// LoadManifest reads and checks a manifest; its name defaults to the
// file's.
func LoadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	m, err := ParseManifest(string(b))
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	if m.Name == "" {
		m.Name = strings.TrimSuffix(filepath.Base(path), ".toml")
	}
	return m, nil
}

// ParseManifest decodes a manifest, refusing unknown keys, fills the
// defaults and validates it.
func ParseManifest(text string) (*Manifest, error) {
	var m Manifest
	md, err := toml.Decode(text, &m)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("unknown keys %v", und)
	}
	m.setDefaults()
	if err := m.validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

func (m *Manifest) setDefaults() {
	if m.Validators == 0 {
		m.Validators = max(4, len(m.Backends))
	}
	if m.Backend == "" && len(m.Backends) > 0 {
		m.Backend = m.Backends[0]
	}
	if m.Backend == "" {
		m.Backend = dialect.Default
	}
	if m.Network == "" {
		m.Network = "auto"
	}
	l := &m.Load
	if l.Workload == "" {
		l.Workload = "insert"
	}
	if l.Clients == 0 {
		l.Clients = 4
	}
	if l.Rate == 0 {
		l.Rate = 20
	}
	if l.Duration.Duration == 0 {
		l.Duration.Duration = 20 * time.Second
	}
	if l.Accounts == 0 {
		l.Accounts = 8
	}
	if l.Balance == 0 {
		l.Balance = 1000
	}
	if l.OpTimeout.Duration == 0 {
		l.OpTimeout.Duration = 10 * time.Second
	}
	if l.Resend == 0 {
		l.Resend = 0.1
	}
	if len(m.Check.Invariants) == 0 {
		m.Check.Invariants = slices.Clone(allInvariants)
		if l.Workload != "bank" {
			m.Check.Invariants = slices.DeleteFunc(m.Check.Invariants, func(s string) bool { return s == InvBank })
		}
		if len(m.clockFaults()) == 0 {
			m.Check.Invariants = slices.DeleteFunc(m.Check.Invariants, func(s string) bool { return s == InvClockSeen })
		}
	}
	if m.Check.MaxRecovery.Duration == 0 {
		m.Check.MaxRecovery.Duration = 60 * time.Second
	}
	if m.Check.BlockTimeBound.Duration == 0 {
		m.Check.BlockTimeBound.Duration = 5 * time.Second
	}
}

// engines names the network's databases for reports: Backend, or the
// validators' Backends in order.
func (m *Manifest) engines() string {
	if m.mixed() {
		return strings.Join(m.Backends, ",")
	}
	return m.Backend
}

// mixed reports a network over several engines (Backends).
func (m *Manifest) mixed() bool { return len(m.Backends) > 0 }

// mixedFaults are the perturbations a mixed network's manifest may use:
// the node- and network-level ones, which need no engine of their own.
var mixedFaults = []string{ActKill, ActRestart, ActPause, ActResume, ActPartition, ActDisconnect, ActHeal}

// validateBackends checks Backends: one known engine per validator, with
// only mixedFaults (the database faults and tamper's rebuild assume one
// engine).
func (m *Manifest) validateBackends() []error {
	if !m.mixed() {
		return nil
	}
	var errs []error
	if len(m.Backends) != m.Validators {
		errs = append(errs, fmt.Errorf("backends lists %d engines for %d validators: give one per validator", len(m.Backends), m.Validators))
	}
	for _, b := range m.Backends {
		if _, err := dialect.Lookup(b); err != nil {
			errs = append(errs, fmt.Errorf("backends: %w", err))
		}
	}
	for i, p := range m.Perturb {
		if !slices.Contains(mixedFaults, p.Action) {
			errs = append(errs, fmt.Errorf("perturb[%d]: %s on a network over several engines: use %s", i, p.Action, strings.Join(mixedFaults, ", ")))
		}
	}
	if m.Random != nil {
		errs = append(errs, fmt.Errorf("random faults on a network over several engines: list them in perturb (%s)", strings.Join(mixedFaults, ", ")))
	}
	return errs
}

func (m *Manifest) validate() error {
	var errs []error
	if m.Validators < 1 || m.Validators > 16 {
		errs = append(errs, fmt.Errorf("validators = %d: want 1 to 16", m.Validators))
	}
	if _, err := dialect.Lookup(m.Backend); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, m.validateBackends()...)
	if len(m.Lanes) > m.Validators || slices.ContainsFunc(m.Lanes, func(k int) bool { return k < 0 || k > 64 }) {
		errs = append(errs, fmt.Errorf("lanes = %v: want at most one value per validator, each from 0 to 64", m.Lanes))
	}
	if !slices.Contains([]string{"auto", "netns", "loopback"}, m.Network) {
		errs = append(errs, fmt.Errorf("network %q: want auto, netns or loopback", m.Network))
	}
	l := m.Load
	if l.Workload != "insert" && l.Workload != "bank" {
		errs = append(errs, fmt.Errorf("load.workload %q: want insert or bank", l.Workload))
	}
	if l.Clients < 1 || l.Clients > 64 || l.Rate <= 0 || l.Rate > 1000 {
		errs = append(errs, fmt.Errorf("load: clients %d, rate %g: want 1 to 64 clients and a rate in (0, 1000]", l.Clients, l.Rate))
	}
	if l.MinAcked < 1 {
		errs = append(errs, fmt.Errorf("load.min_acked = %d: a manifest states the fewest writes a run must acknowledge (at least 1), else a run that did nothing passes", l.MinAcked))
	}
	if l.Resend <= 0 || l.Resend > 0.5 {
		errs = append(errs, fmt.Errorf("load.resend = %g: want a share in (0, 0.5] (every load sends some writes again)", l.Resend))
	}
	if l.Workload == "bank" && (l.Accounts < 2 || l.Balance < 1) {
		errs = append(errs, fmt.Errorf("load: bank with %d accounts of %d: want at least 2 accounts and a positive balance", l.Accounts, l.Balance))
	}
	for _, inv := range m.Check.Invariants {
		if !slices.Contains(allInvariants, inv) {
			errs = append(errs, fmt.Errorf("check.invariants: unknown %q (known: %v)", inv, allInvariants))
		}
	}
	if slices.Contains(m.Check.Invariants, InvBank) && l.Workload != "bank" {
		errs = append(errs, fmt.Errorf("check.invariants: %s needs the bank workload", InvBank))
	}
	if slices.Contains(m.Check.Invariants, InvClockSeen) && len(m.clockFaults()) == 0 {
		errs = append(errs, fmt.Errorf("check.invariants: %s needs a clock perturbation", InvClockSeen))
	}
	if m.FullNodes < 0 || m.FullNodes > 4 {
		errs = append(errs, fmt.Errorf("full_nodes = %d: want 0 to 4", m.FullNodes))
	}
	if m.FullNodes > 0 && m.delaysLinks() {
		errs = append(errs, errors.New("full_nodes: a manifest that delays links relays only the validators' links"))
	}
	if len(m.clockFaults()) >= m.Validators {
		errs = append(errs, errors.New("clock: every validator is skewed; block times need an honest majority of clocks to be checked"))
	}
	for i, p := range m.Perturb {
		if err := p.validate(m.Validators, m.FullNodes, l.Duration.Duration); err != nil {
			errs = append(errs, fmt.Errorf("perturb[%d]: %w", i, err))
		}
		if p.Action == ActDelay && m.needsNamespaces() {
			errs = append(errs, fmt.Errorf("perturb[%d]: delay relays the links through the harness, where partition, disconnect and throttle cannot reach them", i))
		}
		if p.Action == ActTamper && !slices.Contains(fileBackends, m.Backend) {
			errs = append(errs, fmt.Errorf("perturb[%d]: tamper's rebuild wipes the node's files: backend sqlite only (a database file in the node home)", i))
		}
		if slices.Contains([]string{ActDBDisconnect, ActDBKill, ActSharedDBKill}, p.Action) && !slices.Contains(serverBackends, m.Backend) {
			errs = append(errs, fmt.Errorf("perturb[%d]: %s needs a database server: backend %s", i, p.Action, strings.Join(serverBackends, " or ")))
		}
	}
	if len(m.dbKillNodes()) > 0 && m.killsSharedDB() {
		errs = append(errs, errors.New("db-kill gives nodes servers of their own, shared-db-kill one server for all: not both in one manifest"))
	}
	if r := m.Random; r != nil {
		for _, a := range r.Actions {
			if !slices.Contains([]string{ActKill, ActPause, ActPartition, ActDisconnect}, a) {
				errs = append(errs, fmt.Errorf("random.actions: %q cannot be drawn (kill, pause, partition, disconnect)", a))
			}
		}
		if r.Faults < 1 || len(r.Actions) == 0 || r.MaxFor.Duration <= 0 {
			errs = append(errs, errors.New("random: want faults >= 1, some actions and max_for > 0"))
		}
	}
	return errors.Join(errs...)
}

func (p Perturb) validate(validators, fullNodes int, load time.Duration) error {
	if !slices.Contains(allActions, p.Action) {
		return fmt.Errorf("action %q: want one of %v", p.Action, allActions)
	}
	if p.Action != ActClock && p.Offset.Duration != 0 {
		return fmt.Errorf("offset is for clock faults, not %s", p.Action)
	}
	if p.At.Duration < 0 || p.At.Duration+p.For.Duration > load {
		return fmt.Errorf("at %v for %v: outside the load's %v", p.At, p.For, load)
	}
	switch p.Action {
	case ActPartition:
		if len(p.Groups) < 2 {
			return errors.New("a partition needs at least two groups")
		}
		for _, g := range p.Groups {
			for _, i := range g {
				if i < 0 || i >= validators {
					return fmt.Errorf("partition: no node %d", i)
				}
			}
		}
	case ActHeal:
	case ActSharedDBKill, ActStateSyncKill, ActRestartAll:
		// No node: the shared server, a node the fault adds, every node.
		if p.Node != 0 {
			return fmt.Errorf("%s takes no node", p.Action)
		}
	case ActClock:
		if p.At.Duration != 0 || p.For.Duration != 0 {
			return errors.New(`a clock fault is in force for the whole run: at = "0s" and no for`)
		}
		if p.Offset.Duration == 0 || p.Offset.Duration.Abs() > 48*time.Hour {
			return fmt.Errorf("clock offset %v: want a non-zero offset within 48h", p.Offset)
		}
		if p.Node < 0 || p.Node >= validators {
			return fmt.Errorf("node %d: the network has %d", p.Node, validators)
		}
	case ActKill, ActRestart, ActPause, ActResume:
		// Processes: full nodes too.
		if p.Node < 0 || p.Node >= validators+fullNodes {
			return fmt.Errorf("node %d: the network has %d validators and %d full nodes", p.Node, validators, fullNodes)
		}
	default:
		if p.Node < 0 || p.Node >= validators {
			return fmt.Errorf("node %d: the network has %d validators (%s takes a validator)", p.Node, validators, p.Action)
		}
	}
	if p.ExpectHalt && p.For.Duration <= 0 {
		return errors.New("expect_halt needs for: the halt is checked at the fault's undo")
	}
	if p.For.Duration > 0 && undoOf(p.Action) == "" {
		return fmt.Errorf("%s cannot be undone by for", p.Action)
	}
	return p.validateDataFault()
}

// validateDataFault checks the faults on a node's data: each needs its
// undo (the checks run there), and only tamper takes SQL.
func (p Perturb) validateDataFault() error {
	switch p.Action {
	case ActTamper:
		if len(p.SQL) == 0 {
			return errors.New("tamper needs sql: the statements to run on the node's database")
		}
		if p.For.Duration <= 0 {
			return errors.New("tamper needs for: how long the node has to notice before it is rebuilt")
		}
	case ActDiskFull:
		if p.For.Duration <= 0 {
			return errors.New("disk-full needs for: how long the disk stays full")
		}
	case ActDelay:
		if p.Latency.Duration <= 0 || p.Jitter.Duration < 0 || p.Latency.Duration+p.Jitter.Duration > 10*time.Second {
			return fmt.Errorf("delay: latency %v, jitter %v: want a latency > 0 and at most 10 s in all", p.Latency, p.Jitter)
		}
	case ActDBKill, ActSharedDBKill, ActStateSyncKill:
		if p.For.Duration <= 0 {
			return fmt.Errorf("%s needs for: when the harness starts again what it killed", p.Action)
		}
	case ActRebuild, ActFreeDisk, ActUnthrottle, ActDBReconnect, ActDBRestart, ActSharedDBRestart, ActStateSyncRestart:
		return fmt.Errorf("%s is the undo of a fault (its for), not a fault", p.Action)
	}
	if (p.Latency.Duration != 0 || p.Jitter.Duration != 0) && p.Action != ActDelay {
		return fmt.Errorf("latency and jitter belong to delay, not %s", p.Action)
	}
	if len(p.SQL) > 0 && p.Action != ActTamper {
		return fmt.Errorf("sql belongs to tamper, not %s", p.Action)
	}
	if (p.Rate != "") != (p.Action == ActThrottle) {
		return fmt.Errorf("throttle needs a rate (e.g. \"256kbit\"), and only throttle takes one (action %s, rate %q)", p.Action, p.Rate)
	}
	return nil
}

// undoOf is the action that undoes action a, or "".
func undoOf(a string) string {
	switch a {
	case ActKill:
		return ActRestart
	case ActPause:
		return ActResume
	case ActPartition, ActDisconnect:
		return ActHeal
	case ActTamper:
		return ActRebuild
	case ActDiskFull:
		return ActFreeDisk
	case ActDelay:
		return ActUndelay
	case ActThrottle:
		return ActUnthrottle
	case ActDBDisconnect:
		return ActDBReconnect
	case ActDBKill:
		return ActDBRestart
	case ActSharedDBKill:
		return ActSharedDBRestart
	case ActStateSyncKill:
		return ActStateSyncRestart
	}
	return ""
}

// dbKillNodes are the validators whose database server a db-kill fault
// kills: each gets a private server of its own.
func (m *Manifest) dbKillNodes() []int {
	var out []int
	for _, p := range m.Perturb {
		if p.Action == ActDBKill && !slices.Contains(out, p.Node) {
			out = append(out, p.Node)
		}
	}
	return out
}

// killsSharedDB reports whether the schedule kills the server of every
// validator's database: the run then has a private one.
func (m *Manifest) killsSharedDB() bool {
	return slices.ContainsFunc(m.Perturb, func(p Perturb) bool { return p.Action == ActSharedDBKill })
}

// syncsState reports whether the schedule adds a node by state sync: the
// validators then write checkpoints often.
func (m *Manifest) syncsState() bool {
	return slices.ContainsFunc(m.Perturb, func(p Perturb) bool { return p.Action == ActStateSyncKill })
}

// diskFullNodes are the nodes whose data a disk-full fault fills: they
// get a small disk of their own.
func (m *Manifest) diskFullNodes() []int {
	var out []int
	for _, p := range m.Perturb {
		if p.Action == ActDiskFull && !slices.Contains(out, p.Node) {
			out = append(out, p.Node)
		}
	}
	return out
}

// clockFaults maps each node with a clock fault to its offset.
func (m *Manifest) clockFaults() map[int]time.Duration {
	out := map[int]time.Duration{}
	for _, p := range m.Perturb {
		if p.Action == ActClock {
			out[p.Node] = p.Offset.Duration
		}
	}
	return out
}

// delaysLinks reports whether the schedule delays links: then every p2p
// link runs through a relay of the harness.
func (m *Manifest) delaysLinks() bool {
	return slices.ContainsFunc(m.Perturb, func(p Perturb) bool { return p.Action == ActDelay })
}

// needsNamespaces reports whether the schedule cuts links.
func (m *Manifest) needsNamespaces() bool {
	for _, p := range m.Perturb {
		if p.Action == ActPartition || p.Action == ActDisconnect || p.Action == ActThrottle {
			return true
		}
	}
	return m.Random != nil && (slices.Contains(m.Random.Actions, ActPartition) || slices.Contains(m.Random.Actions, ActDisconnect))
}
