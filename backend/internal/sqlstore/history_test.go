package sqlstore

import (
	"reflect"
	"slices"
	"testing"

	"github.com/relchain/relchain/backend"
)

// The stored txs of a version and of a block decode to what was
// encoded; a cut or corrupted encoding is an error, never a panic.
func TestHistoryTxsRoundTrip(t *testing.T) {
	txs := []int{0, 1, 300, 1 << 20}
	got, err := DecodeVersionTxs(EncodeVersionTxs(txs))
	if err != nil || !slices.Equal(got, txs) {
		t.Fatalf("version txs %v, %v; want %v", got, err, txs)
	}
	if got, err := DecodeVersionTxs(EncodeVersionTxs(nil)); err != nil || len(got) != 0 {
		t.Fatalf("no version txs: %v, %v", got, err)
	}
	if _, err := DecodeVersionTxs([]byte{0x80}); err == nil {
		t.Fatal("a cut uvarint decoded")
	}
	block := []backend.HistoryTx{{Index: 0, Hash: []byte{1, 2}, Signer: []byte("s")}, {Index: 7, Hash: []byte{}, Signer: []byte{}}}
	enc := EncodeBlockTxs(block)
	gotBlock, err := DecodeBlockTxs(enc)
	if err != nil || !reflect.DeepEqual(gotBlock, block) {
		t.Fatalf("block txs %+v, %v; want %+v", gotBlock, err, block)
	}
	for n := 1; n < len(enc); n++ {
		if _, err := DecodeBlockTxs(enc[:n]); err == nil && n != len(EncodeBlockTxs(block[:1])) {
			t.Errorf("block txs cut at %d of %d bytes decoded", n, len(enc))
		}
	}
}

// KeyTxs names each tx once per key, ascending, and no NoTx.
func TestKeyTxs(t *testing.T) {
	k := make(KeyTxs)
	for _, tx := range []int{3, 1, backend.NoTx, 3, 2, 1} {
		k.Add([]byte("a"), tx)
	}
	k.Add([]byte("b"), backend.NoTx)
	if got := k.Of([]byte("a")); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("txs of a: %v, want [1 2 3]", got)
	}
	if got := k.Of([]byte("b")); len(got) != 0 {
		t.Fatalf("txs of b: %v, want none", got)
	}
}

// CheckHistoryLimit takes 1..MaxHistoryRows only.
func TestCheckHistoryLimit(t *testing.T) {
	for limit, ok := range map[int]bool{-1: false, 0: false, 1: true, backend.MaxHistoryRows: true, backend.MaxHistoryRows + 1: false} {
		if err := CheckHistoryLimit(limit); (err == nil) != ok {
			t.Errorf("limit %d: %v", limit, err)
		}
	}
}
