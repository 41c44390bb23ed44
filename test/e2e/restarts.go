package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/relchain/relchain/netctl"
)

// snapshotRestored is CometBFT's log line once state sync has applied a
// snapshot; the node's first block comes after it.
const snapshotRestored = "Snapshot restored"

// stateSyncKill adds a full node that joins by state sync (a database of
// its own on a server backend, the caller's namespace) and kills it as
// soon as its log says the snapshot is restored: between the restore and
// its first block (issue 32, Build 8). Its undo starts it again; it must
// then catch up by itself. The node is the network's last.
func (nw *network) stateSyncKill() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	nw.syncNodes++
	name := fmt.Sprintf("sync%d", nw.syncNodes)
	dsn := ""
	if tmpl, err := nw.env.DSNTemplate(nw.m.Backend); err != nil {
		return err
	} else if tmpl != "" {
		dsn = strings.ReplaceAll(tmpl, "{node}", name)
	}
	info, err := netctl.AddNode(ctx, netctl.JoinOptions{Dir: nw.dir, Name: name, DSN: dsn, StateSync: true})
	if err != nil {
		return fmt.Errorf("add state-sync node %s: %w", name, err)
	}
	i := nw.net.Add(info)
	if err := nw.start(i); err != nil {
		return err
	}
	exited := nw.net.Exited(i)
	for {
		b, _ := os.ReadFile(nw.net.LogFile(i))
		if strings.Contains(string(b), snapshotRestored) {
			break
		}
		select {
		case <-exited:
			return fmt.Errorf("%s exited before restoring a snapshot", name)
		case <-ctx.Done():
			return fmt.Errorf("%s did not restore a snapshot: %w", name, ctx.Err())
		case <-time.After(5 * time.Millisecond): // as close to the restore as a log poll gets
		}
	}
	if err := nw.kill(i); err != nil {
		return err
	}
	nw.note(fmt.Sprintf("%s killed right after %q", name, snapshotRestored))
	return nil
}

// restartAll kills every node, confirms none runs, and starts them all
// again.
func (nw *network) restartAll() error {
	for i := range nw.net.Nodes {
		if err := nw.kill(i); err != nil {
			return err
		}
	}
	var errs []error
	for i := range nw.net.Nodes {
		if nw.net.Running(i) {
			errs = append(errs, fmt.Errorf("node%d runs after the kill of every node", i))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i := range nw.net.Nodes {
		if err := nw.start(i); err != nil {
			return err
		}
	}
	return nil
}

// resendAfterRestart waits until every node answers again, then sends the
// signed bytes of up to n writes acknowledged before the restart to the
// nodes in turn: each must answer the committed outcome (checkResends).
func (r *run) resendAfterRestart(ctx context.Context, n int) {
	wctx, cancel := context.WithTimeout(ctx, r.m.Check.MaxRecovery.Duration)
	err := r.nw.net.WaitReady(wctx)
	cancel()
	if err != nil {
		r.rep.violate("recovery", fmt.Sprintf("after restart-all: %v", err))
		return
	}
	ids, raws := r.hist.AckedRaw(n)
	nodes := len(r.nw.net.Nodes)
	for k, id := range ids {
		node := k % nodes
		r.resend(r.nw.client(node, nil), node, id, raws[k], ResendRestart)
	}
	r.logf("%s: resent %d writes acknowledged before restart-all", r.m.Name, len(ids))
}
