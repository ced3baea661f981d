package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
	"github.com/shipd-dev/shipd/store"
)

// killedManifest is what a manifest rescue saw: a live label bought, a
// manifest of it whose carrier call was killed (SIGKILL) after the carrier
// made the form and before its answer, serve started again, the answers
// released, and the manifest finished.
type killedManifest struct {
	trackingNumber string
	manifest       struct {
		ID, Status   string
		FormNumber   *string
		ErrorMessage *string
		ShipmentIDs  []string
	}
	form  []byte // form.pdf
	audit []string
}

func killManifest(t *testing.T, carrier string, body map[string]any, made func(trackingNumber string) bool, hold, release func(), flags ...string) *killedManifest {
	t.Helper()
	bin := shipdBinary(t)
	db := filepath.Join(t.TempDir(), "shipd.db")
	var acct struct{ ID string }
	cliOK(t, &acct, "accounts", "create", "--db", db, "--name", "Live")
	var tok struct{ Token string }
	cliOK(t, &tok, "tokens", "create", "--db", db, "--account", acct.ID, "--mode", "live",
		"--scopes", "read:shipments,write:shipments")
	addr := freeAddr(t)
	api := "http://" + addr + "/api/v1"
	first, _ := startLiveBinary(t, bin, db, addr, flags...)

	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	var label struct{ ID, Status, TrackingNumber, ErrorMessage string }
	if st := call(t, "POST", api+"/labels/create", tok.Token, string(raw), &label); st != http.StatusAccepted {
		t.Fatalf("create: %d %+v", st, label)
	}
	waitFor(t, "the label to be purchased", func() bool {
		call(t, "GET", api+"/labels/"+label.ID, tok.Token, "", &label)
		return label.Status == "purchased" || label.Status == "failed"
	})
	if label.Status != "purchased" {
		t.Fatalf("label: %+v", label)
	}
	k := &killedManifest{trackingNumber: label.TrackingNumber}
	hold()
	if st := call(t, "POST", api+"/manifests", tok.Token, `{"carrier":"`+carrier+`"}`, &k.manifest); st != http.StatusAccepted {
		t.Fatalf("manifest: %d %+v", st, k.manifest)
	}
	waitFor(t, "the carrier to make the form", func() bool { return made(label.TrackingNumber) })
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()

	startLiveBinary(t, bin, db, addr, flags...)
	release()
	waitFor(t, "the manifest to finish after the restart", func() bool {
		call(t, "GET", api+"/manifests/"+k.manifest.ID, tok.Token, "", &k.manifest)
		return k.manifest.Status != "creating"
	})
	if k.manifest.Status != "created" || k.manifest.FormNumber == nil {
		t.Fatalf("after the restart the manifest is %s (%s), want created", k.manifest.Status, deref(k.manifest.ErrorMessage))
	}
	if d := cmp.Diff([]string{label.ID}, k.manifest.ShipmentIDs); d != "" {
		t.Errorf("the manifest's labels (-want +got):\n%s", d)
	}
	req, _ := http.NewRequest("GET", api+"/manifests/"+k.manifest.ID+"/form.pdf", nil)
	req.Header.Set("Authorization", "Bearer "+tok.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(res.Body)
	if res.StatusCode != http.StatusOK || !bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")) {
		t.Fatalf("form.pdf: %d %.200q", res.StatusCode, buf.Bytes())
	}
	k.form = buf.Bytes()
	var lbl struct{ ManifestID *string }
	call(t, "GET", api+"/labels/"+label.ID, tok.Token, "", &lbl)
	if lbl.ManifestID == nil || *lbl.ManifestID != k.manifest.ID {
		t.Errorf("the label's manifestId is %v, want %s", lbl.ManifestID, k.manifest.ID)
	}

	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	entries, _, err := st.ListAudit(context.Background(), acct.ID, "live", 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Action, "manifest.") {
			k.audit = append(k.audit, e.Actor+" "+e.Action+" "+e.Target)
		}
	}
	return k
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// A live USPS manifest killed while USPS made the SCAN form: the restarted
// job's request is refused, the label "already on SCAN form N", and the
// manifest takes form N (USPS has no GET of a form: the number is in its
// refusal) with the form drawn by shipd, instead of failing and freeing a
// label that no manifest could take again. USPS made one form.
func TestKilledLiveUSPSManifestKeepsTheForm(t *testing.T) {
	t.Parallel()
	fake := uspsfake.New(t)
	body := liveFedExBody()
	body["carrier"], body["service"] = "USPS", "Priority"
	k := killManifest(t, "USPS", body, func(tn string) bool { return fake.SCANForm(tn) != "" }, fake.HoldSCANForms, fake.ReleaseSCANForms,
		"--usps-client-id", uspsfake.ClientID, "--usps-client-secret", uspsfake.ClientSecret, "--usps-account-number", uspsfake.AccountNumber,
		"--usps-crid", uspsfake.CRID, "--usps-mid", uspsfake.MID, "--usps-base-url", fake.URL())
	form := fake.SCANForm(k.trackingNumber)
	if *k.manifest.FormNumber != form {
		t.Errorf("the manifest's form is %s, want USPS's %s", *k.manifest.FormNumber, form)
	}
	if !bytes.Contains(k.form, []byte(form)) || !bytes.Contains(k.form, []byte(k.trackingNumber)) {
		t.Errorf("form.pdf names neither the form %s nor the label %s", form, k.trackingNumber)
	}
	if n := fake.Requests(uspsfake.OpSCANForm); n != 2 {
		t.Errorf("%d SCAN form requests, want the killed one and the refused retry", n)
	}
	if d := cmp.Diff([]string{"shipd manifest.form_recovered " + k.manifest.ID + " " + form}, k.audit); d != "" {
		t.Errorf("audit log (-want +got):\n%s", d)
	}
}

// The same with FedEx, whose Ground close already happened: the restarted
// job's close finds nothing to close, and the manifest takes the close's
// documents, reprinted by the label's tracking number.
func TestKilledLiveFedExManifestKeepsTheClose(t *testing.T) {
	t.Parallel()
	fake := fedexfake.New(t)
	k := killManifest(t, "FedEx", liveFedExBody(), fake.Closed, fake.HoldCloses, fake.ReleaseCloses,
		"--fedex-client-id", fedexfake.ClientID, "--fedex-client-secret", fedexfake.ClientSecret,
		"--fedex-account-number", fedexfake.AccountNumber, "--fedex-base-url", fake.URL())
	if !bytes.Contains(k.form, []byte(k.trackingNumber)) {
		t.Errorf("form.pdf does not list the label %s", k.trackingNumber)
	}
	if n := fake.Requests(fedexfake.OpEndOfDay); n != 3 {
		t.Errorf("%d end of day requests, want the killed close, the refused one and the reprint", n)
	}
	if d := cmp.Diff([]string{"shipd manifest.form_recovered " + k.manifest.ID + " " + *k.manifest.FormNumber}, k.audit); d != "" {
		t.Errorf("audit log (-want +got):\n%s", d)
	}
}
