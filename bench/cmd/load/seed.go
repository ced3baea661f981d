package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/store"
)

// benchAccount is an account with a test-mode token of every scope.
type benchAccount struct {
	ID    string
	Token string
}

// seeded is a prepared database: the accounts each phase uses and a sample
// of the seeded shipments' ids.
type seeded struct {
	Path      string
	Accounts  map[string]benchAccount // scale (owns the seeded shipments), write, purchase, e2e, fanout
	SampleIDs []string                // up to 10,000 seeded shipment ids, spread over the table
	Rows      int
	Duration  time.Duration
	// Bytes of the database file after seeding, per seeded shipment (with its 2 tracking events).
	BytesPerRow float64
}

// shipmentInput mirrors what CreateLabel stores in shipments.request.
type shipmentInput struct {
	FromAddress gen.Address  `json:"fromAddress"`
	ToAddress   gen.Address  `json:"toAddress"`
	Parcel      gen.Parcel   `json:"parcel"`
	Options     *gen.Options `json:"options,omitempty"`
	Customs     *gen.Customs `json:"customs,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// createBody is the POST /labels/create body every phase sends.
func createBody() []byte {
	b, _ := json.Marshal(map[string]any{
		"serviceCategory": "standard",
		"fromAddress":     map[string]any{"name": "Shop", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
		"toAddress":       map[string]any{"name": "Ada Lovelace", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
		"parcel":          map[string]any{"weightOz": 32, "lengthIn": 10, "widthIn": 8, "heightIn": 4},
	})
	return b
}

// quickQuoteBody is a quick quote: what a checkout page knows before the
// customer types a street.
func quickQuoteBody() []byte {
	b, _ := json.Marshal(map[string]any{
		"fromAddress": map[string]any{"state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"state": "NY", "zip": "10118", "country": "US"},
		"parcel":      map[string]any{"weightOz": 32, "lengthIn": 10, "widthIn": 8, "heightIn": 4},
	})
	return b
}

// prepare creates a database with shipd's schema (store.Open), the bench
// accounts, and rows purchased shipments of the scale account (test mode),
// each with two tracking events, inserted directly into the file: one
// prepared INSERT per table (16 rows per statement), 50,000 rows per
// transaction, with synchronous=OFF and journal_mode=OFF while seeding only
// (WAL is back before the server starts). Trackers are not seeded: no read
// of the bench looks at them.
func prepare(ctx context.Context, path string, rows int) (*seeded, error) {
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("%s exists: the bench seeds a new database (remove it or pick another -work-dir)", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	out := &seeded{Path: path, Accounts: map[string]benchAccount{}, Rows: rows}
	err = createAccounts(ctx, st, out)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}

	start := time.Now()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, p := range []string{"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF", "PRAGMA cache_size=-524288", "PRAGMA temp_store=MEMORY"} {
		if _, err := db.ExecContext(ctx, p); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	if err := seedShipments(ctx, db, out, rows); err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		return nil, err
	}
	var pages, pageSize int64
	if err := db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return nil, err
	}
	if err := db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		return nil, err
	}
	out.Duration = time.Since(start)
	if rows > 0 {
		out.BytesPerRow = float64(pages*pageSize) / float64(rows)
	}
	return out, nil
}

// seedRow is one seeded shipment: a purchased test-mode label of the scale
// account, followed by a tracker with two scans.
type seedRow struct {
	id, tracker                string
	carrier, service, category string
	rate, price                int64 // carrier rate; customer price and charge (rate + the 8-cent fee)
	days                       int
	request                    string // one of a few shipment inputs, as JSON
	trackingNumber, labelKey   string
	created, purchased         time.Time
}

// seedRows makes the rows of a seeded database, the same for SQLite and
// PostgreSQL: row(k) must be called for k = 0, 1, … in order; it samples
// up to 10,000 ids evenly into out.SampleIDs.
type seedRows struct {
	out      *seeded
	ids      []string
	trackers []string
	requests []string
	every    int
	base     time.Time
	rng      *rand.Rand
}

var seedServices = []struct {
	carrier, service, category string
	rate                       int64
	days                       int
}{
	{"USPS", "Ground Advantage", "economy", 712, 5},
	{"USPS", "Priority", "standard", 985, 3},
	{"UPS", "Ground", "standard", 1134, 4},
	{"FedEx", "2Day", "express", 2210, 2},
}

func newSeedRows(out *seeded, rows int) (*seedRows, error) {
	names := []string{"Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov"}
	streets := []string{"350 Fifth Avenue", "1600 Pennsylvania Ave NW", "4059 Mt Lee Dr", "233 S Wacker Dr", "1 Infinite Loop"}
	requests := make([]string, len(names))
	for i := range names {
		in := shipmentInput{
			FromAddress: gen.Address{Name: ptr("Shop"), Street1: "1 Market St", City: "San Francisco", State: ptr("CA"), Zip: "94105", Country: "US"},
			ToAddress:   gen.Address{Name: ptr(names[i]), Street1: streets[i], City: "New York", State: ptr("NY"), Zip: "10118", Country: "US"},
			Parcel:      gen.Parcel{WeightOz: ptr(float64(8 + 8*i)), LengthIn: ptr(10.0), WidthIn: ptr(8.0), HeightIn: ptr(4.0)},
		}
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		requests[i] = string(b)
	}
	// Ids are random, as the API makes them, but handed out in ascending
	// order, so the UNIQUE index on id (and tracking_events' on tracker_id)
	// is appended to instead of split at random: 3-4x faster seeding, and a
	// lookup by id still walks an index of rows+ random keys.
	return &seedRows{
		out: out, ids: sortedIDs("shp", rows), trackers: sortedIDs("trk", rows), requests: requests,
		every: max(1, rows/10_000), // sample up to 10,000 ids evenly
		base:  time.Now().UTC().Add(-time.Duration(rows) * time.Second),
		rng:   rand.New(rand.NewPCG(1, 2)),
	}, nil
}

func (m *seedRows) row(k int) seedRow {
	svc := seedServices[m.rng.IntN(len(seedServices))]
	created := m.base.Add(time.Duration(k) * time.Second)
	r := seedRow{id: m.ids[k], tracker: m.trackers[k], carrier: svc.carrier, service: svc.service, category: svc.category,
		rate: svc.rate, price: svc.rate + 8, days: svc.days, request: m.requests[k%len(m.requests)],
		trackingNumber: fmt.Sprintf("9400%018d", k), labelKey: "labels/" + m.ids[k] + ".pdf",
		created: created, purchased: created.Add(80 * time.Millisecond)}
	if k%m.every == 0 && len(m.out.SampleIDs) < 10_000 {
		m.out.SampleIDs = append(m.out.SampleIDs, r.id)
	}
	return r
}

// createAccounts makes the bench's accounts, each with a test-mode token of
// every scope, through the accounts service.
func createAccounts(ctx context.Context, st *store.Store, out *seeded) error {
	acc := accounts.New(st, accounts.Config{})
	for _, name := range []string{"scale", "write", "purchase", "e2e", "fanout"} {
		a, err := acc.CreateAccount(ctx, "bench-"+name, true)
		if err != nil {
			return err
		}
		_, secret, err := acc.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: accounts.Test, Scopes: accounts.Scopes()})
		if err != nil {
			return err
		}
		out.Accounts[name] = benchAccount{ID: a.ID, Token: secret}
	}
	return nil
}

func seedShipments(ctx context.Context, db *sql.DB, out *seeded, rows int) error {
	acct := out.Accounts["scale"].ID
	gen, err := newSeedRows(out, rows)
	if err != nil {
		return err
	}
	const batch = 50_000 // rows per transaction
	const chunk = 16     // rows per INSERT statement
	shipmentCols := `INSERT INTO shipments (id, account_id, mode, status, created_at, updated_at,
		carrier, service, service_category, carrier_rate_cents, platform_fee_cents, customer_price_cents, balance_applied_cents,
		charge_amount_cents, currency, estimated_days, request, source, tracking_number, label_key, tracker_id, tracking_status,
		error_message, purchased_at, voided_at) VALUES `
	shipmentRow := `(?, ?, 'test', 'purchased', ?, ?, ?, ?, ?, ?, 8, ?, 0, ?, 'USD', ?, ?, 'api', ?, ?, ?, 'in_transit', NULL, ?, NULL)`
	eventCols := `INSERT INTO tracking_events (tracker_id, scan_index, status, message, location, occurred_at) VALUES `
	eventRows := `(?, 0, 'pre_transit', 'Shipping label created', 'San Francisco, CA', ?), (?, 1, 'in_transit', 'Departed origin facility', 'San Francisco, CA', ?)`
	repeat := func(head, row string, n int) string {
		var b strings.Builder
		b.WriteString(head)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(row)
		}
		return b.String()
	}
	shipArgs := make([]any, 0, chunk*13)
	eventArgs := make([]any, 0, chunk*4)
	for done := 0; done < rows; {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		stmts := map[int][2]*sql.Stmt{} // by rows per statement
		prepared := func(n int) ([2]*sql.Stmt, error) {
			if st, ok := stmts[n]; ok {
				return st, nil
			}
			a, err := tx.PrepareContext(ctx, repeat(shipmentCols, shipmentRow, n))
			if err != nil {
				return [2]*sql.Stmt{}, err
			}
			b, err := tx.PrepareContext(ctx, repeat(eventCols, eventRows, n))
			if err != nil {
				return [2]*sql.Stmt{}, err
			}
			stmts[n] = [2]*sql.Stmt{a, b}
			return stmts[n], nil
		}
		end := min(done+batch, rows)
		for first := done; first < end; first += chunk {
			n := min(chunk, end-first)
			shipArgs, eventArgs = shipArgs[:0], eventArgs[:0]
			for k := range n {
				r := gen.row(first + k)
				shipArgs = append(shipArgs, r.id, acct, r.created, r.purchased, r.carrier, r.service, r.category,
					r.rate, r.price, r.price, r.days, r.request, r.trackingNumber, r.labelKey, r.tracker, r.purchased)
				eventArgs = append(eventArgs, r.tracker, r.purchased.Add(time.Hour), r.tracker, r.purchased.Add(2*time.Hour))
			}
			st, err := prepared(n)
			if err == nil {
				_, err = st[0].ExecContext(ctx, shipArgs...)
			}
			if err == nil {
				_, err = st[1].ExecContext(ctx, eventArgs...)
			}
			if err != nil {
				tx.Rollback()
				return fmt.Errorf("seed shipments %d+%d: %w", first, n, err)
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		done = end
	}
	return nil
}

func sortedIDs(prefix string, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = store.NewID(prefix)
	}
	slices.Sort(ids)
	return ids
}
