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
// Carrier (Planner, Tracker) the result offers too, so a purchase still
// finds the tracking it needs.
func Instrument(c Carrier, observe Observe) Carrier {
	if observe == nil || c == nil {
		return c
	}
	base := observed{c: c, name: c.Name(), observe: observe}
	p, planner := c.(Planner)
	t, tracker := c.(Tracker)
	switch {
	case planner && tracker:
		return &observedPlannerTracker{observedPlanner{base, p}, observedTracker{base, t}}
	case planner:
		return &observedPlanner{base, p}
	case tracker:
		return &observedTracker{base, t}
	default:
		return &base
	}
}

// Instrument returns a registry of the same carriers, each observed (see Instrument).
func (r *Registry) Instrument(observe Observe) *Registry {
	wrap := func(cs []Carrier) []Carrier {
		out := make([]Carrier, len(cs))
		for i, c := range cs {
			out[i] = Instrument(c, observe)
		}
		return out
	}
	return &Registry{test: wrap(r.test), live: wrap(r.live)}
}

type observed struct {
	c       Carrier
	name    string
	observe Observe
}

func (o *observed) Name() string { return o.name }

func (o *observed) Rates(ctx context.Context, s Shipment) ([]Rate, error) {
	ctx, done := o.observe(ctx, o.name, OpRates)
	rates, err := o.c.Rates(ctx, s)
	done(err)
	return rates, err
}

func (o *observed) Buy(ctx context.Context, req BuyRequest) (Label, error) {
	ctx, done := o.observe(ctx, o.name, OpBuy)
	l, err := o.c.Buy(ctx, req)
	done(err)
	return l, err
}

func (o *observed) Void(ctx context.Context, req VoidRequest) (VoidStatus, error) {
	ctx, done := o.observe(ctx, o.name, OpVoid)
	st, err := o.c.Void(ctx, req)
	done(err)
	return st, err
}

type observedPlanner struct {
	observed
	p Planner
}

func (o *observedPlanner) TrackingPlan(ctx context.Context, s Shipment, trackingNumber string) ([]TrackingScan, error) {
	ctx, done := o.observe(ctx, o.name, OpTrackingPlan)
	plan, err := o.p.TrackingPlan(ctx, s, trackingNumber)
	done(err)
	return plan, err
}

type observedTracker struct {
	observed
	t Tracker
}

func (o *observedTracker) Track(ctx context.Context, trackingNumber string) (TrackingUpdate, error) {
	ctx, done := o.observe(ctx, o.name, OpTrack)
	u, err := o.t.Track(ctx, trackingNumber)
	done(err)
	return u, err
}

type observedPlannerTracker struct {
	observedPlanner
	observedTracker
}

// Name, Rates, Buy and Void are reached through both embedded values; these
// pick one.

func (o *observedPlannerTracker) Name() string { return o.observedPlanner.Name() }

func (o *observedPlannerTracker) Rates(ctx context.Context, s Shipment) ([]Rate, error) {
	return o.observedPlanner.Rates(ctx, s)
}

func (o *observedPlannerTracker) Buy(ctx context.Context, req BuyRequest) (Label, error) {
	return o.observedPlanner.Buy(ctx, req)
}

func (o *observedPlannerTracker) Void(ctx context.Context, req VoidRequest) (VoidStatus, error) {
	return o.observedPlanner.Void(ctx, req)
}
