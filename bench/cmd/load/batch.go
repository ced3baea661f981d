package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// batchResult is the batch phase: one POST /batches of Items shipments,
// their purchases, and the merged PDF of their labels.
type batchResult struct {
	Items         int     `json:"items"`
	AcceptSeconds float64 `json:"acceptSeconds"` // POST /batches → 202
	// PurchaseSeconds runs from the 202 to the batch completed.
	PurchaseSeconds float64 `json:"purchaseSeconds"`
	PurchasesPerSec float64 `json:"purchasesPerSec"`
	PDFSeconds      float64 `json:"pdfSeconds"` // GET /batches/{id}/labels.pdf, first byte to last
	PDFBytes        int64   `json:"pdfBytes"`
	// RSSGrowthMiB is the server's largest resident set while the PDF
	// streamed, less its resident set just before.
	RSSGrowthMiB float64 `json:"rssGrowthMiB"`
	Undrained    bool    `json:"undrained,omitempty"`
}

// batchPhase posts one batch of c.batchItems shipments, waits for it to
// complete and downloads its merged labels, sampling the server's RSS.
func batchPhase(ctx context.Context, c config, srv *deployment, db *seeded, out *batchResult) error {
	acct := db.Accounts["purchase"]
	items := make([]json.RawMessage, c.batchItems)
	for i := range items {
		items[i] = createBody()
	}
	body, err := json.Marshal(map[string]any{"shipments": items})
	if err != nil {
		return err
	}
	out.Items = c.batchItems
	wait := srv.profile(c.profileDir, "batch", 4*time.Second)
	defer wait()
	start := time.Now()
	status, answer, err := fetch(srv.addr(), request("POST", srv.addr(), api+"/batches", acct.Token, body))
	if err != nil {
		return err
	}
	accepted := time.Now()
	out.AcceptSeconds = accepted.Sub(start).Seconds()
	if status != http.StatusAccepted {
		return fmt.Errorf("batch phase: POST /batches answered %d: %s", status, truncate(answer, 300))
	}
	var b struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(answer, &b); err != nil {
		return err
	}
	for deadline := accepted.Add(c.drainTimeout); ; time.Sleep(20 * time.Millisecond) {
		n, err := srv.count(ctx, `SELECT count(*) FROM batches WHERE id = ? AND status = 'completed'`, b.ID)
		if err != nil {
			return err
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			out.Undrained = true
			return fmt.Errorf("batch phase: the batch did not complete within %s", c.drainTimeout)
		}
	}
	out.PurchaseSeconds = time.Since(accepted).Seconds()
	out.PurchasesPerSec = float64(c.batchItems) / out.PurchaseSeconds

	pid := srv.nodes[0].cmd.Process.Pid
	before := rssMiB(pid)
	var peak float64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			peak = max(peak, rssMiB(pid))
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+srv.addr()+api+"/batches/"+b.ID+"/labels.pdf", nil)
	req.Header.Set("Authorization", "Bearer "+acct.Token)
	t0 := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err == nil {
		out.PDFBytes, err = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if err == nil && res.StatusCode != http.StatusOK {
			err = fmt.Errorf("batch phase: GET labels.pdf answered %d", res.StatusCode)
		}
	}
	out.PDFSeconds = time.Since(t0).Seconds()
	close(stop)
	wg.Wait()
	out.RSSGrowthMiB = max(0, peak-before)
	return err
}

// rssMiB is a process's resident set now (VmRSS).
func rssMiB(pid int) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}
