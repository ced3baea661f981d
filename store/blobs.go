package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrBlobNotFound is returned when a stored document is missing.
var ErrBlobNotFound = errors.New("blob not found")

// FileBlobs keeps documents (label PDFs) as files under a directory.
// Writes go to a temporary file renamed into place, so a reader never sees half a file.
type FileBlobs struct {
	Dir string
}

func (b FileBlobs) path(key string) (string, error) {
	if key == "" || strings.Contains(key, "..") || strings.ContainsAny(key, `\`) || filepath.IsAbs(key) {
		return "", fmt.Errorf("blob key %q: not a relative key", key)
	}
	return filepath.Join(b.Dir, filepath.FromSlash(key)), nil
}

// Put stores data under key, replacing what was there.
func (b FileBlobs) Put(ctx context.Context, key string, data []byte) error {
	p, err := b.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

// Get reads the data under key; ErrBlobNotFound when there is none.
func (b FileBlobs) Get(ctx context.Context, key string) ([]byte, error) {
	p, err := b.path(key)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrBlobNotFound
	}
	return data, err
}
