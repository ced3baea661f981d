package seal

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func testCipher(t *testing.T) *Cipher {
	t.Helper()
	c, err := NewCipher(bytes.Repeat([]byte{7}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCipherRoundTrip(t *testing.T) {
	t.Parallel()
	c := testCipher(t)
	for _, plaintext := range []string{"whsec_abc", "", strings.Repeat("ü", 1000)} {
		enc, err := c.Encrypt(plaintext)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(enc, "v1:") {
			t.Errorf("Encrypt() = %q, want v1: prefix", enc)
		}
		if plaintext != "" && strings.Contains(enc, plaintext) {
			t.Errorf("Encrypt() output contains the plaintext")
		}
		dec, err := c.Decrypt(enc)
		if err != nil {
			t.Fatalf("Decrypt(Encrypt(%q)) error: %v", plaintext, err)
		}
		if diff := cmp.Diff(plaintext, dec); diff != "" {
			t.Errorf("round trip mismatch (-want +got):\n%s", diff)
		}
	}
}

func TestCipherDistinctCiphertexts(t *testing.T) {
	t.Parallel()
	c := testCipher(t)
	a, err := c.Encrypt("whsec_same")
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Encrypt("whsec_same")
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Errorf("two encryptions of the same plaintext are identical: %q", a)
	}
}

func TestCipherRejectsTampering(t *testing.T) {
	t.Parallel()
	c := testCipher(t)
	enc, err := c.Encrypt("whsec_secret")
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(enc, "v1:"))
	if err != nil {
		t.Fatal(err)
	}
	reencode := func(b []byte) string { return "v1:" + base64.StdEncoding.EncodeToString(b) }
	flip := func(i int) string {
		b := bytes.Clone(sealed)
		b[i] ^= 1
		return reencode(b)
	}
	other, err := NewCipher(bytes.Repeat([]byte{8}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	otherEnc, err := other.Encrypt("whsec_secret")
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		value string
	}{
		{"nonce bit flipped", flip(0)},
		{"ciphertext bit flipped", flip(12)},
		{"tag bit flipped", flip(len(sealed) - 1)},
		{"truncated", reencode(sealed[:len(sealed)-1])},
		{"too short for nonce and tag", reencode(sealed[:10])},
		{"extra byte appended", reencode(append(bytes.Clone(sealed), 0))},
		{"encrypted under another key", otherEnc},
		{"unknown version", "v2:" + strings.TrimPrefix(enc, "v1:")},
		{"no version", strings.TrimPrefix(enc, "v1:")},
		{"not base64", "v1:!!!"},
		{"empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.Decrypt(tt.value)
			if !errors.Is(err, ErrInvalidCiphertext) {
				t.Errorf("Decrypt() = %q, %v; want error wrapping ErrInvalidCiphertext", got, err)
			}
		})
	}
}

func TestNewCipherKeyLength(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 16, 24, 31, 33} {
		if _, err := NewCipher(make([]byte, n)); err == nil {
			t.Errorf("NewCipher(%d-byte key) succeeded, want error", n)
		}
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	key := make([]byte, KeySize)
	for i := range key {
		key[i] = byte(i * 7)
	}
	tests := []struct {
		name    string
		in      string
		want    []byte
		wantErr bool
	}{
		{name: "hex lowercase", in: hex.EncodeToString(key), want: key},
		{name: "hex uppercase", in: strings.ToUpper(hex.EncodeToString(key)), want: key},
		{name: "hex with newline", in: hex.EncodeToString(key) + "\n", want: key},
		{name: "base64 std", in: base64.StdEncoding.EncodeToString(key), want: key},
		{name: "base64 raw std", in: base64.RawStdEncoding.EncodeToString(key), want: key},
		{name: "base64 url", in: base64.URLEncoding.EncodeToString(key), want: key},
		{name: "base64 raw url", in: base64.RawURLEncoding.EncodeToString(key), want: key},
		{name: "empty", in: "", wantErr: true},
		{name: "short hex", in: hex.EncodeToString(key[:16]), wantErr: true},
		{name: "long hex", in: hex.EncodeToString(append(bytes.Clone(key), 0)), wantErr: true},
		{name: "base64 of 31 bytes", in: base64.StdEncoding.EncodeToString(key[:31]), wantErr: true},
		{name: "64 chars not hex", in: strings.Repeat("g", 64), wantErr: true},
		{name: "passphrase", in: "correct horse battery staple", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseKey(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseKey() error = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseKey() mismatch (-want +got):\n%s", diff)
			}
			if err != nil && tt.in != "" && strings.Contains(err.Error(), strings.TrimSpace(tt.in)) {
				t.Errorf("ParseKey() error %q repeats the key material", err)
			}
		})
	}
}

func TestLoadOrCreateKey(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state", "keys")
	path := filepath.Join(dir, "webhook.key")

	key, err := LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(key) != KeySize {
		t.Fatalf("LoadOrCreateKey() returned %d bytes, want %d", len(key), KeySize)
	}

	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("key file mode = %o, want 600", got)
	}
	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := di.Mode().Perm(); got != 0o700 {
		t.Errorf("key directory mode = %o, want 700", got)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("key directory holds %d entries, want only the key file (temporary file left behind?)", len(entries))
	}

	again, err := LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(key, again); diff != "" {
		t.Errorf("second LoadOrCreateKey() returned a different key (-first +second):\n%s", diff)
	}

	// The key must be usable: something encrypted with the first load
	// decrypts with a Cipher built from the second.
	c1, err := NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := NewCipher(again)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := c1.Encrypt("whsec_x")
	if err != nil {
		t.Fatal(err)
	}
	if dec, err := c2.Decrypt(enc); err != nil || dec != "whsec_x" {
		t.Errorf("Decrypt with reloaded key = %q, %v", dec, err)
	}
}

func TestLoadOrCreateKeyConcurrent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "webhook.key")
	const n = 8
	keys := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { keys[i], errs[i] = LoadOrCreateKey(path) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("LoadOrCreateKey() #%d: %v", i, errs[i])
		}
		if diff := cmp.Diff(keys[0], keys[i]); diff != "" {
			t.Errorf("concurrent callers got different keys (-#0 +#%d):\n%s", i, diff)
		}
	}
}

func TestLoadOrCreateKeyExisting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := bytes.Repeat([]byte{0xab}, KeySize)

	b64 := filepath.Join(dir, "b64.key")
	if err := os.WriteFile(b64, []byte(base64.StdEncoding.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := LoadOrCreateKey(b64)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(key, got); diff != "" {
		t.Errorf("LoadOrCreateKey(base64 file) mismatch (-want +got):\n%s", diff)
	}

	// A damaged key file must stop startup, not be replaced by a new key that
	// cannot decrypt anything already stored.
	bad := filepath.Join(dir, "bad.key")
	if err := os.WriteFile(bad, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateKey(bad); err == nil {
		t.Error("LoadOrCreateKey(corrupt file) succeeded, want error")
	}
	if b, _ := os.ReadFile(bad); string(b) != "not a key\n" {
		t.Errorf("corrupt key file was rewritten to %q", b)
	}
}
