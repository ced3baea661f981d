package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers/verifier"
	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/addresses"
	"github.com/shipd-dev/shipd/shipping/batches"
	"github.com/shipd-dev/shipd/shipping/carrieraccounts"
	"github.com/shipd-dev/shipd/shipping/manifests"
	"github.com/shipd-dev/shipd/shipping/pickups"
	"github.com/shipd-dev/shipd/shipping/trackers"
	"github.com/shipd-dev/shipd/webhooks"
)

// apiError is an error answered with the contract's Error body.
type apiError struct {
	Status     int
	Body       gen.Error
	RetryAfter int // seconds; 0 sends no Retry-After
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Body.Code, e.Body.Error)
}

func newAPIError(status int, code, msg string) *apiError {
	return &apiError{Status: status, Body: gen.Error{Code: code, Error: msg}}
}

func (e *apiError) withField(field string) *apiError {
	e.Body.Field = &field
	return e
}

// problem maps an error from the domain to its status, code and body: the one
// table of the API's error codes. Handlers return domain errors as they are;
// an error this table does not know is a 500 that is logged but never echoed.
func problem(err error) (*apiError, bool) {
	var (
		ae         *apiError
		he         *echo.HTTPError
		input      *shipping.InputError
		batchItems *batches.BatchItemsError
		noMatch    *shipping.NoMatchingServiceError
		carriers   *shipping.CarriersError
		refund     *shipping.RefundConflictError
		badEvent   *webhooks.InvalidEventTypeError
		badFilter  *webhooks.UnknownEventTypeError
		fieldError *webhooks.FieldError
		noLabels   *batches.NoLabelsError
		noCreds    *carrieraccounts.MissingCredentialsError
		onManifest *manifests.AlreadyManifestedError
		notBought  *manifests.ManifestNotPurchasedError
		badSheet   *carrieraccounts.RateSheetError
	)
	switch {
	case errors.As(err, &ae):
		return ae, true
	case errors.As(err, &he):
		return fromHTTPError(he), true

	case errors.Is(err, accounts.ErrTokenInvalid):
		return newAPIError(http.StatusUnauthorized, "invalid_token", "the bearer token matches no token"), true
	case errors.Is(err, accounts.ErrTokenRevoked):
		return newAPIError(http.StatusUnauthorized, "token_revoked", "this token was revoked"), true
	case errors.Is(err, accounts.ErrTokenExpired):
		return newAPIError(http.StatusUnauthorized, "token_expired", "this token has expired"), true
	case errors.Is(err, accounts.ErrNotFound):
		return newAPIError(http.StatusNotFound, "not_found", "no such resource"), true
	case errors.Is(err, accounts.ErrWrongMode):
		return newAPIError(http.StatusForbidden, "wrong_mode", "this resource belongs to the other mode; a token cannot reach the other mode's data"), true
	case errors.Is(err, paging.ErrInvalidCursor):
		return newAPIError(http.StatusUnprocessableEntity, "invalid_field", "cursor is not a cursor of this list").withField("cursor"), true

	case errors.Is(err, idempotency.ErrCollision):
		return newAPIError(http.StatusConflict, "idempotency_key_collision",
			"this idempotencyKey was already used on this endpoint with a different request body; send a new key"), true
	case errors.Is(err, idempotency.ErrInProgress):
		e := newAPIError(http.StatusConflict, "idempotency_key_in_use", "a request with this idempotencyKey is still in progress; retry in a moment")
		e.RetryAfter = 1
		return e, true

	case errors.As(err, &noCreds):
		// One answer for every field left empty; field stays the first, as
		// when only one was ever named.
		e := newAPIError(http.StatusUnprocessableEntity, "missing_field", noCreds.Error()).withField(noCreds.Fields[0])
		fields := slices.Clone(noCreds.Fields)
		e.Body.Fields = &fields
		return e, true
	case errors.As(err, &input):
		return issuesError(input.Issues), true
	case errors.As(err, &batchItems):
		// A batch's item problems are always listed, even one: the client
		// finds the item by its path (shipments.17.toAddress.state).
		e := newAPIError(http.StatusUnprocessableEntity, "invalid_request", batchItems.Error()+"; nothing was stored; see issues")
		list := make([]gen.ValidationIssue, len(batchItems.Issues))
		for i, is := range batchItems.Issues {
			list[i] = gen.ValidationIssue{Path: is.Path, Message: is.Message}
		}
		e.Body.Issues = &list
		return e, true
	case errors.As(err, &noMatch):
		e := newAPIError(http.StatusUnprocessableEntity, "no_matching_service", noMatch.Error())
		avail := make([]gen.ServiceOption, len(noMatch.Available))
		for i, o := range noMatch.Available {
			avail[i] = gen.ServiceOption{Carrier: o.Carrier, Service: o.Service, ServiceCategory: gen.ServiceCategory(o.ServiceCategory)}
		}
		e.Body.AvailableServices = &avail
		return e, true
	case errors.Is(err, shipping.ErrNoRates):
		e := newAPIError(http.StatusUnprocessableEntity, "no_rates", err.Error())
		if errors.As(err, &carriers) { // left out for want of an exchange rate
			e.Body.CarrierErrors = carrierErrorViews(carriers.Failures)
		}
		return e, true
	case errors.Is(err, shipping.ErrCurrencyChanged):
		return newAPIError(http.StatusConflict, "currency_changed", err.Error()), true
	case errors.Is(err, shipping.ErrReturnNotPurchased):
		return newAPIError(http.StatusConflict, "not_purchased", err.Error()), true
	case errors.Is(err, manifests.ErrNothingToManifest):
		return newAPIError(http.StatusUnprocessableEntity, "nothing_to_manifest", err.Error()), true
	case errors.Is(err, manifests.ErrManifestNotSupported):
		return newAPIError(http.StatusUnprocessableEntity, "manifest_not_supported", err.Error()), true
	case errors.As(err, &noLabels):
		return newAPIError(http.StatusConflict, "batch_has_no_labels", noLabels.Error()), true
	case errors.As(err, &onManifest):
		return newAPIError(http.StatusConflict, "already_manifested", err.Error()), true
	case errors.As(err, &notBought):
		return newAPIError(http.StatusConflict, "not_purchased", err.Error()), true
	case errors.Is(err, shipping.ErrNoPaymentMethod):
		return newAPIError(http.StatusPaymentRequired, "no_payment_method", err.Error()), true
	case errors.Is(err, shipping.ErrPurchaseQueueFull):
		e := newAPIError(http.StatusServiceUnavailable, "purchase_queue_full", err.Error())
		e.RetryAfter = int(shipping.PurchaseQueueRetryAfter / time.Second)
		return e, true
	case errors.As(err, &carriers):
		var e *apiError
		switch {
		case errors.Is(err, shipping.ErrCarrierUnavailable):
			e = newAPIError(http.StatusServiceUnavailable, "carrier_unavailable", carriers.Error())
			e.RetryAfter = max(1, int((carriers.RetryAfter+time.Second-1)/time.Second))
		case errors.Is(err, shipping.ErrCarrierUnreachable):
			// No Retry-After: the server's network, not the carrier, is at
			// fault, and a client told to retry retries forever.
			e = newAPIError(http.StatusBadGateway, "carrier_unreachable", carriers.Error())
		case errors.Is(err, shipping.ErrCarrierRejected):
			e = newAPIError(http.StatusUnprocessableEntity, "carrier_rejected", carriers.Error())
		default:
			e = newAPIError(http.StatusBadGateway, "carrier_error", carriers.Error())
		}
		e.Body.CarrierErrors = carrierErrorViews(carriers.Failures)
		return e, true
	case errors.Is(err, shipping.ErrCarrierCredentialsInvalid):
		return newAPIError(http.StatusUnprocessableEntity, "carrier_credentials_invalid", "the carrier refused the credentials: "+err.Error()).withField("credentials"), true
	case errors.Is(err, shipping.ErrNoCarrierAccounts):
		return newAPIError(http.StatusUnprocessableEntity, "no_carrier_accounts", err.Error()), true
	case errors.As(err, &badSheet):
		e := newAPIError(http.StatusUnprocessableEntity, "invalid_rate_sheet", badSheet.Error())
		line := badSheet.Sheet.Line
		e.Body.Line = &line
		if col := badSheet.Sheet.Column; col > 0 {
			e.Body.Column = &col
		}
		return e, true
	case errors.Is(err, carrieraccounts.ErrNoRateSheet):
		return newAPIError(http.StatusNotFound, "no_rate_sheet", err.Error()), true
	case errors.Is(err, shipping.ErrCarrierNotConfigured):
		return newAPIError(http.StatusInternalServerError, "carrier_not_configured", err.Error()), true
	case errors.As(err, &refund):
		return newAPIError(http.StatusConflict, refund.Code, refund.Message), true
	case errors.Is(err, pickups.ErrPickupCancelled):
		return newAPIError(http.StatusConflict, "already_cancelled", err.Error()), true
	case errors.Is(err, pickups.ErrPickupRequesting), errors.Is(err, pickups.ErrPickupOutcomeUnknown):
		return newAPIError(http.StatusConflict, "ineligible_state", err.Error()), true
	case errors.Is(err, trackers.ErrTrackerOfShipment):
		return newAPIError(http.StatusConflict, "tracker_of_shipment", err.Error()), true
	case errors.Is(err, shipping.ErrLabelUnavailable):
		return newAPIError(http.StatusNotFound, "label_unavailable", err.Error()), true
	case errors.Is(err, addresses.ErrVerifierNotConfigured):
		return newAPIError(http.StatusInternalServerError, "verifier_not_configured", err.Error()), true
	case errors.Is(err, verifier.ErrUnavailable):
		e := newAPIError(http.StatusServiceUnavailable, "verifier_unavailable", "the address verifier is temporarily unavailable; retry in a minute")
		e.RetryAfter = 60
		return e, true
	case errors.Is(err, verifier.ErrFailed):
		return newAPIError(http.StatusBadGateway, "verifier_error", "the address verifier failed; retry"), true

	case errors.As(err, &badEvent):
		e := newAPIError(http.StatusUnprocessableEntity, "invalid_event_type", badEvent.Error())
		known := append([]string{"*"}, webhooks.EventTypes()...)
		e.Body.KnownEvents = &known
		return e, true
	case errors.As(err, &badFilter):
		// The contract leaves ?type= a string, so that a new event type is not
		// a change of the parameter; an unknown value is refused as the schema
		// refuses an unknown value of any other list filter.
		e := newAPIError(http.StatusUnprocessableEntity, "invalid_field", "type is not an event type; knownEvents lists them").withField("type")
		known := webhooks.EventTypes()
		e.Body.KnownEvents = &known
		return e, true
	case errors.As(err, &fieldError):
		return newAPIError(http.StatusUnprocessableEntity, "invalid_field", fieldError.Message).withField(fieldError.Field), true
	case errors.Is(err, trackers.ErrTrackerLimit):
		return newAPIError(http.StatusUnprocessableEntity, "tracker_limit", err.Error()), true
	case errors.Is(err, webhooks.ErrSubscriptionLimit):
		return newAPIError(http.StatusUnprocessableEntity, "subscription_limit", err.Error()), true
	case errors.Is(err, webhooks.ErrDuplicateEndpoint):
		return newAPIError(http.StatusConflict, "duplicate_endpoint", err.Error()), true
	case errors.Is(err, webhooks.ErrDeliveryInProgress):
		return newAPIError(http.StatusConflict, "delivery_in_progress", err.Error()), true
	}
	return nil, false
}

// issuesError shapes rule violations: one missing field is missing_field,
// one wrong field invalid_field, several are invalid_request with every issue.
func issuesError(issues []shipping.Issue) *apiError {
	vs := make([]validationIssue, len(issues))
	for i, is := range issues {
		vs[i] = validationIssue{path: is.Path, message: is.Message, missing: is.Missing}
	}
	return validationIssuesError(vs, 0)
}

// errorBody builds an Error body carrying the request's id.
func errorBody(ctx context.Context, code, msg string) gen.Error {
	e := gen.Error{Code: code, Error: msg}
	if id := requestIDFrom(ctx); id != "" {
		e.RequestId = &id
	}
	return e
}

// statusClientClosedRequest is the status logged for a request its client
// abandoned before the answer (nginx's convention); it is never sent.
const statusClientClosedRequest = 499

// writeError answers err as JSON: a domain error or *apiError as the table
// says, anything else as a 500 that is logged but never echoed.
func (s *Server) writeError(c echo.Context, err error) {
	if c.Response().Committed {
		return
	}
	if ctx := c.Request().Context(); errors.Is(ctx.Err(), context.Canceled) {
		// The client hung up: whatever failed on the way (a query or carrier
		// call cut short by the cancelled context), no one hears the answer.
		// Logged as nginx's 499 client-closed, not as a server error, so that
		// alerts on 5xx mean the server failed someone.
		c.Response().Status = statusClientClosedRequest
		s.log.LogAttrs(ctx, slog.LevelDebug, "client closed the request",
			slog.String("request_id", requestIDFrom(ctx)), slog.Any("error", err))
		return
	}
	ae, known := problem(err)
	if !known {
		s.log.ErrorContext(c.Request().Context(), "internal error", slog.String("request_id", requestIDFrom(c.Request().Context())), slog.Any("error", err))
		ae = newAPIError(http.StatusInternalServerError, "internal_error", "internal server error; it is safe to retry with the same idempotency key")
	}
	if s.metrics != nil && configurationCodes[ae.Body.Code] {
		s.metrics.configuration.WithLabelValues(ae.Body.Code).Inc()
	}
	body := ae.Body
	if id := requestIDFrom(c.Request().Context()); id != "" {
		body.RequestId = &id
	}
	if ae.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(ae.RetryAfter))
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(ae.Status)
		return
	}
	_ = c.JSON(ae.Status, body)
}

func fromHTTPError(he *echo.HTTPError) *apiError {
	switch he.Code {
	case http.StatusNotFound:
		return newAPIError(he.Code, "not_found", "no route matches this path")
	case http.StatusMethodNotAllowed:
		return newAPIError(he.Code, "method_not_allowed", "this path does not accept this method")
	case http.StatusRequestEntityTooLarge:
		return newAPIError(he.Code, "payload_too_large", "the request body exceeds the size this server accepts")
	case http.StatusUnauthorized:
		return newAPIError(he.Code, "missing_authorization", "the Authorization header is missing")
	}
	if he.Code >= 500 {
		return newAPIError(http.StatusInternalServerError, "internal_error", "internal server error")
	}
	if he.Code == http.StatusBadRequest {
		// The contract keeps 400 for invalid_json and token_in_query; a
		// request the generated binding cannot read is a 422 like any other
		// that breaks the contract (validation catches these first today).
		return newAPIError(http.StatusUnprocessableEntity, "invalid_request", fmt.Sprint(he.Message))
	}
	return newAPIError(he.Code, "invalid_request", fmt.Sprint(he.Message))
}
