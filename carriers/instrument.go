package carriers

import "context"

// Carrier operations, as an Observe function is told them.
const (
	OpRates        = "rates"
	OpBuy          = "buy"
	OpVoid         = "void"
	OpTrack        = "track"
	OpTrackingPlan = "tracking_plan"
)

// Observe is called before every call to a carrier, with the carrier's name
// and the operation (OpRates, ...); the call runs with the context it
// returns (a trace span), and done is called with the call's error when it
// returns. It is how metrics and traces see the carriers.
type Observe func(ctx context.Context, carrier, operation string) (_ context.Context, done func(error))

// Instrument returns c with every call observed. What c offers beyond
// Carrier (Planner, Tracker, BatchTracker) the result offers too, so a
// purchase still finds the tracking it needs. A batch of tracking numbers
// is one call (OpTrack).
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

// wrap returns c with every call made through a. The result is a Planner,
// Tracker or BatchTracker exactly when c is.
func wrap(c Carrier, a around) Carrier {
	w := &wrapped{c: c, name: c.Name(), around: a}
	w.p, _ = c.(Planner)
	w.t, _ = c.(Tracker)
	w.b, _ = c.(BatchTracker)
	switch {
	case w.p != nil && w.b != nil:
		return &wrappedPlannerBatch{w}
	case w.p != nil && w.t != nil:
		return &wrappedPlannerTracker{w}
	case w.p != nil:
		return &wrappedPlanner{w}
	case w.b != nil:
		return &wrappedBatch{w}
	case w.t != nil:
		return &wrappedTracker{w}
	}
	return w
}

type wrapped struct {
	c      Carrier
	p      Planner
	t      Tracker
	b      BatchTracker
	name   string
	around around
}

func (w *wrapped) Name() string { return w.name }

// Unwrap is the carrier wrapped, for what the wrappers do not carry
// (NumberPlannerOf).
func (w *wrapped) Unwrap() Carrier { return w.c }

func (w *wrapped) Rates(ctx context.Context, s Shipment) (rates []Rate, err error) {
	err = w.around(ctx, OpRates, func(ctx context.Context) error {
		rates, err = w.c.Rates(ctx, s)
		return err
	})
	return rates, err
}

func (w *wrapped) Buy(ctx context.Context, req BuyRequest) (l Label, err error) {
	err = w.around(ctx, OpBuy, func(ctx context.Context) error {
		l, err = w.c.Buy(ctx, req)
		return err
	})
	return l, err
}

func (w *wrapped) Void(ctx context.Context, req VoidRequest) (st VoidStatus, err error) {
	err = w.around(ctx, OpVoid, func(ctx context.Context) error {
		st, err = w.c.Void(ctx, req)
		return err
	})
	return st, err
}

func (w *wrapped) trackingPlan(ctx context.Context, s Shipment, trackingNumber string) (plan []TrackingScan, err error) {
	err = w.around(ctx, OpTrackingPlan, func(ctx context.Context) error {
		plan, err = w.p.TrackingPlan(ctx, s, trackingNumber)
		return err
	})
	return plan, err
}

func (w *wrapped) track(ctx context.Context, trackingNumber string) (u TrackingUpdate, err error) {
	err = w.around(ctx, OpTrack, func(ctx context.Context) error {
		u, err = w.t.Track(ctx, trackingNumber)
		return err
	})
	return u, err
}

func (w *wrapped) trackMany(ctx context.Context, trackingNumbers []string) (rs []TrackResult, err error) {
	err = w.around(ctx, OpTrack, func(ctx context.Context) error {
		rs, err = w.b.TrackMany(ctx, trackingNumbers)
		return err
	})
	return rs, err
}

type wrappedPlanner struct{ *wrapped }

func (w *wrappedPlanner) TrackingPlan(ctx context.Context, s Shipment, tn string) ([]TrackingScan, error) {
	return w.trackingPlan(ctx, s, tn)
}

type wrappedTracker struct{ *wrapped }

func (w *wrappedTracker) Track(ctx context.Context, tn string) (TrackingUpdate, error) {
	return w.track(ctx, tn)
}

type wrappedBatch struct{ *wrapped }

func (w *wrappedBatch) Track(ctx context.Context, tn string) (TrackingUpdate, error) {
	return w.track(ctx, tn)
}

func (w *wrappedBatch) TrackMany(ctx context.Context, tns []string) ([]TrackResult, error) {
	return w.trackMany(ctx, tns)
}

func (w *wrappedBatch) MaxTrackBatch() int { return w.b.MaxTrackBatch() }

type wrappedPlannerTracker struct{ *wrapped }

func (w *wrappedPlannerTracker) TrackingPlan(ctx context.Context, s Shipment, tn string) ([]TrackingScan, error) {
	return w.trackingPlan(ctx, s, tn)
}

func (w *wrappedPlannerTracker) Track(ctx context.Context, tn string) (TrackingUpdate, error) {
	return w.track(ctx, tn)
}

type wrappedPlannerBatch struct{ *wrapped }

func (w *wrappedPlannerBatch) TrackingPlan(ctx context.Context, s Shipment, tn string) ([]TrackingScan, error) {
	return w.trackingPlan(ctx, s, tn)
}

func (w *wrappedPlannerBatch) Track(ctx context.Context, tn string) (TrackingUpdate, error) {
	return w.track(ctx, tn)
}

func (w *wrappedPlannerBatch) TrackMany(ctx context.Context, tns []string) ([]TrackResult, error) {
	return w.trackMany(ctx, tns)
}

func (w *wrappedPlannerBatch) MaxTrackBatch() int { return w.b.MaxTrackBatch() }
