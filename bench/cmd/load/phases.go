package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

const api = "/api/v1"

// scalePhase measures GET /labels (a page of 25), a page deep in the list
// (cursor of a random seeded shipment) and GET /labels/{id} of random seeded
// shipments, each for c.scaleDuration at c.scaleConns connections.
func scalePhase(ctx context.Context, c config, srv *deployment, db *seeded, out *scaleResult) error {
	tok := db.Accounts["scale"].Token
	lists := srv.requests("GET", api+"/labels", tok, nil)
	status, body, err := fetch(srv.addr(), lists[0])
	if err != nil || status != http.StatusOK {
		return fmt.Errorf("GET /labels: %d %v %s", status, err, truncate(body, 300))
	}
	var page struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &page); err != nil || len(page.Data) != 25 {
		return fmt.Errorf("GET /labels: want a page of 25, got %d (%v)", len(page.Data), err)
	}
	rngs := make([]*rand.Rand, max(c.scaleConns, 1))
	for i := range rngs {
		rngs[i] = rand.New(rand.NewPCG(uint64(i), 7))
	}
	pick := func(w int) string { return db.SampleIDs[rngs[w].IntN(len(db.SampleIDs))] }

	wait := srv.profile(c.profileDir, fmt.Sprintf("scale-%d-list", db.Rows), c.warm+c.scaleDuration)
	r, err := srv.closedLoop(c.scaleConns, c.warm, c.scaleDuration, http.StatusOK,
		func(n, w, i int) []byte { return lists[n] }, nil)
	wait()
	if err != nil {
		return err
	}
	out.List = statOf(r)

	wait = srv.profile(c.profileDir, fmt.Sprintf("scale-%d-detail", db.Rows), c.warm+c.scaleDuration)
	r, err = srv.closedLoop(c.scaleConns, c.warm, c.scaleDuration, http.StatusOK,
		func(n, w, i int) []byte { return request("GET", srv.nodes[n].addr, api+"/labels/"+pick(w), tok, nil) }, nil)
	wait()
	if err != nil {
		return err
	}
	out.Detail = statOf(r)

	r, err = srv.closedLoop(c.scaleConns, c.warm, c.scaleDuration, http.StatusOK,
		func(n, w, i int) []byte {
			cursor := base64.RawURLEncoding.EncodeToString([]byte("v1:" + pick(w)))
			return request("GET", srv.nodes[n].addr, api+"/labels?cursor="+cursor, tok, nil)
		}, nil)
	if err != nil {
		return err
	}
	out.DeepPage = statOf(r)
	return ctx.Err()
}

// fetch sends one request on a fresh connection.
func fetch(addr string, req []byte) (int, []byte, error) {
	cn, err := dial(addr)
	if err != nil {
		return 0, nil, err
	}
	defer cn.Close()
	status, body, err := cn.do(req)
	return status, bytes.Clone(body), err
}

// readRounds is how many turns each server of the read path takes.
const readRounds = 2

// readPhase runs GET /labels/{id} of one shipment (purchased, with two
// tracking events) against the baseline serving shipd's exact response
// bytes, then against shipd, at c.readConns connections each. With baseline
// set (the PostgreSQL runs), only shipd runs and its ratio is to that figure,
// the baseline measured beside SQLite.
func readPhase(ctx context.Context, c config, srv *deployment, db *seeded, out *readResult, baseline *stat) error {
	tok := db.Accounts["scale"].Token
	id := db.SampleIDs[len(db.SampleIDs)/2]
	path := api + "/labels/" + id
	hreq, _ := http.NewRequest("GET", "http://"+srv.addr()+path, nil)
	hreq.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(hreq)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %d %v", path, res.StatusCode, err)
	}
	out.ResponseBytes = len(body)

	var req []byte // the baseline's
	addr := ""
	if baseline == nil {
		var stop func()
		addr, stop, err = startBaseline(c, filepath.Join(srv.dir, "baseline-body.json"), body, res.Header.Get("Content-Type"))
		if err != nil {
			return err
		}
		defer stop()
		req = request("GET", addr, path, tok, nil)
		status, got, err := fetch(addr, req)
		if err != nil || status != http.StatusOK || !bytes.Equal(got, body) {
			return fmt.Errorf("baseline does not answer shipd's bytes: %d %v", status, err)
		}
	}
	// The two servers take turns, readRounds times each, so a drift of the
	// machine (another tenant, thermal) weighs on both alike.
	shipdReqs := srv.requests("GET", path, tok, nil)
	var base, ours loadResult
	slice := c.readDuration / readRounds
	for round := range readRounds {
		if baseline == nil {
			r, err := closedLoop(addr, c.readConns, c.warm, slice, http.StatusOK, func(w, i int) []byte { return req }, nil)
			if err != nil {
				return err
			}
			base = base.merge(r)
		}
		wait := func() {}
		if round == 0 {
			wait = srv.profile(c.profileDir, "read", c.warm+slice)
		}
		r, err := srv.closedLoop(c.readConns, c.warm, slice, http.StatusOK, func(n, w, i int) []byte { return shipdReqs[n] }, nil)
		wait()
		if err != nil {
			return err
		}
		ours = ours.merge(r)
	}
	if baseline == nil {
		out.Baseline = statOf(base)
	} else {
		out.Baseline = *baseline
	}
	out.Shipd = statOf(ours)
	if out.Baseline.PerSec > 0 {
		out.Ratio = out.Shipd.PerSec / out.Baseline.PerSec
	}
	return ctx.Err()
}

// quickQuotePhase runs POST /labels/quote of a quick quote (the postal
// codes of both ends and a parcel, as a checkout page sends it before the
// street is known) at c.quickConns connections for c.quickDuration,
// counting the 200s: every sandbox carrier prices it, nothing is stored.
// The answer is checked once: rates, each with its missingFields.
func quickQuotePhase(ctx context.Context, c config, srv *deployment, db *seeded, out *quickQuoteResult) error {
	tok := db.Accounts["scale"].Token
	reqs := srv.requests("POST", api+"/labels/quote", tok, quickQuoteBody())
	status, body, err := fetch(srv.addr(), reqs[0])
	if err != nil || status != http.StatusOK {
		return fmt.Errorf("POST /labels/quote: %d %v %s", status, err, truncate(body, 300))
	}
	var q struct {
		Rates []struct {
			MissingFields *[]string `json:"missingFields"`
		} `json:"rates"`
	}
	if err := json.Unmarshal(body, &q); err != nil || len(q.Rates) == 0 || q.Rates[0].MissingFields == nil || len(*q.Rates[0].MissingFields) == 0 {
		return fmt.Errorf("POST /labels/quote: want rates with missingFields, got %s (%v)", truncate(body, 300), err)
	}
	wait := srv.profile(c.profileDir, "quickquote", c.warm+c.quickDuration)
	r, err := srv.closedLoop(c.quickConns, c.warm, c.quickDuration, http.StatusOK, func(n, w, i int) []byte { return reqs[n] }, nil)
	wait()
	if err != nil {
		return err
	}
	out.Shipd = statOf(r)
	return ctx.Err()
}

// startBaseline starts the baseline serving body (written to bodyFile) and
// returns its address.
func startBaseline(c config, bodyFile string, body []byte, contentType string) (addr string, stop func(), err error) {
	if err := os.WriteFile(bodyFile, body, 0o644); err != nil {
		return "", nil, err
	}
	if addr, err = freeAddr(); err != nil {
		return "", nil, err
	}
	cmd := exec.Command(c.baseline, "-addr", addr, "-body", bodyFile, "-content-type", contentType)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start %s: %w", c.baseline, err)
	}
	stop = func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening") {
		stop()
		return "", nil, fmt.Errorf("baseline did not start: %q %v", line, err)
	}
	return addr, stop, nil
}

// writePhase sends POST /labels/create at c.writeConns connections and
// counts the 202s; then it waits for every purchase to finish and measures
// how much the database grew per shipment (into bytesPerShipment).
func writePhase(ctx context.Context, c config, srv *deployment, db *seeded, out *writeResult, bytesPerShipment *float64) error {
	acct := db.Accounts["write"]
	before, err := srv.usedBytes(ctx)
	if err != nil {
		return err
	}
	reqs := srv.requests("POST", api+"/labels/create", acct.Token, createBody())
	start := time.Now()
	wait := srv.profile(c.profileDir, "write", c.warm+c.writeDuration)
	r, err := srv.closedLoop(c.writeConns, c.warm, c.writeDuration, http.StatusAccepted, func(n, w, i int) []byte { return reqs[n] }, nil)
	wait()
	if err != nil {
		return err
	}
	out.Accepted = statOf(r)
	if out.Backlog, err = srv.count(ctx, `SELECT count(*) FROM shipments WHERE account_id = ? AND status IN ('paying', 'pending')`, acct.ID); err != nil {
		return err
	}
	drained := false
	for deadline := time.Now().Add(c.drainTimeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		n, err := srv.count(ctx, `SELECT count(*) FROM shipments WHERE account_id = ? AND status IN ('paying', 'pending')`, acct.ID)
		if err != nil {
			return err
		}
		if n == 0 {
			drained = true
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if !drained {
		logf("  write path: purchases still pending after %s; going on", c.drainTimeout)
		out.Undrained = true
	}
	total, err := srv.count(ctx, `SELECT count(*) FROM shipments WHERE account_id = ?`, acct.ID)
	if err != nil {
		return err
	}
	purchased, err := srv.count(ctx, `SELECT count(*) FROM shipments WHERE account_id = ? AND status = 'purchased'`, acct.ID)
	if err != nil {
		return err
	}
	out.Created, out.Purchased = total, purchased
	out.PurchaseSeconds = time.Since(start).Seconds()
	out.PurchasesPerSec = float64(purchased) / out.PurchaseSeconds
	after, err := srv.usedBytes(ctx)
	if err != nil {
		return err
	}
	if total > 0 {
		*bytesPerShipment = float64(after-before) / float64(total)
	}
	return nil
}

// subscribe creates a webhook subscription to the receiver for shipment.purchased.
func subscribe(srv *deployment, rcv *receiver, token, path string) error {
	body, _ := json.Marshal(map[string]any{"url": rcv.url(path), "events": []string{"shipment.purchased"}})
	status, res, err := fetch(srv.addr(), request("POST", srv.addr(), api+"/webhooks", token, body))
	if err != nil || status != http.StatusCreated {
		return fmt.Errorf("POST /webhooks: %d %v %s", status, err, truncate(res, 300))
	}
	var sub struct {
		SigningSecret string `json:"signingSecret"`
	}
	if err := json.Unmarshal(res, &sub); err != nil || sub.SigningSecret == "" {
		return fmt.Errorf("POST /webhooks: no signing secret in %s", truncate(res, 300))
	}
	rcv.setSecret(path, sub.SigningSecret)
	return nil
}

// sent is one create of an open-loop run.
type sent struct {
	at     time.Time // when it was due (latencies count from here, so a late send is not hidden)
	status int
	lat    time.Duration
	id     string
}

// openLoop sends n creates, one every interval, whatever the answers:
// create i goes to addrs[i mod len(addrs)], as reqs[i mod len(addrs)]. Each
// address has a pool of its share of conns connections, and a create waits
// for a free one of its pool.
func openLoop(addrs []string, conns, n int, interval time.Duration, reqs [][]byte) []sent {
	out := make([]sent, n)
	jobs := make([]chan int, len(addrs))
	var wg sync.WaitGroup
	for a, addr := range addrs {
		jobs[a] = make(chan int, n)
		share := conns / len(addrs)
		if a < conns%len(addrs) {
			share++
		}
		for range max(share, 1) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cn, err := dial(addr)
				if err != nil {
					for i := range jobs[a] {
						out[i].status = 0
					}
					return
				}
				defer cn.Close()
				for i := range jobs[a] {
					status, body, err := cn.do(reqs[a])
					out[i].lat = time.Since(out[i].at)
					if err != nil {
						continue
					}
					out[i].status = status
					var v struct {
						ID string `json:"id"`
					}
					if json.Unmarshal(body, &v) == nil {
						out[i].id = v.ID
					}
				}
			}()
		}
	}
	start := time.Now()
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(due))
		out[i].at = due
		jobs[i%len(jobs)] <- i
	}
	for _, j := range jobs {
		close(j)
	}
	wg.Wait()
	return out
}

// e2ePhase creates shipments at a fixed rate and measures, per shipment,
// the time from the create being due to (a) purchasedAt and (b) the
// verified shipment.purchased delivery at the receiver.
func e2ePhase(ctx context.Context, c config, srv *deployment, db *seeded, rcv *receiver, out *e2eResult) error {
	acct := db.Accounts["e2e"]
	hook := srv.hooks + "/hooks/e2e"
	if err := subscribe(srv, rcv, acct.Token, hook); err != nil {
		return err
	}
	n := int(float64(c.e2eRate) * c.e2eDuration.Seconds())
	reqs := srv.requests("POST", api+"/labels/create", acct.Token, createBody())
	wait := srv.profile(c.profileDir, "e2e", c.e2eDuration)
	sends := srv.openLoop(32, n, time.Second/time.Duration(c.e2eRate), reqs)
	wait()
	out.Rate, out.Seconds, out.Sent = c.e2eRate, c.e2eDuration.Seconds(), n
	var createLat latencies
	byID := map[string]sent{}
	for _, s := range sends {
		createLat = append(createLat, s.lat)
		if s.status == http.StatusAccepted && s.id != "" {
			byID[s.id] = s
			out.Accepted++
		}
	}
	out.Create = latStat(createLat.sorted(), c.e2eDuration)
	rcv.waitFor(hook, out.Accepted, 30*time.Second)
	var purchased, delivered latencies
	got := map[string]bool{}
	for _, a := range rcv.received(hook) {
		s, ok := byID[a.shipmentID]
		if !ok || a.eventType != "shipment.purchased" {
			continue
		}
		got[a.shipmentID] = true
		delivered = append(delivered, a.at.Sub(s.at))
		if !a.purchasedAt.IsZero() {
			purchased = append(purchased, a.purchasedAt.Sub(s.at))
		}
	}
	// Shipments whose delivery never came: read purchasedAt from the API.
	for id, s := range byID {
		if got[id] {
			continue
		}
		out.MissingWebhooks++
		status, body, err := fetch(srv.addr(), request("GET", srv.addr(), api+"/labels/"+id, acct.Token, nil))
		if err != nil || status != http.StatusOK {
			continue
		}
		var v struct {
			PurchasedAt *time.Time `json:"purchasedAt"`
		}
		if json.Unmarshal(body, &v) == nil && v.PurchasedAt != nil {
			purchased = append(purchased, v.PurchasedAt.Sub(s.at))
		}
	}
	out.NotPurchased = out.Accepted - len(purchased)
	out.Purchased = latStat(purchased.sorted(), 0)
	out.Webhook = latStat(delivered.sorted(), 0)
	out.RejectedSignatures = srv.rejectedSignatures(rcv)
	return ctx.Err()
}

// fanoutPhase subscribes c.fanoutSubs endpoints, creates c.fanoutShipments
// shipments as fast as 32 connections go, and measures the rate at which the
// verified deliveries arrive (first to last) and each one's latency from its event.
func fanoutPhase(ctx context.Context, c config, srv *deployment, db *seeded, rcv *receiver, out *fanoutResult) error {
	acct := db.Accounts["fanout"]
	hooks := srv.hooks + "/hooks/fan/"
	for i := range c.fanoutSubs {
		if err := subscribe(srv, rcv, acct.Token, fmt.Sprintf("%s%d", hooks, i)); err != nil {
			return err
		}
	}
	reqs := srv.requests("POST", api+"/labels/create", acct.Token, createBody())
	start := time.Now()
	wait := srv.profile(c.profileDir, "fanout", 6*time.Second)
	sends := srv.openLoop(32, c.fanoutShipments, 0, reqs)
	for _, s := range sends {
		if s.status == http.StatusAccepted {
			out.Shipments++
		}
	}
	want := out.Shipments * c.fanoutSubs
	rcv.waitFor(hooks, want, 2*time.Minute)
	wait()
	arr := rcv.received(hooks)
	out.Subscriptions, out.Expected, out.Deliveries = c.fanoutSubs, want, len(arr)
	if len(arr) == 0 {
		logf("  fan-out: no delivery arrived")
		return ctx.Err()
	}
	first, last := arr[0].at, arr[0].at
	var lat latencies
	for _, a := range arr {
		if a.at.Before(first) {
			first = a.at
		}
		if a.at.After(last) {
			last = a.at
		}
		lat = append(lat, a.at.Sub(a.createdAt))
	}
	window := last.Sub(first)
	out.Latency = latStat(lat.sorted(), 0)
	if window > 0 {
		out.PerSec = float64(len(arr)) / window.Seconds()
	}
	out.Seconds = last.Sub(start).Seconds()
	out.RejectedSignatures = srv.rejectedSignatures(rcv)
	return ctx.Err()
}

// purchasePhase measures the purchase pipeline alone: c.purchaseLabels
// labels are created while no instance has purchase workers
// (--purchase-workers 0), then every instance is restarted with its workers
// and the time from the start of the instances with workers to the last
// purchase is taken (shipd's start included, so the rate errs low; the stop
// of the instances without workers before it is not, and is reported apart).
// Creates go at 32 connections, open loop, as fast as they are answered.
func purchasePhase(ctx context.Context, c config, srv *deployment, db *seeded, out *purchaseResult) error {
	acct := db.Accounts["purchase"]
	if err := srv.restart(ctx, c, "--purchase-workers", "0", "--purchase-backlog", "-1"); err != nil {
		return err
	}
	reqs := srv.requests("POST", api+"/labels/create", acct.Token, createBody())
	sends := srv.openLoop(32, c.purchaseLabels, 0, reqs)
	for _, s := range sends {
		if s.status == http.StatusAccepted {
			out.Labels++
		}
	}
	if out.Labels != c.purchaseLabels {
		return fmt.Errorf("purchase phase: %d of %d creates accepted", out.Labels, c.purchaseLabels)
	}
	pending := `SELECT count(*) FROM shipments WHERE account_id = ? AND status IN ('paying', 'pending')`
	if n, err := srv.count(ctx, pending, acct.ID); err != nil || n != out.Labels {
		return fmt.Errorf("purchase phase: %d labels waiting before the restart, want %d (%v)", n, out.Labels, err)
	}
	stopping := time.Now()
	if err := srv.stopForRestart(); err != nil {
		return err
	}
	start := time.Now()
	out.StopSeconds = start.Sub(stopping).Seconds()
	if err := srv.startAgain(ctx, c); err != nil {
		return err
	}
	wait := srv.profile(c.profileDir, "purchase", min(c.drainTimeout, 8*time.Second))
	defer wait()
	for deadline := start.Add(c.drainTimeout); ; time.Sleep(20 * time.Millisecond) {
		n, err := srv.count(ctx, pending, acct.ID)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			logf("  purchase phase: %d of %d still waiting after %s; going on", n, out.Labels, c.drainTimeout)
			out.Undrained = true
			break
		}
	}
	out.Seconds = time.Since(start).Seconds()
	purchased, err := srv.count(ctx, `SELECT count(*) FROM shipments WHERE account_id = ? AND status = 'purchased'`, acct.ID)
	if err != nil {
		return err
	}
	out.Purchased = purchased
	out.PerSec = float64(purchased) / out.Seconds
	return ctx.Err()
}
