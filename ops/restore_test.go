package ops

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// backupBytes is a backup file of data with manifest m (edited by edit),
// its entries as tar headers say (edit may change them too).
func backupBytes(t testing.TB, data []byte, edit func(m *BackupManifest, hdrs []*tar.Header)) []byte {
	sum := sha256.Sum256(data)
	m := BackupManifest{Format: BackupFormat, ChainID: "c", Backend: "sqlite", Height: 7,
		AppHash: strings.Repeat("ab", 32), File: "checkpoint-7.db", Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
	hdrs := []*tar.Header{{Name: manifestName, Mode: 0o644, Typeflag: tar.TypeReg}, {Name: m.File, Mode: 0o644, Size: m.Size, Typeflag: tar.TypeReg}}
	if edit != nil {
		edit(&m, hdrs)
	}
	mj, _ := json.Marshal(m)
	if hdrs[0].Size == 0 {
		hdrs[0].Size = int64(len(mj))
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for i, body := range [][]byte{mj, data} {
		if err := tw.WriteHeader(hdrs[i]); err != nil {
			t.Fatal(err)
		}
		if n := int(hdrs[i].Size); n <= len(body) {
			body = body[:n]
		} else if n < 1<<20 {
			body = append(body, make([]byte, n-len(body))...)
		}
		_, _ = tw.Write(body)
	}
	tw.Flush()
	return buf.Bytes()
}

// A backup file is input: whatever is wrong with it, readBackup refuses it
// with ErrBadBackup and a reason, and writes no checkpoint.
func TestReadBackupRefusesMalformedFiles(t *testing.T) {
	data := []byte("not really a database, but bytes with a digest")
	good := backupBytes(t, data, nil)
	cases := map[string]struct {
		file []byte
		want string
	}{
		"empty":     {nil, "not a relchain backup"},
		"not a tar": {[]byte(strings.Repeat("x", 2048)), "not a relchain backup"},
		"truncated": {good[:len(good)-600], "truncated"},
		"flipped":   {flip(good, 3*512+3), "SHA-256"},
		"format":    {backupBytes(t, data, func(m *BackupManifest, _ []*tar.Header) { m.Format = "v0" }), "format"},
		"height":    {backupBytes(t, data, func(m *BackupManifest, _ []*tar.Header) { m.Height = -1 }), "height"},
		"app hash":  {backupBytes(t, data, func(m *BackupManifest, _ []*tar.Header) { m.AppHash = "zz" }), "app_hash"},
		"path in name": {backupBytes(t, data, func(m *BackupManifest, h []*tar.Header) {
			m.File, h[1].Name = "../checkpoint-7.db", "../checkpoint-7.db"
		}), "not the checkpoint"},
		"other height":    {backupBytes(t, data, func(m *BackupManifest, h []*tar.Header) { m.File, h[1].Name = "checkpoint-8.db", "checkpoint-8.db" }), "not the checkpoint"},
		"huge size":       {backupBytes(t, data, func(m *BackupManifest, _ []*tar.Header) { m.Size = 1 << 50 }), "size"},
		"size mismatch":   {backupBytes(t, data, func(m *BackupManifest, _ []*tar.Header) { m.Size-- }), "manifest says"},
		"huge manifest":   {backupBytes(t, data, func(_ *BackupManifest, h []*tar.Header) { h[0].Size = maxManifestBytes + 1 }), "not a relchain backup"},
		"manifest second": {backupBytes(t, data, func(_ *BackupManifest, h []*tar.Header) { h[0].Name = "x.json" }), "not a relchain backup"},
		"symlink": {backupBytes(t, data, func(_ *BackupManifest, h []*tar.Header) {
			h[1].Typeflag, h[1].Linkname, h[1].Size = tar.TypeSymlink, "/etc/passwd", 0
		}), "manifest says"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "b")
			if err := os.WriteFile(f, c.file, 0o644); err != nil {
				t.Fatal(err)
			}
			work := filepath.Join(dir, "work")
			if err := os.Mkdir(work, 0o755); err != nil {
				t.Fatal(err)
			}
			_, _, err := readBackup(f, work, nil)
			if !errors.Is(err, ErrBadBackup) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a refusal naming %q", err, c.want)
			}
		})
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "b")
	if err := os.WriteFile(f, good, 0o644); err != nil {
		t.Fatal(err)
	}
	m, cp, err := readBackup(f, dir, nil)
	if err != nil || m.Height != 7 || cp.Height != 7 {
		t.Fatalf("the good backup: %+v %+v %v", m, cp, err)
	}
	if b, _ := os.ReadFile(cp.Path); !bytes.Equal(b, data) {
		t.Fatalf("the checkpoint copied is %q", b)
	}
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 1
	return c
}

// readBackup never panics, whatever the file.
func FuzzReadBackup(f *testing.F) {
	f.Add(backupBytes(f, []byte("data"), nil))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "b")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, _ = readBackup(p, dir, nil)
	})
}
