// Package fakeclock is a clock that tests move by hand, safe for concurrent
// use: services take its Now as their time source.
package fakeclock

import (
	"sync"
	"time"
)

// Clock stands still until Advance moves it.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a clock showing t.
func New(t time.Time) *Clock { return &Clock{now: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
