# Sourced by scripts/test.sh: how a run counts. A run fails on a nonzero exit status, on a gtest
# run that executes no test, and on a sanitizer's report anywhere in its output; the counts are
# added to the caller's passed, failed and skipped.

# A sanitizer's report, wherever in a run's output it comes: LeakSanitizer reports after gtest's
# summary, and a report on a path that does not abort would otherwise go unseen.
SANITIZER_REPORT='^(==[0-9]+==)?ERROR: (Address|Leak|Thread|Memory|UndefinedBehavior)Sanitizer|^WARNING: ThreadSanitizer|^SUMMARY: (Address|Leak|Thread|UndefinedBehavior)Sanitizer|: runtime error: '

# Runs a command into a log; echoes the lines worth seeing. Sets run_status to the command's exit
# status and run_problem to why the run fails (empty when it passes those checks).
run_logged() {
  local log=$1 errexit=$-; shift
  set +e
  "$@" > "$log" 2>&1
  run_status=$?
  [[ $errexit == *e* ]] && set -e
  run_problem=""
  [ "$run_status" -ne 0 ] && run_problem="exit status $run_status"
  if grep -qE "$SANITIZER_REPORT" "$log"; then
    run_problem="${run_problem:+$run_problem; }a sanitizer report"
    grep -nE "$SANITIZER_REPORT" "$log" | head -5
  fi
  return 0
}

# Runs one gtest binary and adds its counts. Fails on a nonzero exit status, on a run that executes
# no test (a filter that matches nothing, a setup that refused the tier), on a sanitizer report
# anywhere in the output, and on a failed test; keeps going either way.
run_suite() {
  local label=$1; shift
  echo "=== $label"
  local log
  log=$(mktemp)
  run_logged "$log" "$@"
  grep -E "dispatch picked|^\[  (PASSED|FAILED) +\] [0-9]+ test|^\[  SKIPPED \] [0-9]+ test|Failure|^\[  FAILED  \] |^cpuml: " "$log" || true
  local p f s ran
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  ran=$(sed -n 's/^\[==========\] \([0-9]*\) tests\{0,1\} from .* ran\..*/\1/p' "$log" | tail -1)
  if [ -z "$ran" ] || [ "$ran" -eq 0 ] || [ "${p:-0}" -eq 0 ]; then
    run_problem="${run_problem:+$run_problem; }no test passed (${ran:-no} tests ran)"
  fi
  if [ -n "$run_problem" ]; then
    echo "cpuml: $label FAILED: $run_problem"
    tail -20 "$log"
    # At least one failure counts, whatever the summary said.
    f=$(( ${f:-0} > 0 ? ${f:-0} : 1 ))
  fi
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
  rm -f "$log"
}

# Runs one check that is not a gtest binary: one pass or one failure, by its exit status and the
# absence of sanitizer reports.
run_check() {
  local label=$1; shift
  echo "=== $label"
  local log
  log=$(mktemp)
  run_logged "$log" "$@"
  if [ -z "$run_problem" ]; then
    tail -2 "$log"
    passed=$((passed + 1))
  else
    tail -40 "$log"
    echo "cpuml: $label FAILED: $run_problem"
    failed=$((failed + 1))
  fi
  rm -f "$log"
}

# Each way a run must fail, planted on purpose: the counting itself is checked before any suite
# is counted. $1: the native test binary.
counting_self_check() {
  local tests=$1 wrong_tier
  wrong_tier=$([ "$(uname -m)" = "x86_64" ] && echo neon || echo sse41)
  local outcomes=()
  local check
  for check in wrong_tier empty_filter leak_after_summary ubsan_report crash; do
    (
      passed=0 failed=0 skipped=0
      case $check in
        wrong_tier) run_suite "self-check: CPUML_EXPECT_ISA=$wrong_tier" env CPUML_EXPECT_ISA=$wrong_tier "$tests" ;;
        empty_filter) run_suite "self-check: a filter that matches nothing" "$tests" --gtest_filter='NoSuchTest.*' ;;
        leak_after_summary) run_suite "self-check: a leak reported after the summary" bash -c \
          'echo "[==========] 1 test from 1 test suite ran. (0 ms total)"; echo "[  PASSED  ] 1 test.";
           echo "==7==ERROR: LeakSanitizer: detected memory leaks"' ;;
        ubsan_report) run_check "self-check: a sanitizer report from a check that exits 0" bash -c \
          'echo "src/x.cc:1:2: runtime error: signed integer overflow"' ;;
        crash) run_suite "self-check: a crash after passing tests" bash -c \
          'echo "[==========] 1 test from 1 test suite ran. (0 ms total)"; echo "[  PASSED  ] 1 test."; kill -SEGV $$' ;;
      esac
      [ "$failed" -gt 0 ]
    ) > /dev/null 2>&1 && outcomes+=("$check: counted as failed") || outcomes+=("$check: NOT COUNTED")
  done
  echo "=== the counting, checked on planted failures"
  printf '  %s\n' "${outcomes[@]}"
  if printf '%s\n' "${outcomes[@]}" | grep -q "NOT COUNTED"; then failed=$((failed + 1)); else passed=$((passed + 1)); fi
}
