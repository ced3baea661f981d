#!/usr/bin/env bash
# Runs every Go fuzz target of the repository, one at a time, each for a
# bounded time, and stops at the first that fails. Targets are found by
# grepping `func FuzzX(` in the *_test.go files, so a new one runs without
# being listed anywhere.
#
#   scripts/fuzz.sh                      # every target, FUZZTIME each
#   FUZZTIME=1m scripts/fuzz.sh          # longer
#   FUZZ_MATCH=server scripts/fuzz.sh    # only targets whose "./pkg/ FuzzX" matches the regex
#
# FUZZTIME (default 20s) is each target's time; the carriers' response
# parsers (./carriers/..., 22 small targets of pure functions) get
# FUZZTIME_CARRIERS (default: FUZZTIME; 10s saves about 4 minutes).
# FUZZMINIMIZETIME (default 5s) bounds the minimizing of each new corpus
# entry: with go test's default (60s) a target could spend its whole time
# minimizing, at 0 executions per second, and then fail with "context
# deadline exceeded" as the fuzz time ran out under it (go.dev/issue/75804).
# Even bounded, a new entry found just before the end can still be under
# minimization when the time runs out, with the same error: a run that fails
# with "context deadline exceeded" and wrote no failing input is that flake,
# not a finding, and the target runs once more (a finding always writes its
# input to testdata/fuzz/).
# Each target's output goes to $FUZZ_LOG_DIR/<pkg>.<target>.log; one line
# per target is printed (executions, new corpus entries, time). A failing
# input is written by go test to <pkg>/testdata/fuzz/<target>/ and then runs
# with every `go test`: commit it with the fix as a regression seed.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-20s}
FUZZTIME_CARRIERS=${FUZZTIME_CARRIERS:-$FUZZTIME}
FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-5s}
FUZZ_MATCH=${FUZZ_MATCH:-}
FUZZ_LOG_DIR=${FUZZ_LOG_DIR:-${TMPDIR:-/tmp}/shipd-fuzz}
mkdir -p "$FUZZ_LOG_DIR"

# "./pkg/ FuzzName" per target, sorted; vendored and tool trees skipped.
targets=$(
	find . \( -name .git -o -name .tools -o -name node_modules -o -name testdata \) -prune -o -name '*_test.go' -print |
		{ xargs grep -H -o -E '^func Fuzz[A-Za-z0-9_]*\(' || true; } |
		sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($#\1/ \2#' |
		sort -u
)
if [[ -n $FUZZ_MATCH ]]; then
	targets=$(grep -E -- "$FUZZ_MATCH" <<<"$targets" || true)
fi
if [[ -z $targets ]]; then
	echo "fuzz: no fuzz targets${FUZZ_MATCH:+ match $FUZZ_MATCH}" >&2
	exit 1
fi

count=$(wc -l <<<"$targets")
echo "fuzz: $count targets, $FUZZTIME each ($FUZZTIME_CARRIERS for ./carriers/), logs in $FUZZ_LOG_DIR"
start=$SECONDS
n=0
while read -r pkg name; do
	n=$((n + 1))
	time=$FUZZTIME
	[[ $pkg == ./carriers/* ]] && time=$FUZZTIME_CARRIERS
	base=$FUZZ_LOG_DIR/$(tr '/.' '__' <<<"${pkg#./}" | sed 's/_*$//')
	t0=$SECONDS
	# First each package's seeds and kept inputs (testdata/fuzz) as plain
	# tests: a kept failing input fails here, however short the time.
	if [[ $pkg != "${seeded:-}" ]]; then
		seeded=$pkg
		names=$(awk -v p="$pkg" '$1 == p { print $2 }' <<<"$targets" | paste -sd '|')
		if ! "$GO" test -count=1 -run "^($names)\$" "$pkg" >"$base.seeds.log" 2>&1; then
			failed=$({ grep -o -E '^--- FAIL: Fuzz[A-Za-z0-9_]*' "$base.seeds.log" || true; } | cut -d' ' -f3 | paste -sd ' ')
			echo "fuzz: FAIL ${failed:-the seeds of $pkg} in $pkg: a seed or a kept input of testdata/fuzz/ (log: $base.seeds.log)"
			tail -40 "$base.seeds.log"
			exit 1
		fi
	fi
	log=$base.$name.log
	fuzz() { "$GO" test -run '^$' -fuzz "^$name\$" -fuzztime "$time" -fuzzminimizetime "$FUZZMINIMIZETIME" "$pkg" >"$log" 2>&1; }
	ok=true
	if ! fuzz; then
		ok=false
		if grep -q 'context deadline exceeded' "$log" && ! grep -q 'testdata/fuzz/' "$log"; then
			echo "fuzz: $name in $pkg ran out of time while minimizing a new entry (go.dev/issue/75804); once more"
			cp "$log" "$log.deadline"
			fuzz && ok=true
		fi
	fi
	if ! $ok; then
		echo "fuzz: FAIL $name in $pkg (log: $log)"
		tail -40 "$log"
		input=$({ grep -o -E 'testdata/fuzz/[^ ]+' "$log" || true; } | tail -1)
		if [[ -n $input ]]; then
			echo "fuzz: the failing input is ${pkg#./}$input; reproduce with: $GO test -run '^$name/${input##*/}\$' $pkg"
		fi
		exit 1
	fi
	stats=$({ grep -E '^fuzz: elapsed: .*execs: ' "$log" || true; } | tail -1 |
		sed -E 's/.*execs: ([0-9]+) .*new interesting: ([0-9]+) \(total: ([0-9]+)\).*/\1 execs, \2 new corpus entries (\3 in all)/')
	printf 'fuzz: [%2d/%d] ok  %-22s %-22s %s in %ds\n' "$n" "$count" "$name" "$pkg" "${stats:-no executions past the seeds}" $((SECONDS - t0))
done <<<"$targets"
echo "fuzz: $count targets passed in $((SECONDS - start))s"
