// Package ui is shipd's settings UI: the pages a merchant's developer uses
// every day (API tokens, webhooks and their delivery log, events, shipments,
// trackers, the account), served by shipd itself under /settings/.
//
// It is server-rendered HTML (html/template) with plain forms doing post →
// redirect → get, one file per page, wired explicitly in routes. Templates,
// the stylesheet and the little JavaScript (Copy buttons, confirmation
// before Revoke, Delete and Refund) are embedded, so the binary is the whole
// UI. Every rule lives in the domain services (accounts, shipping,
// webhooks), which the pages call with the signed-in user's accounts.Caller,
// exactly as the API calls them with a token's.
//
// Around every page: security headers (a strict Content-Security-Policy with
// no inline script), Go's cross-origin protection refusing form posts from
// other sites, and sessions (session.go) whose id only the browser holds.
package ui

import (
	"crypto/rand"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/batches"
	"github.com/shipd-dev/shipd/shipping/carrieraccounts"
	"github.com/shipd-dev/shipd/shipping/customs"
	"github.com/shipd-dev/shipd/shipping/manifests"
	"github.com/shipd-dev/shipd/shipping/pickups"
	"github.com/shipd-dev/shipd/shipping/trackers"
	"github.com/shipd-dev/shipd/webhooks"
)

// Prefix is where the UI is served.
const Prefix = "/settings"

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config is what the UI needs; zero values get defaults.
type Config struct {
	Accounts *accounts.Service
	Shipping *shipping.Service
	// Manifests and the other feature services stand on Shipping.
	Manifests       *manifests.Service
	Customs         *customs.Service
	Batches         *batches.Service
	Trackers        *trackers.Service
	CarrierAccounts *carrieraccounts.Service
	Pickups         *pickups.Service
	Webhooks        *webhooks.Service
	Logger          *slog.Logger
	// Now is the clock of sign-in throttling; tests replace it.
	Now func() time.Time
	// PublicURL is where users reach shipd; an https URL makes the session
	// cookie Secure with the __Host- prefix even behind a TLS-terminating proxy.
	PublicURL string
	// SignInLimits throttles failed sign-ins; zero values get the defaults.
	SignInLimits ThrottleConfig
	// ClientIP reads a request's client address (the API's rule, with its
	// trusted proxies); nil: the TCP peer's. Forwarding headers from anyone
	// else are never believed: the sign-in throttle counts by address.
	ClientIP func(*http.Request) string
}

// UI serves the settings pages.
type UI struct {
	accounts        *accounts.Service
	shipping        *shipping.Service
	manifests       *manifests.Service
	customs         *customs.Service
	batches         *batches.Service
	trackers        *trackers.Service
	carrierAccounts *carrieraccounts.Service
	pickups         *pickups.Service
	webhooks        *webhooks.Service
	log             *slog.Logger
	now             func() time.Time
	// httpsPublic: the public URL is https, so cookies are Secure even when
	// TLS ends at a proxy in front of shipd.
	httpsPublic bool
	throttle    *throttle
	clientIP    func(*http.Request) string
	pages       pages
	handler     http.Handler
}

// New builds the UI's handler, serving everything under Prefix.
func New(cfg Config) (*UI, error) {
	if cfg.Accounts == nil || cfg.Shipping == nil || cfg.Manifests == nil || cfg.Customs == nil || cfg.Batches == nil || cfg.Trackers == nil || cfg.CarrierAccounts == nil || cfg.Pickups == nil || cfg.Webhooks == nil {
		return nil, errors.New("ui: Config.Accounts, Shipping and Webhooks are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	pages, err := loadPages()
	if err != nil {
		return nil, fmt.Errorf("ui templates: %w", err)
	}
	u := &UI{
		accounts: cfg.Accounts, shipping: cfg.Shipping, manifests: cfg.Manifests, customs: cfg.Customs, batches: cfg.Batches, trackers: cfg.Trackers, carrierAccounts: cfg.CarrierAccounts, pickups: cfg.Pickups, webhooks: cfg.Webhooks, log: cfg.Logger, now: cfg.Now,
		httpsPublic: strings.HasPrefix(strings.ToLower(cfg.PublicURL), "https://"),
		throttle:    newThrottle(cfg.SignInLimits, cfg.Now),
		clientIP:    cfg.ClientIP,
		pages:       pages,
	}
	if u.clientIP == nil {
		u.clientIP = peerIP
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	u.routes(mux, static)
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(u.crossOriginRefused))
	u.handler = u.securityHeaders(u.recoverPanics(cop.Handler(u.refuseUnstorableText(mux))))
	return u, nil
}

// routes is the whole UI: one line per page and form.
func (u *UI) routes(mux *http.ServeMux, static fs.FS) {
	mux.Handle("GET "+Prefix+"/static/", http.StripPrefix(Prefix+"/static/", staticFiles(static)))
	mux.HandleFunc(Prefix, func(w http.ResponseWriter, r *http.Request) { redirect(w, r, Prefix+"/") })
	mux.HandleFunc("GET "+Prefix+"/{$}", func(w http.ResponseWriter, r *http.Request) { redirect(w, r, Prefix+"/tokens") })

	mux.HandleFunc("GET "+Prefix+"/login", u.loginPage)
	mux.HandleFunc("POST "+Prefix+"/login", u.login)
	mux.HandleFunc("POST "+Prefix+"/logout", u.logout)
	mux.Handle("POST "+Prefix+"/mode", u.signedIn(u.switchMode))

	mux.Handle("GET "+Prefix+"/tokens", u.signedIn(u.tokensPage))
	mux.Handle("POST "+Prefix+"/tokens", u.signedIn(u.createToken))
	mux.Handle("POST "+Prefix+"/tokens/{id}/revoke", u.signedIn(u.revokeToken))

	mux.Handle("GET "+Prefix+"/webhooks", u.signedIn(u.webhooksPage))
	mux.Handle("POST "+Prefix+"/webhooks", u.signedIn(u.createWebhook))
	mux.Handle("GET "+Prefix+"/webhooks/{id}", u.signedIn(u.webhookPage))
	mux.Handle("POST "+Prefix+"/webhooks/{id}", u.signedIn(u.updateWebhook))
	mux.Handle("POST "+Prefix+"/webhooks/{id}/pause", u.signedIn(u.pauseWebhook))
	mux.Handle("POST "+Prefix+"/webhooks/{id}/resume", u.signedIn(u.resumeWebhook))
	mux.Handle("POST "+Prefix+"/webhooks/{id}/delete", u.signedIn(u.deleteWebhook))
	mux.Handle("POST "+Prefix+"/webhooks/{id}/test", u.signedIn(u.sendTest))
	mux.Handle("POST "+Prefix+"/webhooks/{id}/deliveries/{delivery}/retry", u.signedIn(u.retryDelivery))

	mux.Handle("GET "+Prefix+"/carrier-accounts", u.signedIn(u.carrierAccountsPage))
	mux.Handle("POST "+Prefix+"/carrier-accounts", u.signedIn(u.createCarrierAccount))
	mux.Handle("POST "+Prefix+"/carrier-accounts/{id}/test", u.signedIn(u.testCarrierAccount))
	mux.Handle("POST "+Prefix+"/carrier-accounts/{id}/disable", u.signedIn(u.disableCarrierAccount))
	mux.Handle("POST "+Prefix+"/carrier-accounts/{id}/enable", u.signedIn(u.enableCarrierAccount))
	mux.Handle("POST "+Prefix+"/carrier-accounts/{id}/delete", u.signedIn(u.deleteCarrierAccount))

	mux.Handle("GET "+Prefix+"/events", u.signedIn(u.eventsPage))

	mux.Handle("GET "+Prefix+"/shipments", u.signedIn(u.shipmentsPage))
	mux.Handle("GET "+Prefix+"/shipments/{id}", u.signedIn(u.shipmentPage))
	mux.Handle("GET "+Prefix+"/shipments/{id}/label.pdf", u.signedIn(u.labelDocument))
	mux.Handle("GET "+Prefix+"/shipments/{id}/customs.pdf", u.signedIn(u.customsDocument))
	mux.Handle("POST "+Prefix+"/shipments/{id}/refund", u.signedIn(u.refund))
	mux.Handle("POST "+Prefix+"/shipments/{id}/return", u.signedIn(u.createReturn))

	mux.Handle("GET "+Prefix+"/batches", u.signedIn(u.batchesPage))
	mux.Handle("GET "+Prefix+"/batches/{id}/labels.pdf", u.signedIn(u.batchLabels("pdf")))
	mux.Handle("GET "+Prefix+"/batches/{id}/labels.zpl", u.signedIn(u.batchLabels("zpl")))
	mux.Handle("GET "+Prefix+"/batches/{id}/customs.pdf", u.signedIn(u.batchCustoms))
	mux.Handle("GET "+Prefix+"/manifests", u.signedIn(u.manifestsPage))
	mux.Handle("POST "+Prefix+"/manifests", u.signedIn(u.createManifest))
	mux.Handle("GET "+Prefix+"/manifests/{id}/form.pdf", u.signedIn(u.manifestForm))
	mux.Handle("GET "+Prefix+"/trackers", u.signedIn(u.trackersPage))
	mux.Handle("GET "+Prefix+"/pickups", u.signedIn(u.pickupsPage))
	mux.Handle("POST "+Prefix+"/pickups", u.signedIn(u.schedulePickup))
	mux.Handle("POST "+Prefix+"/pickups/{id}/cancel", u.signedIn(u.cancelPickup))

	mux.Handle("GET "+Prefix+"/account", u.signedIn(u.accountPage))

	mux.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		u.renderError(w, r, nil, http.StatusNotFound, "There is no such page.")
	})
}

// ServeHTTP serves the UI.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) { u.handler.ServeHTTP(w, r) }

// contentSecurityPolicy allows only this origin's scripts, styles, images
// and frames: no inline script or handler can run, no other site can frame
// the pages, and forms post only here.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"object-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

// securityHeaders puts the security headers on every response of the UI,
// error pages and static files included. A handler may relax framing for
// itself (the label preview, framed by the shipment page).
func (u *UI) securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// recoverPanics answers a panic with the error page; the stack goes to the log.
func (u *UI) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				u.log.ErrorContext(r.Context(), "ui panic", slog.String("path", r.URL.Path),
					slog.String("panic", fmt.Sprint(v)), slog.String("stack", string(debug.Stack())))
				u.renderError(w, r, nil, http.StatusInternalServerError, "Something went wrong on our side. Try again.")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// crossOriginRefused answers a form posted from another site.
func (u *UI) crossOriginRefused(w http.ResponseWriter, r *http.Request) {
	u.renderError(w, r, nil, http.StatusForbidden,
		"This form was sent from another site, so it was refused. Open the settings page and try again.")
}

// staticFiles serves the embedded stylesheet and script; they change only
// with the binary, so browsers may keep them for an hour.
func staticFiles(static fs.FS) http.Handler {
	files := http.FileServerFS(static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}

// redirect sends the browser to path with a GET (303 after a POST).
func redirect(w http.ResponseWriter, r *http.Request, path string) {
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// formKey is the idempotency key of a form's submission: the token the form
// carried (so a double submit is one create), or a new one when it carried
// none or one that prefix would take past idempotency.MaxKeyLength.
func formKey(prefix, token string) string {
	if token == "" || len(prefix)+len(token) > idempotency.MaxKeyLength {
		token = rand.Text()
	}
	return token
}
