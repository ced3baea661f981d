package fakekit

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Refusals of Pickups.Cancel.
var (
	// ErrNoPickup: no pickup has this confirmation code.
	ErrNoPickup = errors.New("fakekit: no such pickup")
	// ErrPickupCancelled: the pickup is already cancelled.
	ErrPickupCancelled = errors.New("fakekit: the pickup is already cancelled")
)

// Pickup is what every carrier keeps of a pickup it scheduled. A fake's own
// record embeds it, adding what only its carrier keeps.
type Pickup struct {
	// Code is the carrier's confirmation code (UPS's PRN, USPS's
	// confirmation number).
	Code string
	// Body is the request the pickup was scheduled with.
	Body      []byte
	Cancelled bool
}

func (p *Pickup) pickup() *Pickup { return p }

// PickupRecord is a fake's record of a pickup: a pointer to a struct that
// embeds Pickup.
type PickupRecord interface{ pickup() *Pickup }

// Pickups is the book of the pickups a fake scheduled, by confirmation
// code; the zero value is an empty book. It is safe for concurrent use; a
// record is read and changed only inside the functions given to With and
// Cancel.
type Pickups[T PickupRecord] struct {
	mu     sync.Mutex
	byCode map[string]T
}

// Schedule books rec under its code.
func (b *Pickups[T]) Schedule(rec T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byCode == nil {
		b.byCode = map[string]T{}
	}
	b.byCode[rec.pickup().Code] = rec
}

// Pickup returns the body the pickup of code was scheduled with and whether
// it was cancelled; ok is false for an unknown code.
func (b *Pickups[T]) Pickup(code string) (body []byte, cancelled, ok bool) {
	b.With(code, func(rec T) {
		p := rec.pickup()
		body, cancelled, ok = p.Body, p.Cancelled, true
	})
	return body, cancelled, ok
}

// With runs fn on the pickup of code; false when there is none.
func (b *Pickups[T]) With(code string, fn func(T)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	rec, ok := b.byCode[code]
	if ok {
		fn(rec)
	}
	return ok
}

// Cancel cancels the pickup of code. rule, when set, has the carrier's say
// first (the date asked must be the pickup's, say) and its error is
// returned as is; then a cancelled pickup is refused.
func (b *Pickups[T]) Cancel(code string, rule func(T) error) error {
	var err error
	found := b.With(code, func(rec T) {
		p := rec.pickup()
		if rule != nil {
			err = rule(rec)
		}
		switch {
		case err != nil:
		case p.Cancelled:
			err = fmt.Errorf("%w: %s", ErrPickupCancelled, code)
		default:
			p.Cancelled = true
		}
	})
	if !found {
		return fmt.Errorf("%w: %s", ErrNoPickup, code)
	}
	return err
}

// Each runs fn on every pickup, in the order of their codes.
func (b *Pickups[T]) Each(fn func(T)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, code := range slices.Sorted(maps.Keys(b.byCode)) {
		fn(b.byCode[code])
	}
}
