package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Set at link time by the Makefile (-ldflags "-X main.version=…"): the
// linker can only set package-level string variables, hence these three.
// A plain `go build` leaves them empty and buildInfo says "dev".
var (
	version   string
	commit    string
	buildDate string
)

// buildInfo is what `shipd version` prints.
type buildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	BuildDate string `json:"buildDate"`
	GoVersion string `json:"goVersion"`
}

// currentBuild is the linker's values, or for a build without them "dev"
// and what the Go toolchain recorded of the checkout (vcs.revision).
func currentBuild() buildInfo {
	b := buildInfo{Version: version, Commit: commit, BuildDate: buildDate, GoVersion: runtime.Version()}
	if b.Version == "" {
		b.Version = "dev"
	}
	if info, ok := debug.ReadBuildInfo(); ok && (b.Commit == "" || b.BuildDate == "") {
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.time" && b.BuildDate == "":
				b.BuildDate = s.Value
			}
		}
	}
	return b
}

func versionCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stderr)
	asJSON := fs.Bool("json", false, "print version, commit, build date and Go version as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	b := currentBuild()
	if *asJSON {
		return printJSON(stdout, b)
	}
	commit := b.Commit
	if commit == "" {
		commit = "unknown"
	}
	date := b.BuildDate
	if date == "" {
		date = "unknown"
	}
	_, err := fmt.Fprintf(stdout, "shipd %s (commit %s, built %s, %s)\n", b.Version, commit, date, b.GoVersion)
	return err
}
