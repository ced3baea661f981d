package fedexfake

import (
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// PathTrackAssociated is the Track API's track by associated shipments.
const PathTrackAssociated = "/track/v1/associatedshipments"

// OpTrackAssociated is its operation name (Requests, LastRequestBody).
const OpTrackAssociated = "track-associated"

// associatedRequest is Full_Schema_Multiple_Piece_Shipment.
type associatedRequest struct {
	IncludeDetailedScans     *bool              `json:"includeDetailedScans"`
	AssociatedType           string             `json:"associatedType"`
	MasterTrackingNumberInfo *trackingNumberRef `json:"masterTrackingNumberInfo"`
	PagingDetails            *struct {
		ResultsPerPage int    `json:"resultsPerPage"`
		PagingToken    string `json:"pagingToken"`
	} `json:"pagingDetails"`
}

// trackAssociated answers the child packages of a multi-piece shipment by
// its master (associatedType STANDARD_MPS): each is scanned as the master
// is (they travel together), under its own number. It does not move the
// shipment on: only tracking the master does.
func (s *Server) trackAssociated(w http.ResponseWriter, _ *http.Request, body []byte) {
	var req associatedRequest
	if err := decodeStrict(body, &req); err != nil {
		invalid(w, []string{"the request does not match the associated shipments schema: " + err.Error()})
		return
	}
	var p problems
	p.enum("associatedType", req.AssociatedType, []string{"OUTBOUND_LINK_TO_RETURN", "STANDARD_MPS", "GROUP_MPS"})
	if req.MasterTrackingNumberInfo == nil || req.MasterTrackingNumberInfo.TrackingNumberInfo == nil ||
		strings.TrimSpace(req.MasterTrackingNumberInfo.TrackingNumberInfo.TrackingNumber) == "" {
		p.add("masterTrackingNumberInfo.trackingNumberInfo.trackingNumber is required")
	}
	if len(p) > 0 {
		invalid(w, p)
		return
	}
	master := req.MasterTrackingNumberInfo.TrackingNumberInfo.TrackingNumber
	detailed := req.IncludeDetailedScans != nil && *req.IncludeDetailedScans
	var results []any
	ok := s.sales.With(master, func(sh *shipment) {
		if req.AssociatedType != "STANDARD_MPS" {
			return
		}
		for _, child := range sh.Pieces {
			if child == master {
				continue
			}
			res := sh.trackResult(detailed)
			res["trackingNumberInfo"] = map[string]any{"trackingNumber": child, "carrierCode": "FDXE",
				"trackingNumberUniqueId": "12029~" + child + "~FDEG"}
			res["additionalTrackingInfo"] = map[string]any{"hasAssociatedShipments": false}
			results = append(results, map[string]any{"trackingNumber": child, "trackResults": []any{res}})
		}
	})
	if !ok {
		writeError(w, http.StatusNotFound, CodeTrackingNotFound, "Tracking number cannot be found. Please correct the tracking number and try again.")
		return
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{
		"transactionId": newTransactionID(),
		"output":        map[string]any{"completeTrackResults": results, "alerts": []any{}},
	})
}
