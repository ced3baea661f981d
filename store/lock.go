package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ErrLocked is returned when another server already serves the database.
var ErrLocked = errors.New("another shipd server is using this database")

// ServerLock is the exclusive right to serve a database. Holding it is what
// lets a starting server treat jobs left running as orphans of a crash.
type ServerLock struct{ f *os.File }

// LockForServing takes the lock beside the database (PATH.lock); the OS
// releases it when the process dies, so a crash never leaves it stale.
func LockForServing(dbPath string) (*ServerLock, error) {
	f, err := os.OpenFile(dbPath+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w", dbPath, ErrLocked)
		}
		return nil, fmt.Errorf("lock: %w", err)
	}
	return &ServerLock{f: f}, nil
}

// Release gives the lock up.
func (l *ServerLock) Release() error {
	defer l.f.Close()
	return syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
}
