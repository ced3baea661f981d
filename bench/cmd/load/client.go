package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// conn is one keep-alive HTTP/1.1 connection. Requests are written as
// prepared bytes and responses parsed with net/http's reader, so the load
// generator spends as little of the two cores as possible on itself.
type conn struct {
	addr string
	c    net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	body bytes.Buffer
}

func dial(addr string) (*conn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &conn{addr: addr, c: c, br: bufio.NewReaderSize(c, 32<<10), bw: bufio.NewWriterSize(c, 8<<10)}, nil
}

func (c *conn) Close() error { return c.c.Close() }

// do sends one request and returns the status and the body, which stays
// valid until the next call. A broken connection is redialled once.
func (c *conn) do(req []byte) (int, []byte, error) {
	status, body, err := c.try(req)
	if err == nil {
		return status, body, nil
	}
	// The server may have closed an idle connection: redial and retry once.
	c.c.Close()
	nc, derr := dial(c.addr)
	if derr != nil {
		return 0, nil, err
	}
	*c = conn{addr: c.addr, c: nc.c, br: nc.br, bw: nc.bw}
	return c.try(req)
}

func (c *conn) try(req []byte) (int, []byte, error) {
	_ = c.c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.bw.Write(req); err != nil {
		return 0, nil, err
	}
	if err := c.bw.Flush(); err != nil {
		return 0, nil, err
	}
	res, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return 0, nil, err
	}
	c.body.Reset()
	_, err = io.Copy(&c.body, res.Body)
	res.Body.Close()
	if err != nil {
		return 0, nil, err
	}
	if res.Close {
		nc, derr := dial(c.addr)
		if derr != nil {
			return 0, nil, derr
		}
		c.c.Close()
		c.c, c.br, c.bw = nc.c, nc.br, nc.bw
	}
	return res.StatusCode, c.body.Bytes(), nil
}

// request builds a request's bytes.
func request(method, host, path, token string, body []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: shipd-bench\r\n", method, path, host)
	if token != "" {
		b.WriteString("Authorization: Bearer " + token + "\r\n")
	}
	if body != nil {
		b.WriteString("Content-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}

// latencies records every latency; percentiles are exact (sorted, nearest rank).
type latencies []time.Duration

func (l latencies) sorted() latencies {
	s := slices.Clone(l)
	slices.Sort(s)
	return s
}

// pct is the nearest-rank percentile of a sorted list.
func (l latencies) pct(p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(l)) + 0.999999999)
	rank = min(max(rank, 1), len(l))
	return l[rank-1]
}

// loadResult is what a closed-loop run measured.
type loadResult struct {
	ok       int           // requests answered with the expected status
	bad      map[int]int   // other statuses (0: transport error)
	lat      latencies     // every request's latency, sorted
	elapsed  time.Duration // measured window
	firstErr string        // first unexpected answer, for the log
}

// merge adds the measurements of another run.
func (r loadResult) merge(o loadResult) loadResult {
	out := loadResult{ok: r.ok + o.ok, bad: map[int]int{}, elapsed: r.elapsed + o.elapsed, firstErr: r.firstErr}
	for _, m := range []map[int]int{r.bad, o.bad} {
		for k, v := range m {
			out.bad[k] += v
		}
	}
	if out.firstErr == "" {
		out.firstErr = o.firstErr
	}
	out.lat = append(slices.Clone(r.lat), o.lat...).sorted()
	return out
}

func (r loadResult) rps() float64 { return float64(r.ok) / r.elapsed.Seconds() }

// closedLoop runs conns connections, each sending the next request as soon as
// the previous one is answered, for warm then for d (only d is measured).
// next builds request i of connection w; check sees each measured answer.
func closedLoop(addr string, conns int, warm, d time.Duration, want int, next func(w, i int) []byte, check func(w int, status int, body []byte)) (loadResult, error) {
	type workerOut struct {
		lat      latencies
		ok       int
		bad      map[int]int
		firstErr string
	}
	outs := make([]workerOut, conns)
	cs := make([]*conn, conns)
	for w := range cs {
		c, err := dial(addr)
		if err != nil {
			for _, c := range cs[:w] {
				c.Close()
			}
			return loadResult{}, err
		}
		cs[w] = c
	}
	start := time.Now()
	measureFrom := start.Add(warm)
	stopAt := measureFrom.Add(d)
	var wg sync.WaitGroup
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := cs[w]
			defer c.Close()
			o := &outs[w]
			o.bad = map[int]int{}
			o.lat = make(latencies, 0, 1<<14)
			for i := 0; ; i++ {
				t0 := time.Now()
				if !t0.Before(stopAt) {
					return
				}
				status, body, err := c.do(next(w, i))
				t1 := time.Now()
				if t0.Before(measureFrom) {
					if err != nil {
						time.Sleep(10 * time.Millisecond)
					}
					continue
				}
				o.lat = append(o.lat, t1.Sub(t0))
				switch {
				case err != nil:
					o.bad[0]++
					if o.firstErr == "" {
						o.firstErr = err.Error()
					}
					time.Sleep(10 * time.Millisecond)
				case status != want:
					o.bad[status]++
					if o.firstErr == "" {
						o.firstErr = fmt.Sprintf("%d %s", status, truncate(body, 300))
					}
				default:
					o.ok++
					if check != nil {
						check(w, status, body)
					}
				}
			}
		}()
	}
	wg.Wait()
	var r loadResult
	r.bad = map[int]int{}
	r.elapsed = d
	for _, o := range outs {
		r.ok += o.ok
		r.lat = append(r.lat, o.lat...)
		for k, v := range o.bad {
			r.bad[k] += v
		}
		if r.firstErr == "" {
			r.firstErr = o.firstErr
		}
	}
	r.lat = r.lat.sorted()
	return r, nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
