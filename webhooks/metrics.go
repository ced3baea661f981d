package webhooks

import (
	"context"
	"time"
)

// Observer is told about delivery attempts, for metrics and traces. The job
// client's middleware puts one in the context a delivery job runs with
// (ContextWithObserver); without one nothing is observed.
type Observer interface {
	// AttemptStarted is called before an attempt's request is sent; the
	// context it returns is the request's (a trace span), and done is called
	// with the receiver's status code (0 when none came) and whether the
	// answer was a 2xx.
	AttemptStarted(ctx context.Context, eventType string, auto int) (_ context.Context, done func(status int, delivered bool))
	// AttemptRecorded is called once an attempt's outcome is committed:
	// outcome is one of the AttemptOutcome values, auto the automatic
	// attempt's number (0: a manual attempt), sinceEvent the time from the
	// event to the receiver's 2xx (delivered only).
	AttemptRecorded(outcome string, auto int, sinceEvent time.Duration)
}

// What an attempt came to, as Observer.AttemptRecorded reports it.
const (
	// AttemptOutcomeDelivered: the receiver answered 2xx.
	AttemptOutcomeDelivered = "delivered"
	// AttemptOutcomeRetrying: the attempt failed and an automatic retry is queued.
	AttemptOutcomeRetrying = "retrying"
	// AttemptOutcomeFailed: the attempt failed and nothing automatic follows it.
	AttemptOutcomeFailed = "failed"
	// AttemptOutcomeDropped: nothing was sent (the subscription was paused
	// or deleted, or its secret cannot be decrypted).
	AttemptOutcomeDropped = "dropped"
)

type observerKey struct{}

// ContextWithObserver returns ctx carrying o, for the delivery jobs run with it.
func ContextWithObserver(ctx context.Context, o Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

func observerFrom(ctx context.Context) Observer {
	if o, ok := ctx.Value(observerKey{}).(Observer); ok && o != nil {
		return o
	}
	return noObserver{}
}

type noObserver struct{}

func (noObserver) AttemptStarted(ctx context.Context, _ string, _ int) (context.Context, func(int, bool)) {
	return ctx, func(int, bool) {}
}

func (noObserver) AttemptRecorded(string, int, time.Duration) {}

// attemptOutcomeOf names what a recorded attempt came to.
func attemptOutcomeOf(out attemptOutcome, res sendResult, t transition) string {
	switch {
	case !out.Sent:
		return AttemptOutcomeDropped
	case res.delivered:
		return AttemptOutcomeDelivered
	case t.ScheduleAuto > 0:
		return AttemptOutcomeRetrying
	default:
		return AttemptOutcomeFailed
	}
}
