package app

import "testing"

// On SQLite there is no failover (nil): a Drain whose grace ran out still
// asks it which jobs it cut off, and must get none rather than a panic (a
// CI run of TestWebhookDeliveryInFlightSurvivesRestart found it).
func TestNoFailoverCutsOffNothing(t *testing.T) {
	t.Parallel()
	var f *failover
	if ids := f.runningIDs(); ids != nil {
		t.Errorf("runningIDs = %v, want none", ids)
	}
	if n, err := f.handBack(t.Context(), nil); n != 0 || err != nil {
		t.Errorf("handBack = %d, %v", n, err)
	}
}
