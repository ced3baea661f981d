package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"github.com/shipd-dev/shipd/store"
)

// startLiveBinary runs the built binary's serve with the given carrier
// flags, its log (JSON lines) kept in the returned buffer.
func startLiveBinary(t *testing.T, bin, db, addr string, flags ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--db", db, "--addr", addr, "--job-poll-interval", "10ms"}, flags...)...)
	cmd.Env = append(os.Environ(), "SHIPD_WEBHOOK_KEY=")
	logs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = &syncBuffer{}, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitReady(t, addr)
	return cmd, logs
}

// killedPurchase is what a rescue test saw: a live label created, its
// purchase killed (SIGKILL) after the carrier sold it but before its
// answer, serve started again on the same database, the carrier's answers
// released, and the label purchased.
type killedPurchase struct {
	id, token, account string
	orphan             string // the tracking number the killed attempt bought
	label              struct{ Status, TrackingNumber, ErrorMessage string }
	logs               *syncBuffer // the restarted server's
	st                 *store.Store
}

// senderCurrency is the currency of a shop sending body: the euro in the
// euro area, where the European carriers price in it; else the dollar.
func senderCurrency(body map[string]any) string {
	from, _ := body["fromAddress"].(map[string]any)
	switch from["country"] {
	case "DE", "FR", "NL", "BE", "AT", "IT", "ES", "IE", "FI", "PT", "LU":
		return "EUR"
	}
	return "USD"
}

func killPurchase(t *testing.T, body map[string]any, sold func(id string) []string, hold, release func(), flags ...string) *killedPurchase {
	t.Helper()
	bin := shipdBinary(t)
	db := filepath.Join(t.TempDir(), "shipd.db")
	var acct struct{ ID string }
	cliOK(t, &acct, "accounts", "create", "--db", db, "--name", "Live", "--currency", senderCurrency(body))
	var tok struct{ Token string }
	cliOK(t, &tok, "tokens", "create", "--db", db, "--account", acct.ID, "--mode", "live",
		"--scopes", "read:shipments,write:shipments,read:webhooks")
	k := &killedPurchase{token: tok.Token, account: acct.ID}

	addr := freeAddr(t)
	first, _ := startLiveBinary(t, bin, db, addr, flags...)
	hold()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID, Status string }
	if res := call(t, "POST", "http://"+addr+"/api/v1/labels/create", tok.Token, string(raw), &created); res != http.StatusAccepted {
		t.Fatalf("create: %d %+v", res, created)
	}
	k.id = created.ID
	waitFor(t, "the carrier to sell the label", func() bool { return len(sold(k.id)) == 1 })
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	k.orphan = sold(k.id)[0]

	_, k.logs = startLiveBinary(t, bin, db, addr, flags...)
	release()
	waitFor(t, "the label to be purchased after the restart", func() bool {
		call(t, "GET", "http://"+addr+"/api/v1/labels/"+k.id, tok.Token, "", &k.label)
		return k.label.Status == "purchased" || k.label.Status == "failed"
	})
	if k.label.Status != "purchased" {
		t.Fatalf("after the restart the label is %+v", k.label)
	}
	var events struct {
		Data []struct{ Type string } `json:"data"`
	}
	call(t, "GET", "http://"+addr+"/api/v1/events?type=shipment.purchased", tok.Token, "", &events)
	if len(events.Data) != 1 {
		t.Errorf("shipment.purchased recorded %d times, want once", len(events.Data))
	}
	if k.st, err = store.Open(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k.st.Close() })
	return k
}

// audit is the purchase entries of the account's live audit log.
func (k *killedPurchase) audit(t *testing.T) []string {
	t.Helper()
	entries, _, err := k.st.ListAudit(context.Background(), k.account, "live", 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Action, "purchase.") {
			out = append(out, e.Actor+" "+e.Action+" "+e.Target)
		}
	}
	return out
}

// A live FedEx purchase killed with FedEx's answer in flight: the restarted
// server asks FedEx (Track by References) what it sold under the shipment's
// reference before buying. FedEx cannot give that label's document again,
// so it is voided and the label bought once more: FedEx keeps exactly one
// label billed, the shipment's, and the void is logged and audited.
func TestKilledLiveFedExPurchaseBillsOneLabel(t *testing.T) {
	t.Parallel()
	fake := fedexfake.New(t)
	sold := func(id string) []string {
		var tns []string
		for _, s := range fake.Sales(id) {
			tns = append(tns, s.TrackingNumber)
		}
		return tns
	}
	k := killPurchase(t, liveFedExBody(), sold, fake.HoldShips, fake.ReleaseShips,
		"--fedex-client-id", fedexfake.ClientID, "--fedex-client-secret", fedexfake.ClientSecret,
		"--fedex-account-number", fedexfake.AccountNumber, "--fedex-base-url", fake.URL())

	want := []fedexfake.Sale{{TrackingNumber: k.orphan, Cancelled: true}, {TrackingNumber: k.label.TrackingNumber}}
	if d := cmp.Diff(want, fake.Sales(k.id)); d != "" {
		t.Errorf("FedEx sales for %s (-want +got):\n%s", k.id, d)
	}
	if !strings.Contains(k.logs.String(), `"orphan_tracking_number":"`+k.orphan+`"`) {
		t.Errorf("the restarted server logged no void of %s:\n%s", k.orphan, k.logs.String())
	}
	if d := cmp.Diff([]string{"shipd purchase.orphan_voided " + k.id + " " + k.orphan}, k.audit(t)); d != "" {
		t.Errorf("audit log (-want +got):\n%s", d)
	}
	if rec, err := k.st.PurchaseAttempt(context.Background(), k.id); err != nil || rec.Attempts != 2 ||
		!strings.Contains(rec.Recovery, "voided label "+k.orphan) {
		t.Errorf("attempt record %+v, %v; want 2 attempts and the void", rec, err)
	}
}

// The same with UPS, whose Label Recovery gives the label again: the
// restarted server adopts the label the killed attempt bought, and UPS sold
// one label.
func TestKilledLiveUPSPurchaseAdoptsTheLabelSold(t *testing.T) {
	t.Parallel()
	fake := upsfake.New(t)
	sold := func(id string) []string {
		var tns []string
		for _, s := range fake.Sales(id) {
			tns = append(tns, s.TrackingNumber)
		}
		return tns
	}
	body := liveFedExBody()
	body["carrier"] = "UPS"
	k := killPurchase(t, body, sold, fake.HoldShips, fake.ReleaseShips,
		"--ups-client-id", upsfake.ClientID, "--ups-client-secret", upsfake.ClientSecret,
		"--ups-account-number", upsfake.AccountNumber, "--ups-base-url", fake.URL())

	if k.label.TrackingNumber != k.orphan {
		t.Errorf("the label has %s, want the one sold to the killed attempt, %s", k.label.TrackingNumber, k.orphan)
	}
	if d := cmp.Diff([]upsfake.Sale{{TrackingNumber: k.orphan}}, fake.Sales(k.id)); d != "" {
		t.Errorf("UPS sales for %s (-want +got):\n%s", k.id, d)
	}
	if !strings.Contains(k.logs.String(), `"tracking_number":"`+k.orphan+`"`) {
		t.Errorf("the restarted server logged no adoption of %s:\n%s", k.orphan, k.logs.String())
	}
	if d := cmp.Diff([]string{"shipd purchase.label_adopted " + k.id + " " + k.orphan}, k.audit(t)); d != "" {
		t.Errorf("audit log (-want +got):\n%s", d)
	}
}

// The same with DHL Express, which can neither give a label again nor
// cancel a shipment through its API: the restarted server finds the
// killed attempt's waybill by the shipment's reference (GET /tracking by
// shipmentReference), cannot void it and reports it (logged, audited
// purchase.orphan_not_voided: cancel it with DHL), then buys the label
// once more; DHL holds the two waybills, the second the shipment's.
func TestKilledLiveDHLExpressPurchaseReportsTheFirstWaybill(t *testing.T) {
	t.Parallel()
	fake := dhlexpressfake.New(t)
	sold := func(id string) []string {
		var tns []string
		for _, s := range fake.Sales(id) {
			tns = append(tns, s.Waybill)
		}
		return tns
	}
	body := labelBody()
	body["fromAddress"] = map[string]any{"name": "Anna Schmidt", "street1": "Friedrichstr. 123", "city": "Berlin", "zip": "10117", "country": "DE", "phone": "+49 30 1234567"}
	body["toAddress"] = map[string]any{"name": "Claire Martin", "street1": "9 Rue Simart", "city": "Paris", "zip": "75018", "country": "FR", "phone": "+33 1 23456789"}
	body["carrier"], body["service"] = "DHLExpress", "ExpressWorldwideEU"
	k := killPurchase(t, body, sold, fake.HoldShips, fake.ReleaseShips,
		"--dhlexpress-username", dhlexpressfake.Username, "--dhlexpress-password", dhlexpressfake.Password,
		"--dhlexpress-account-number", dhlexpressfake.AccountNumber, "--dhlexpress-base-url", fake.BaseURL())

	if d := cmp.Diff([]string{k.orphan, k.label.TrackingNumber}, sold(k.id)); d != "" || k.label.TrackingNumber == k.orphan {
		t.Errorf("DHL waybills for %s (-want +got):\n%s", k.id, d)
	}
	if !strings.Contains(k.logs.String(), `"orphan_tracking_number":"`+k.orphan+`"`) {
		t.Errorf("the restarted server logged no report of %s:\n%s", k.orphan, k.logs.String())
	}
	if d := cmp.Diff([]string{"shipd purchase.orphan_not_voided " + k.id + " " + k.orphan}, k.audit(t)); d != "" {
		t.Errorf("audit log (-want +got):\n%s", d)
	}
	if rec, err := k.st.PurchaseAttempt(context.Background(), k.id); err != nil || rec.Attempts != 2 ||
		!strings.Contains(rec.Recovery, "label "+k.orphan+" sold to an earlier attempt could not be voided") ||
		!strings.Contains(rec.Recovery, "DHL Express cannot cancel a shipment through its API") {
		t.Errorf("attempt record %+v, %v; want 2 attempts and the report", rec, err)
	}
}
