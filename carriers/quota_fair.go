package carriers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
)

// Fair shares of a tracking budget. A carrier's tracking budget is one for
// every account shipd serves (USPS: 60 calls an hour per app), and polls
// that find it spent wait for a later call: without more, one account that
// follows a thousand packages asks a thousand times for each call that
// frees, and another account's label waits behind them. A poll therefore
// says whose it is (WithTrackingClaim), and Limit shares the budget between
// accounts:
//
//   - Each account has a share of its own, a tenth of the budget (at least a
//     call): a poll within its account's share may take the budget to its
//     last call. A standalone tracker's poll leaves half of the share to the
//     account's labels, so an account's own label goes before its trackers.
//   - Beyond its share an account borrows from the budget only while the
//     budget keeps a reserve for the other accounts' shares: a quarter of it
//     for a label's poll, half of it for a standalone tracker's.
//
// Under USPS's 60 calls an hour, an account's share is 6 an hour (3 for its
// trackers); an account with a thousand trackers borrows the rest down to 30
// calls, which the other accounts' polls within their shares take first.
// The budget is spent as fast as before: what borrowers leave is a reserve
// of calls kept for later, not a rate given up.

// TrackingClaim says on whose behalf a tracking poll asks.
type TrackingClaim struct {
	// Account is the account of the tracker; "" for a call on behalf of
	// several accounts (a batch), which draws on no account's share.
	Account string
	// Label: the tracker follows a label the account bought through shipd,
	// whose polls go before the account's standalone trackers.
	Label bool
}

type trackingClaimKey struct{}

// WithTrackingClaim returns ctx carrying claim: the Track calls made with
// it draw on the claim's account's share of the carrier's tracking budget
// (see Limit). A Track call without one takes the budget as any call does.
func WithTrackingClaim(ctx context.Context, claim TrackingClaim) context.Context {
	return context.WithValue(ctx, trackingClaimKey{}, claim)
}

func trackingClaimOf(ctx context.Context) (TrackingClaim, bool) {
	c, ok := ctx.Value(trackingClaimKey{}).(TrackingClaim)
	return c, ok
}

// batchClaim is the claim of one call on behalf of several polls: their
// account when they share one, else none; a label's when any is a label's.
func batchClaim(claims []TrackingClaim) (TrackingClaim, bool) {
	if len(claims) == 0 {
		return TrackingClaim{}, false
	}
	out := claims[0]
	for _, c := range claims[1:] {
		if c.Account != out.Account {
			out.Account = ""
		}
		out.Label = out.Label || c.Label
	}
	return out, true
}

// share is an account's part of the tracking budget q: a tenth, at least one call.
func (q Quota) share() Quota {
	return Quota{Calls: max((q.Calls+9)/10, 1), Per: q.Per}
}

// labelsPart is what a standalone tracker's poll leaves of its account's
// share for the account's labels: half.
func (q Quota) labelsPart() int { return q.Calls / 2 }

// borrowReserve is what a poll beyond its account's share leaves of the
// budget q for the other accounts: a quarter for a label's, half for a
// standalone tracker's.
func (q Quota) borrowReserve(label bool) int {
	if label {
		return q.Calls / 4
	}
	return q.Calls / 2
}

// shareKey names an account's share of the budget of api: by a hash of the
// account id, as a carrier account's client is named.
func (l *limited) shareKey(api, account string) string {
	sum := sha256.Sum256([]byte(account))
	return l.key(api) + "@" + hex.EncodeToString(sum[:8])
}

// fairReserve is what a tracking poll of claim must leave of the budget q
// of api: nothing when its account's share holds a call for it (taken
// here), else what borrowing leaves for the others. A share the limiter
// cannot read is no share: the poll borrows.
func (l *limited) fairReserve(ctx context.Context, api string, q Quota, claim TrackingClaim) int {
	if claim.Account != "" {
		keep := 0
		if !claim.Label {
			keep = q.share().labelsPart()
		}
		if ok, _, err := l.cfg.Limiter.Take(ctx, l.shareKey(api, claim.Account), q.share(), keep); err == nil && ok {
			return 0
		}
	}
	return q.borrowReserve(claim.Label)
}
