package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/dialect"
)

// Format is the snapshot format of a node's own checkpoints.
const Format uint32 = 1

// PortableFormat is a snapshot that is a SQLite database speaking
// PostgreSQL's SQL: in a network over several engines, a validator of
// another engine serves its checkpoints so too (issue 37), and every
// engine of such a network restores one (protocol version 5's AppHash is
// the same on every engine).
const PortableFormat uint32 = 2

// DefaultChunkSize is 8 MiB: well under CometBFT's 16 MB chunk message
// limit, and few enough chunks for a large database.
const DefaultChunkSize = 8 << 20

// maxChunks bounds the manifest a Receiver accepts (16 GiB at the default
// chunk size; CometBFT's snapshot message is limited to 4 MB).
const maxChunks = 2048

// Manifest is a snapshot's metadata.
type Manifest struct {
	Backend   string   `json:"backend"`
	Size      int64    `json:"size"`
	ChunkSize int64    `json:"chunk_size"`
	Chunks    [][]byte `json:"chunks"` // SHA-256 of each chunk
}

// encode is the metadata's canonical form (the snapshot hash covers it).
func (m Manifest) encode() []byte {
	b, _ := json.Marshal(m)
	return b
}

// check validates a manifest received by r from a peer.
func (m Manifest) check(r *Receiver) error {
	switch {
	case m.Backend != r.Backend && (r.Foreign == nil || !r.Foreign(m.Backend)):
		return fmt.Errorf("snapshot of a %q database, this node runs %q and cannot restore it", m.Backend, r.Backend)
	case m.ChunkSize <= 0 || m.ChunkSize > 15<<20:
		return fmt.Errorf("chunk size %d out of range", m.ChunkSize)
	case len(m.Chunks) == 0 || len(m.Chunks) > maxChunks:
		return fmt.Errorf("%d chunks out of range", len(m.Chunks))
	case m.Size <= int64(len(m.Chunks)-1)*m.ChunkSize || m.Size > int64(len(m.Chunks))*m.ChunkSize:
		return fmt.Errorf("size %d does not match %d chunks of %d bytes", m.Size, len(m.Chunks), m.ChunkSize)
	}
	for i, c := range m.Chunks {
		if len(c) != sha256.Size {
			return fmt.Errorf("chunk %d: hash of %d bytes", i, len(c))
		}
	}
	return nil
}

// Source serves a node's checkpoints as snapshots.
//
// A snapshot it advertised stays readable after the node prunes its
// checkpoint: Source keeps the file open (the newest Hold snapshots), so a
// joining node that is still fetching chunks from an older one does not
// lose it halfway.
type Source struct {
	// Backend is the node's backend kind ("sqlite", "postgres").
	Backend string
	// List lists the node's checkpoints, newest first.
	List func() ([]backend.Checkpoint, error)
	// ChunkSize is the chunk size of new manifests (DefaultChunkSize if 0).
	ChunkSize int64
	// Hold is how many advertised snapshots stay open (4 if 0).
	Hold int
	// Format is the format of the snapshots served (Format if 0).
	Format uint32

	mu   sync.Mutex
	open map[int64]*served // by height
}

// served is an advertised snapshot: its open file and manifest.
type served struct {
	path    string
	modTime time.Time
	f       *os.File
	m       Manifest
}

// Snapshots returns up to max of the newest checkpoints as snapshots
// (CometBFT offers a joining node at most 10 per peer).
func (s *Source) Snapshots(max int) ([]*abci.Snapshot, error) {
	cps, err := s.List()
	if err != nil {
		return nil, err
	}
	var out []*abci.Snapshot
	for _, cp := range cps {
		if len(out) == max {
			break
		}
		sv, err := s.serve(cp)
		if errors.Is(err, os.ErrNotExist) {
			continue // pruned meanwhile
		}
		if err != nil {
			return nil, err
		}
		meta := sv.m.encode()
		hash := sha256.Sum256(meta)
		out = append(out, &abci.Snapshot{
			Height:   uint64(cp.Height),
			Format:   s.format(),
			Chunks:   uint32(len(sv.m.Chunks)),
			Hash:     hash[:],
			Metadata: meta,
		})
	}
	return out, nil
}

// Chunk reads chunk index of the snapshot at height.
func (s *Source) Chunk(height uint64, format, index uint32) ([]byte, error) {
	if format != s.format() {
		return nil, fmt.Errorf("snapshot format %d unknown", format)
	}
	s.mu.Lock()
	sv, ok := s.open[int64(height)]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no snapshot at height %d is being served", height)
	}
	if int(index) >= len(sv.m.Chunks) {
		return nil, fmt.Errorf("snapshot %d has %d chunks, not %d", height, len(sv.m.Chunks), index+1)
	}
	off := int64(index) * sv.m.ChunkSize
	buf := make([]byte, min(sv.m.ChunkSize, sv.m.Size-off))
	if _, err := sv.f.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("read chunk %d of %s: %w", index, sv.path, err)
	}
	return buf, nil
}

func (s *Source) format() uint32 {
	if s.Format == 0 {
		return Format
	}
	return s.Format
}

// Close closes every file held open.
func (s *Source) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, sv := range s.open {
		sv.f.Close()
		delete(s.open, h)
	}
}

// serve opens and hashes cp's file, once per version of the file, and
// closes the files of the oldest snapshots beyond Hold.
func (s *Source) serve(cp backend.Checkpoint) (*served, error) {
	fi, err := os.Stat(cp.Path)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	sv, ok := s.open[cp.Height]
	s.mu.Unlock()
	if ok && sv.path == cp.Path && sv.modTime.Equal(fi.ModTime()) {
		return sv, nil
	}
	f, err := os.Open(cp.Path)
	if err != nil {
		return nil, err
	}
	m, err := s.hash(f, cp.Path)
	if err != nil {
		f.Close()
		return nil, err
	}
	sv = &served{path: cp.Path, modTime: fi.ModTime(), f: f, m: m}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open == nil {
		s.open = make(map[int64]*served)
	}
	if old, ok := s.open[cp.Height]; ok {
		old.f.Close()
	}
	s.open[cp.Height] = sv
	hold := s.Hold
	if hold <= 0 {
		hold = 4
	}
	heights := slices.Sorted(maps.Keys(s.open))
	for _, h := range heights[:max(0, len(heights)-hold)] {
		s.open[h].f.Close()
		delete(s.open, h)
	}
	return sv, nil
}

// hash computes the manifest of an open checkpoint file.
func (s *Source) hash(f *os.File, path string) (Manifest, error) {
	size := s.ChunkSize
	if size <= 0 {
		size = DefaultChunkSize
	}
	m := Manifest{Backend: s.Backend, ChunkSize: size}
	buf := make([]byte, size)
	for {
		n, err := io.ReadFull(f, buf)
		if n > 0 {
			h := sha256.Sum256(buf[:n])
			m.Chunks = append(m.Chunks, h[:])
			m.Size += int64(n)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return Manifest{}, fmt.Errorf("hash %s: %w", path, err)
		}
	}
	if len(m.Chunks) == 0 {
		return Manifest{}, fmt.Errorf("checkpoint %s is empty", path)
	}
	return m, nil
}

// ErrBadChunk is wrapped by Receiver.Apply for a chunk that does not match
// the manifest: the chunk should be fetched again from another peer.
var ErrBadChunk = errors.New("snapshot chunk does not match its hash")

// Receiver assembles one offered snapshot into a file. Its methods are
// called by one goroutine (CometBFT's snapshot connection).
type Receiver struct {
	// Backend is the node's backend kind.
	Backend string
	// Dir is where the snapshot is assembled.
	Dir string
	// Foreign, if set, says whether the node restores a snapshot of
	// another engine (a network over several engines, issue 37).
	Foreign func(kind string) bool
	// Portable says whether the node takes snapshots of PortableFormat
	// (a network over several engines).
	Portable bool

	height  int64
	format  uint32
	m       Manifest
	f       *os.File
	next    int
	senders map[string]bool
}

// Offer starts receiving snap, dropping any earlier one. It returns the
// ABCI verdict: REJECT_FORMAT for a format this node cannot restore,
// REJECT for a malformed or foreign manifest.
func (r *Receiver) Offer(snap *abci.Snapshot) (abci.ResponseOfferSnapshot_Result, error) {
	r.Abort()
	if snap == nil {
		return abci.ResponseOfferSnapshot_REJECT, errors.New("no snapshot offered")
	}
	if snap.Format != Format && (snap.Format != PortableFormat || !r.Portable) {
		formats := fmt.Sprint(Format)
		if r.Portable {
			formats += fmt.Sprintf(" and %d", PortableFormat)
		}
		return abci.ResponseOfferSnapshot_REJECT_FORMAT, fmt.Errorf("snapshot format %d unknown (this node restores format %s)", snap.Format, formats)
	}
	var m Manifest
	if err := json.Unmarshal(snap.Metadata, &m); err != nil {
		return abci.ResponseOfferSnapshot_REJECT, fmt.Errorf("snapshot metadata: %w", err)
	}
	if h := sha256.Sum256(snap.Metadata); !bytes.Equal(h[:], snap.Hash) {
		return abci.ResponseOfferSnapshot_REJECT, errors.New("snapshot hash does not cover its metadata")
	}
	if err := m.check(r); err != nil {
		return abci.ResponseOfferSnapshot_REJECT, fmt.Errorf("snapshot metadata: %w", err)
	}
	if snap.Format == PortableFormat && m.Backend != dialect.Portable {
		return abci.ResponseOfferSnapshot_REJECT, fmt.Errorf("snapshot metadata: a portable snapshot of a %q database (it is %s's)", m.Backend, dialect.Portable)
	}
	if int(snap.Chunks) != len(m.Chunks) || snap.Height == 0 || snap.Height > 1<<62 {
		return abci.ResponseOfferSnapshot_REJECT, fmt.Errorf("snapshot says %d chunks at height %d, its manifest %d", snap.Chunks, snap.Height, len(m.Chunks))
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return abci.ResponseOfferSnapshot_ABORT, err
	}
	f, err := os.Create(filepath.Join(r.Dir, fmt.Sprintf("snapshot-%d.part", snap.Height)))
	if err != nil {
		return abci.ResponseOfferSnapshot_ABORT, err
	}
	r.height, r.format, r.m, r.f, r.next, r.senders = int64(snap.Height), snap.Format, m, f, 0, make(map[string]bool)
	return abci.ResponseOfferSnapshot_ACCEPT, nil
}

// Apply writes chunk index (CometBFT applies chunks in order) sent by
// sender. It returns true with the last chunk: File then names the
// assembled file. A chunk that does not match the manifest is refused
// with ErrBadChunk and nothing is written.
func (r *Receiver) Apply(index uint32, chunk []byte, sender string) (bool, error) {
	if r.f == nil {
		return false, errors.New("no snapshot is being received")
	}
	if int(index) != r.next {
		return false, fmt.Errorf("chunk %d arrived, expected chunk %d", index, r.next)
	}
	want := r.m.ChunkSize
	if int(index) == len(r.m.Chunks)-1 {
		want = r.m.Size - int64(index)*r.m.ChunkSize
	}
	if h := sha256.Sum256(chunk); int64(len(chunk)) != want || !bytes.Equal(h[:], r.m.Chunks[index]) {
		return false, fmt.Errorf("%w: chunk %d of snapshot %d from peer %s", ErrBadChunk, index, r.height, sender)
	}
	if _, err := r.f.Write(chunk); err != nil {
		return false, fmt.Errorf("write snapshot chunk %d: %w", index, err)
	}
	r.senders[sender] = true
	r.next++
	if r.next < len(r.m.Chunks) {
		return false, nil
	}
	if err := r.f.Sync(); err != nil {
		return false, err
	}
	if err := r.f.Close(); err != nil {
		return false, err
	}
	return true, nil
}

// File is the assembled snapshot as a checkpoint (after Apply returned
// true).
func (r *Receiver) File() backend.Checkpoint {
	return backend.Checkpoint{Height: r.height, Path: filepath.Join(r.Dir, fmt.Sprintf("snapshot-%d.part", r.height))}
}

// Kind is the engine of the snapshot being received (its manifest's
// backend).
func (r *Receiver) Kind() string { return r.m.Backend }

// Format is the format of the snapshot being received.
func (r *Receiver) Format() uint32 { return r.format }

// Senders lists the peers whose chunks made up the snapshot, for rejecting
// them all if the snapshot turns out to lie.
func (r *Receiver) Senders() []string {
	out := make([]string, 0, len(r.senders))
	for s := range r.senders {
		out = append(out, s)
	}
	return out
}

// Abort drops the snapshot being received and its file.
func (r *Receiver) Abort() {
	if r.f != nil {
		r.f.Close()
		_ = os.Remove(r.File().Path)
	}
	r.f, r.height, r.next, r.senders = nil, 0, 0, nil
}
