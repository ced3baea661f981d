package accounts

import (
	"context"
	"sync"

	"github.com/shipd-dev/shipd/store"
)

// The tokens of recent requests are kept in memory, so that a request does
// not read its token from the database. A revocation must still take effect
// at once, whichever process made it: every lookup first asks the store for
// its tokens version (store.TokensVersion: SQLite's data_version, or the
// count of PostgreSQL's revocation notices), and everything cached is
// dropped when it moved. When the version cannot be known, the token is read
// from the database, as without a cache. Only tokens that exist are kept: an
// unknown secret costs a read every time (failed authentications are limited
// per address instead). Expiry needs no invalidation: it is checked on every
// use against the cached expiry time. Writes still re-read the token in their
// own transaction (Recheck).

// maxCachedTokens bounds the cache; past it, new tokens are read every time
// until the next change of version empties it.
const maxCachedTokens = 10_000

type tokenCache struct {
	mu      sync.Mutex
	version int64
	// drops counts this process's own revocations: they empty the cache at
	// once, before a PostgreSQL notice could.
	drops  int64
	byHash map[string]store.Token
}

// dropAll empties the cache after a revocation made by this process.
func (c *tokenCache) dropAll() {
	c.mu.Lock()
	c.byHash = nil
	c.drops++
	c.mu.Unlock()
}

func (s *Service) tokenByHash(ctx context.Context, hash []byte) (store.Token, error) {
	c := &s.tokens
	var drops int64
	version, verr := s.store.TokensVersion(ctx)
	if verr == nil {
		c.mu.Lock()
		if c.version != version || c.byHash == nil {
			c.byHash, c.version = map[string]store.Token{}, version
		}
		t, ok := c.byHash[string(hash)]
		drops = c.drops
		c.mu.Unlock()
		if ok {
			return t, nil
		}
	}
	t, err := s.store.TokenByHash(ctx, hash)
	if err != nil || verr != nil {
		return t, err
	}
	c.mu.Lock()
	// Kept only if nothing changed since the version was read: a revocation
	// that committed meanwhile moved it, and the token read may predate it.
	if c.version == version && c.drops == drops && c.byHash != nil && len(c.byHash) < maxCachedTokens {
		c.byHash[string(hash)] = t
	}
	c.mu.Unlock()
	return t, nil
}
