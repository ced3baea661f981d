package exchangerates

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// File is the rates file an operator keeps (--exchange-rates): read at
// start, and again whenever it changes (its size or modification time),
// checked at most once per CheckEvery. A file that no longer reads keeps
// the last table that did, and is logged. Safe for concurrent use.
type File struct {
	path string
	log  *slog.Logger
	now  func() time.Time

	mu      sync.Mutex
	table   *Table
	stamp   fileStamp
	checked time.Time
}

type fileStamp struct {
	size    int64
	modTime time.Time
}

// CheckEvery is how often File looks at its file.
const CheckEvery = 5 * time.Second

// StaleAfter is how old the rates may be before shipd warns that the file
// is not being refreshed: the ECB publishes every working day.
const StaleAfter = 7 * 24 * time.Hour

// OpenFile reads path, which must hold a table now; now is the clock (nil:
// time.Now).
func OpenFile(path string, log *slog.Logger, now func() time.Time) (*File, error) {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	f := &File{path: path, log: log, now: now}
	table, stamp, err := read(path)
	if err != nil {
		return nil, err
	}
	f.table, f.stamp, f.checked = table, stamp, now()
	return f, nil
}

func read(path string) (*Table, fileStamp, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("exchange rates: %w", err)
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("exchange rates: %w", err)
	}
	t, err := Parse(fh)
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("exchange rates %s: %w", path, err)
	}
	return t, fileStamp{size: info.Size(), modTime: info.ModTime()}, nil
}

// Table is the current table, the file read again first when it changed.
func (f *File) Table() *Table {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	if now.Sub(f.checked) < CheckEvery {
		return f.table
	}
	f.checked = now
	info, err := os.Stat(f.path)
	if err != nil {
		f.log.Warn("the exchange rates file cannot be read; the last rates read stay in use", "path", f.path, "error", err)
		return f.table
	}
	if (fileStamp{size: info.Size(), modTime: info.ModTime()}) == f.stamp {
		return f.table
	}
	table, stamp, err := read(f.path)
	if err != nil {
		f.log.Warn("the exchange rates file changed but does not read; the last rates read stay in use", "error", err)
		return f.table
	}
	f.table, f.stamp = table, stamp
	f.log.Info("exchange rates read again", "path", f.path, "date", table.Date.Format(time.DateOnly))
	return table
}

// Stale says why the current rates are too old to trust, "" when they are
// not: readiness and the start log report it.
func (f *File) Stale() string {
	t := f.Table()
	if age := f.now().Sub(t.Date); age > StaleAfter {
		return fmt.Sprintf("the exchange rates are of %s, %d days old: refresh %s from the ECB", t.Date.Format(time.DateOnly), int(age.Hours()/24), f.path)
	}
	return ""
}

// errNoFile is what a nil *File answers: no rates are configured.
var errNoFile = errors.New("no exchange rates are configured (--exchange-rates)")

// Rate is the current table's rate of the pair (see Table.Rate); with no
// file, only a currency to itself has one.
func (f *File) Rate(from, to string) (rate Rate, err error) {
	if from == to {
		return Rate{From: from, To: to, Value: one(), Date: time.Time{}}, nil
	}
	if f == nil {
		return Rate{}, fmt.Errorf("%s to %s: %w: %w", from, to, ErrNoRate, errNoFile)
	}
	t := f.Table()
	v, err := t.Rate(from, to)
	if err != nil {
		return Rate{}, err
	}
	return Rate{From: from, To: to, Value: v, Date: t.Date}, nil
}
