package tcprelay

import (
	"math/rand/v2"
	"net"
	"sync/atomic"
	"time"
)

// Added one-way latency in user space, for machines whose kernel has no
// netem qdisc: a relay started with StartDelayed holds every chunk it
// reads for the current delay (plus up to jitter) before writing it on,
// in either direction, keeping the byte order (a chunk is never written
// before the one read before it). Unlike netem it delays the bytes, not
// the packets: the sender's TCP sees the relay's acknowledgements, so
// the delay does not shrink the sender's window; for messages well
// below the window (consensus votes and proposals) the effect is the
// same one-way delay.

// maxInFlight bounds the chunks a direction holds while it delays them;
// a full queue stops the reads (backpressure).
const maxInFlight = 1024

type delayState struct {
	delay, jitter atomic.Int64 // nanoseconds
}

// StartDelayed is Start with a delay that SetDelay changes while the
// relay runs (zero at first).
func StartDelayed(listen, target string) (*Relay, error) {
	return start(listen, target, &delayState{})
}

// SetDelay sets the one-way delay every byte gets in either direction
// from now on: d plus a uniform draw in [0, jitter). It has no effect on
// a relay not started with StartDelayed.
func (r *Relay) SetDelay(d, jitter time.Duration) {
	if r.delay == nil {
		return
	}
	r.delay.delay.Store(int64(d))
	r.delay.jitter.Store(int64(jitter))
}

// holdFor draws one chunk's delay.
func (s *delayState) holdFor() time.Duration {
	d := time.Duration(s.delay.Load())
	if j := s.jitter.Load(); j > 0 {
		d += time.Duration(rand.Int64N(j))
	}
	return d
}

type chunk struct {
	b   []byte
	due time.Time
}

// delayedCopy copies src to dst, holding each chunk until its due time;
// due times never go backwards, so jitter does not reorder bytes.
func (s *delayState) delayedCopy(dst, src net.Conn) {
	queue := make(chan chunk, maxInFlight)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for c := range queue {
			time.Sleep(time.Until(c.due))
			if _, err := dst.Write(c.b); err != nil {
				src.Close() // stop the reader
				for range queue {
				}
				return
			}
		}
	}()
	var last time.Time
	for {
		buf := make([]byte, 32<<10)
		n, err := src.Read(buf)
		if n > 0 {
			due := time.Now().Add(s.holdFor())
			if due.Before(last) {
				due = last
			}
			last = due
			queue <- chunk{b: buf[:n], due: due}
		}
		if err != nil {
			break
		}
	}
	close(queue)
	<-done
}
