package carriers

import "context"

// Carrier operations, as an Observe function is told them.
const (
	OpRates        = "rates"
	OpBuy          = "buy"
	OpVoid         = "void"
	OpTrack        = "track"
	OpTrackingPlan = "tracking_plan"
	OpFindPurchase = "find_purchase"
)

// Observe is called before every call to a carrier, with the carrier's name
// and the operation (OpRates, ...); the call runs with the context it
// returns (a trace span), and done is called with the call's error when it
// returns. It is how metrics and traces see the carriers.
type Observe func(ctx context.Context, carrier, operation string) (_ context.Context, done func(error))

// Instrument returns c with every call of the operations its
// Capabilities declare observed; the result declares the same. A batch of
// tracking numbers is one call (OpTrack).
func Instrument(c Carrier, observe Observe) Carrier {
	if observe == nil || c == nil {
		return c
	}
	name := c.Name()
	return wrap(c, func(ctx context.Context, op string, call func(context.Context) error) error {
		ctx, done := observe(ctx, name, op)
		err := call(ctx)
		done(err)
		return err
	})
}

// Instrument returns a registry of the same carriers, each observed (see Instrument).
func (r *Registry) Instrument(observe Observe) *Registry {
	return r.each(func(c Carrier) Carrier { return Instrument(c, observe) })
}

// each returns a registry of the carriers of r, each replaced by f's.
func (r *Registry) each(f func(Carrier) Carrier) *Registry {
	wrapAll := func(cs []Carrier) []Carrier {
		out := make([]Carrier, len(cs))
		for i, c := range cs {
			out[i] = f(c)
		}
		return out
	}
	return &Registry{test: wrapAll(r.test), live: wrapAll(r.live)}
}

// around runs one call of a carrier's operation: it may refuse it (and not
// call call), or call call once with the context call is to run with.
type around func(ctx context.Context, op string, call func(context.Context) error) error

// wrap returns c with every call of an operation its Capabilities declare
// made through a. Calls of the others go straight to c, which answers
// ErrNotSupported: they reach no carrier, so there is nothing to observe
// or count. Everything else (Name, Capabilities, MaxTrackBatch, the
// per-service answers) is c's own, through the embedded Carrier.
func wrap(c Carrier, a around) Carrier {
	return &wrapped{Carrier: c, caps: c.Capabilities(), around: a}
}

type wrapped struct {
	Carrier
	caps   Capabilities
	around around
}

// call runs f through around when the carrier declares capability, else directly.
func (w *wrapped) call(ctx context.Context, capability Capabilities, op string, f func(context.Context) error) error {
	if !w.caps.Has(capability) {
		return f(ctx)
	}
	return w.around(ctx, op, f)
}

func (w *wrapped) Rates(ctx context.Context, s Shipment) (rates []Rate, err error) {
	err = w.around(ctx, OpRates, func(ctx context.Context) error {
		rates, err = w.Carrier.Rates(ctx, s)
		return err
	})
	return rates, err
}

func (w *wrapped) Buy(ctx context.Context, req BuyRequest) (l Label, err error) {
	err = w.around(ctx, OpBuy, func(ctx context.Context) error {
		l, err = w.Carrier.Buy(ctx, req)
		return err
	})
	return l, err
}

func (w *wrapped) Void(ctx context.Context, req VoidRequest) (st VoidStatus, err error) {
	err = w.around(ctx, OpVoid, func(ctx context.Context) error {
		st, err = w.Carrier.Void(ctx, req)
		return err
	})
	return st, err
}

func (w *wrapped) Track(ctx context.Context, trackingNumber string) (u TrackingUpdate, err error) {
	err = w.call(ctx, CapTrack, OpTrack, func(ctx context.Context) error {
		u, err = w.Carrier.Track(ctx, trackingNumber)
		return err
	})
	return u, err
}

// TrackMany is one call (OpTrack), whatever the count of numbers.
func (w *wrapped) TrackMany(ctx context.Context, trackingNumbers []string) (rs []TrackResult, err error) {
	err = w.call(ctx, CapTrackMany, OpTrack, func(ctx context.Context) error {
		rs, err = w.Carrier.TrackMany(ctx, trackingNumbers)
		return err
	})
	return rs, err
}

func (w *wrapped) TrackingPlan(ctx context.Context, s Shipment, trackingNumber string) (plan []TrackingScan, err error) {
	err = w.call(ctx, CapTrackingPlan, OpTrackingPlan, func(ctx context.Context) error {
		plan, err = w.Carrier.TrackingPlan(ctx, s, trackingNumber)
		return err
	})
	return plan, err
}

// NumberPlan is the sandbox's own plan, no carrier call to observe or
// count: it goes straight to the carrier.

func (w *wrapped) SchedulePickup(ctx context.Context, req PickupRequest) (pc PickupConfirmation, err error) {
	err = w.call(ctx, CapPickups, OpSchedulePickup, func(ctx context.Context) error {
		pc, err = w.Carrier.SchedulePickup(ctx, req)
		return err
	})
	return pc, err
}

func (w *wrapped) CancelPickup(ctx context.Context, req PickupCancelRequest) error {
	return w.call(ctx, CapPickups, OpCancelPickup, func(ctx context.Context) error {
		return w.Carrier.CancelPickup(ctx, req)
	})
}

func (w *wrapped) FindPickup(ctx context.Context, req PickupRequest) (pc PickupConfirmation, found bool, err error) {
	err = w.call(ctx, CapFindPickup, OpFindPickup, func(ctx context.Context) error {
		pc, found, err = w.Carrier.FindPickup(ctx, req)
		return err
	})
	return pc, found, err
}

func (w *wrapped) Manifest(ctx context.Context, req ManifestRequest) (f ManifestForm, err error) {
	err = w.call(ctx, CapManifests, OpManifest, func(ctx context.Context) error {
		f, err = w.Carrier.Manifest(ctx, req)
		return err
	})
	return f, err
}

func (w *wrapped) FindPurchase(ctx context.Context, req BuyRequest) (l Label, found bool, err error) {
	err = w.call(ctx, CapFindPurchase, OpFindPurchase, func(ctx context.Context) error {
		l, found, err = w.Carrier.FindPurchase(ctx, req)
		return err
	})
	return l, found, err
}
