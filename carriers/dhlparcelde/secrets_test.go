package dhlparcelde

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

const (
	leakKey      = "key-VERY-SECRET-dhl-api-key"
	leakPassword = "pw-VERY-SECRET-portal-password"
	leakSecret   = "sec-VERY-SECRET-api-secret"
	leakBilling  = "98765432100177"
	leakToken    = "tok-VERY-SECRET-ACCESS-TOKEN-42"
)

// echoServer is a hostile DHL: every answer repeats what it was sent (the
// API key, the Basic header, the bearer token, the token form with the
// password and the API secret) and the billing number, in every field
// shipd copies into an error.
func echoServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		var form []byte
		if r.Body != nil {
			form = make([]byte, 4096)
			n, _ := r.Body.Read(form)
			form = form[:n]
		}
		if r.URL.Path == tokenPath && !strings.Contains(string(form), "refuse-me") {
			_ = json.NewEncoder(w).Encode(map[string]any{"access_token": leakToken, "expires_in": 3600, "token_type": "Bearer"})
			return
		}
		echo := fmt.Sprintf("key=%s auth=%q form=%s billing=%s", r.Header.Get("dhl-api-key"), r.Header.Get("Authorization"), form, leakBilling)
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"status": map[string]any{"title": echo, "status": 400, "detail": echo},
			"items": []any{map[string]any{"shipmentNo": leakBilling, "sstatus": map[string]any{"title": echo, "status": 400, "detail": echo},
				"validationMessages": []any{map[string]string{"property": leakKey, "validationMessage": echo}}}},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func leaky(s string) []string {
	var found []string
	for _, secret := range []string{leakKey, leakPassword, leakSecret, leakBilling, leakToken,
		carriers.BasicCredentials(leakUser, leakPassword)} {
		if strings.Contains(s, secret) {
			found = append(found, secret)
		}
	}
	return found
}

const leakUser = "shop-user"

// Whatever DHL's answers repeat of the credentials never reaches an error
// or the log: the API key, the password and its Basic header, the API
// secret, the pickup token, the billing number.
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	srv := echoServer(t)
	var logs bytes.Buffer
	c, err := New(Config{APIKey: leakKey, Username: leakUser, Password: leakPassword, BillingNumber: leakBilling, APISecret: leakSecret,
		BaseURL: srv.URL, Now: testNow, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	readyAt := time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)
	calls := map[string]func() error{
		// Another secret, which the token endpoint refuses, echoing the
		// form: the password, the key and that secret.
		"credentials": func() error {
			c2, err := New(Config{APIKey: leakKey, Username: leakUser, Password: leakPassword, BillingNumber: leakBilling,
				APISecret: leakSecret + "-refuse-me", BaseURL: srv.URL, Now: testNow, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				return err
			}
			return c2.CheckCredentials(ctx)
		},
		"buy":    func() error { _, err := c.Buy(ctx, buyRequest(domesticShipment(), "Paket")); return err },
		"return": func() error { _, err := c.Buy(ctx, buyRequest(returnShipment(), "Retoure")); return err },
		"void": func() error {
			_, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: "00340434161094000001"})
			return err
		},
		"track": func() error { _, err := c.Track(ctx, "00340434161094000001"); return err },
		"manifest": func() error {
			_, err := c.Manifest(ctx, carriers.ManifestRequest{Labels: []carriers.ManifestLabel{{TrackingNumber: "00340434161094000001"}}})
			return err
		},
		"pickup": func() error {
			_, err := c.SchedulePickup(ctx, carriers.PickupRequest{Address: bonn(), ReadyAt: readyAt, CloseAt: readyAt.Add(time.Hour), PackageCount: 1})
			return err
		},
		"cancel pickup": func() error {
			return c.CancelPickup(ctx, carriers.PickupCancelRequest{ConfirmationNumber: "0123456789abcdef0123456789abcdef"})
		},
	}
	for name, call := range calls {
		err := call()
		if err == nil {
			t.Errorf("%s: no error from a server that refuses everything", name)
			continue
		}
		t.Logf("%s: %v", name, err)
		if found := leaky(err.Error()); len(found) > 0 {
			t.Errorf("%s: the error %q repeats %v", name, err, found)
		}
		if !strings.Contains(err.Error(), carriers.Redacted) {
			t.Errorf("%s: the error %q shows no redaction: was the echo read at all?", name, err)
		}
	}
	if found := leaky(logs.String()); len(found) > 0 {
		t.Errorf("the log repeats %v:\n%s", found, logs.String())
	}
}

// A Config or a Carrier printed any way shows no secret.
func TestConfigNeverPrintsSecrets(t *testing.T) {
	t.Parallel()
	cfg := Config{APIKey: leakKey, Username: leakUser, Password: leakPassword, BillingNumber: leakBilling, APISecret: leakSecret}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "cfg", cfg)
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprint(c), fmt.Sprintf("%#v", c), logs.String()} {
		if found := leaky(s); len(found) > 0 {
			t.Errorf("%q shows %v", s, found)
		}
		if !strings.Contains(s, leakUser) {
			t.Errorf("%q does not show the user, which is no secret", s)
		}
	}
}
