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

	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
	"github.com/shipd-dev/shipd/store"
)

// startLiveFedExBinary runs the built binary's serve with live FedEx at the
// fake, its log (JSON lines) kept in the returned buffer.
func startLiveFedExBinary(t *testing.T, bin, db, addr string, fake *fedexfake.Server) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--db", db, "--addr", addr, "--job-poll-interval", "10ms",
		"--fedex-client-id", fedexfake.ClientID, "--fedex-client-secret", fedexfake.ClientSecret,
		"--fedex-account-number", fedexfake.AccountNumber, "--fedex-base-url", fake.URL())
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

// TestKilledLivePurchaseBuysOneLabel kills serve (SIGKILL) while FedEx holds
// the answer to a live purchase it has already sold, and starts serve again
// on the same database: the rescued purchase asks FedEx what it sold under
// the shipment's reference before buying. FedEx cannot give that label's
// document again, so it is voided and the label bought once more: FedEx
// keeps exactly one label billed, the shipment's, and the void is logged
// and in the account's audit log.
func TestKilledLivePurchaseBuysOneLabel(t *testing.T) {
	t.Parallel()
	bin := shipdBinary(t)
	fake := fedexfake.New(t)
	db := filepath.Join(t.TempDir(), "shipd.db")
	var acct struct{ ID string }
	cliOK(t, &acct, "accounts", "create", "--db", db, "--name", "Live")
	var tok struct{ Token string }
	cliOK(t, &tok, "tokens", "create", "--db", db, "--account", acct.ID, "--mode", "live",
		"--scopes", "read:shipments,write:shipments,read:webhooks")

	addr := freeAddr(t)
	first, _ := startLiveFedExBinary(t, bin, db, addr, fake)
	fake.HoldShips()
	body, err := json.Marshal(liveFedExBody())
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID, Status string }
	if res := call(t, "POST", "http://"+addr+"/api/v1/labels/create", tok.Token, string(body), &created); res != http.StatusAccepted {
		t.Fatalf("create: %d %+v", res, created)
	}
	waitFor(t, "FedEx to sell the label", func() bool { return len(fake.Sales(created.ID)) == 1 })
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	orphan := fake.Sales(created.ID)[0].TrackingNumber

	_, logs := startLiveFedExBinary(t, bin, db, addr, fake)
	fake.ReleaseShips()
	var got struct{ Status, TrackingNumber, ErrorMessage string }
	waitFor(t, "the label to be purchased after the restart", func() bool {
		call(t, "GET", "http://"+addr+"/api/v1/labels/"+created.ID, tok.Token, "", &got)
		return got.Status == "purchased" || got.Status == "failed"
	})
	if got.Status != "purchased" {
		t.Fatalf("after the restart the label is %+v", got)
	}
	want := []fedexfake.Sale{{TrackingNumber: orphan, Cancelled: true}, {TrackingNumber: got.TrackingNumber}}
	if d := cmp.Diff(want, fake.Sales(created.ID)); d != "" {
		t.Errorf("FedEx sales for %s (-want +got):\n%s", created.ID, d)
	}
	if !strings.Contains(logs.String(), `"orphan_tracking_number":"`+orphan+`"`) {
		t.Errorf("the restarted server logged no void of %s:\n%s", orphan, logs.String())
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if rec, err := st.PurchaseAttempt(context.Background(), created.ID); err != nil || rec.Attempts != 2 || !strings.Contains(rec.Recovery, "voided label "+orphan) {
		t.Errorf("attempt record %+v, %v (FedEx asked by reference %d times)", rec, err, fake.Requests(fedexfake.OpTrackReference))
	}
	entries, _, err := st.ListAudit(context.Background(), acct.ID, "live", 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	var audit []string
	for _, e := range entries {
		if strings.HasPrefix(e.Action, "purchase.") {
			audit = append(audit, e.Action+" "+e.Target)
		}
	}
	if d := cmp.Diff([]string{"purchase.orphan_voided " + created.ID + " " + orphan}, audit); d != "" {
		t.Errorf("audit log (-want +got):\n%s", d)
	}
	var events struct {
		Data []struct{ Type string } `json:"data"`
	}
	call(t, "GET", "http://"+addr+"/api/v1/events?type=shipment.purchased", tok.Token, "", &events)
	if len(events.Data) != 1 {
		t.Errorf("shipment.purchased recorded %d times, want once", len(events.Data))
	}
}
