package ups

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

const opFindPickup = "find_pickup"

// pendingStatus is one PickupPendingStatusResponse.PendingStatus entry.
type pendingStatus struct {
	PickupType          string `json:"PickupType"`
	ServiceDate         string `json:"ServiceDate"`
	PRN                 string `json:"PRN"`
	PickupStatusMessage string `json:"PickupStatusMessage"`
	ReferenceNumber     string `json:"ReferenceNumber"`
}

// pickupCancelledStatus is PickupStatusMessage 007, "Cancelled".
const pickupCancelledStatus = "007"

// FindPickup asks UPS's Pickup Pending Status (GET /shipments/{version}/
// pickup/oncall, by the shipper account) for an on-call pickup created
// with req.Reference as its ReferenceNumber, as SchedulePickup sends it.
// UPS lists the pending pickups of today and tomorrow only (Pickup.yaml),
// so a pickup on a later day cannot be told from one never booked:
// carriers.ErrNoPickupLookup. A cancelled pickup (status 007) is not
// found. Any refusal is an error, never "none": a lost schedule is then
// not booked again on a guess.
func (c *Carrier) FindPickup(ctx context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, bool, error) {
	ref := truncate(strings.TrimSpace(req.Reference), 35)
	if ref == "" {
		return carriers.PickupConfirmation{}, false, fmt.Errorf("ups: a pickup without a reference: %w", carriers.ErrNoPickupLookup)
	}
	day := req.ReadyAt.Format(time.DateOnly)
	if tomorrow := c.cfg.Now().In(req.ReadyAt.Location()).AddDate(0, 0, 1).Format(time.DateOnly); day > tomorrow {
		return carriers.PickupConfirmation{}, false, fmt.Errorf("ups: the pickup is on %s, and UPS lists the pending pickups of today and tomorrow only: %w",
			day, carriers.ErrNoPickupLookup)
	}
	a, err := c.do(ctx, apiRequest{op: opFindPickup, method: http.MethodGet, path: "/api/shipments/" + pickupVersion + "/pickup/oncall",
		header: map[string]string{"AccountNumber": c.cfg.AccountNumber}})
	if err != nil {
		return carriers.PickupConfirmation{}, false, err
	}
	if !a.ok() {
		return carriers.PickupConfirmation{}, false, c.failure(opFindPickup, a)
	}
	var res struct {
		PickupPendingStatusResponse *struct {
			// PendingStatus is an array in Pickup.yaml; an object is read
			// as one entry too, as UPS's JSON answers elsewhere do.
			PendingStatus json.RawMessage `json:"PendingStatus"`
		} `json:"PickupPendingStatusResponse"`
	}
	if err := json.Unmarshal(a.body, &res); err != nil || res.PickupPendingStatusResponse == nil {
		return carriers.PickupConfirmation{}, false, malformed(opFindPickup, a.status, "pending status answer is not the documented JSON: %v", err)
	}
	var listed []pendingStatus
	if raw := bytes.TrimSpace(res.PickupPendingStatusResponse.PendingStatus); len(raw) > 0 && raw[0] == '{' {
		var one pendingStatus
		if err := json.Unmarshal(raw, &one); err != nil {
			return carriers.PickupConfirmation{}, false, malformed(opFindPickup, a.status, "pending status entry does not parse: %v", err)
		}
		listed = []pendingStatus{one}
	} else if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if err := json.Unmarshal(raw, &listed); err != nil {
			return carriers.PickupConfirmation{}, false, malformed(opFindPickup, a.status, "pending status entries do not parse: %v", err)
		}
	}
	for _, p := range listed {
		if strings.TrimSpace(p.ReferenceNumber) != ref || strings.TrimSpace(p.PRN) == "" ||
			strings.HasPrefix(strings.TrimSpace(p.PickupStatusMessage), pickupCancelledStatus) {
			continue
		}
		return carriers.PickupConfirmation{ConfirmationNumber: strings.TrimSpace(p.PRN)}, true, nil
	}
	return carriers.PickupConfirmation{}, false, nil
}
