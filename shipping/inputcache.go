package shipping

import "sync"

// A label's stored request never changes after its create, yet every read of
// the label decodes it again (a tenth of a GET's CPU). decodedInputs keeps the
// decoded form by the stored text itself, so an entry can never be stale and
// needs no invalidation, on any database and any number of instances. What
// it returns is shared: callers only read it.

// maxDecodedInputs bounds the cache (a stored request is about 1 KiB);
// a full cache drops an arbitrary entry for each new one.
const maxDecodedInputs = 10_000

type decodedInputs struct {
	mu    sync.RWMutex
	byRaw map[string]Input
}

// decode is DecodeInput, remembered.
func (c *decodedInputs) decode(raw string) (Input, error) {
	c.mu.RLock()
	in, ok := c.byRaw[raw]
	c.mu.RUnlock()
	if ok {
		return in, nil
	}
	in, err := DecodeInput(raw)
	if err != nil {
		return Input{}, err
	}
	c.mu.Lock()
	if c.byRaw == nil {
		c.byRaw = map[string]Input{}
	}
	if len(c.byRaw) >= maxDecodedInputs {
		for old := range c.byRaw {
			delete(c.byRaw, old)
			break
		}
	}
	c.byRaw[raw] = in
	c.mu.Unlock()
	return in, nil
}
