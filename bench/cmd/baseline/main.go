// Command baseline is the yardstick of `make bench`: a bare Echo server that
// answers GET /api/v1/labels/:id with fixed bytes held in memory (the body
// shipd returned for the same request), with no middleware, database or
// encoding. shipd's read path is reported as a fraction of its throughput.
//
//	baseline -addr 127.0.0.1:0 -body body.json
//
// It prints "listening ADDR" on stdout once it accepts connections.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/labstack/echo/v4"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	bodyPath := flag.String("body", "", "file holding the response body")
	contentType := flag.String("content-type", "application/json", "response Content-Type")
	flag.Parse()
	body, err := os.ReadFile(*bodyPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		os.Exit(1)
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/api/v1/labels/:id", func(c echo.Context) error {
		return c.Blob(http.StatusOK, *contentType, body)
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		os.Exit(1)
	}
	fmt.Println("listening", ln.Addr().String())
	// The same server settings as shipd's, so only the handler differs.
	srv := &http.Server{Handler: e, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second, MaxHeaderBytes: 64 << 10}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		os.Exit(1)
	}
}
