#!/usr/bin/env bash
# Validates irlint's SARIF with Microsoft's SARIF Multitool and GitHub's
# ingestion rules (`validate --rule-kind "Sarif;Gh"`), the check GitHub code
# scanning applies to an upload. Fails on any error-level result; warnings are
# printed (expected: SARIF2005 for the absent `informationUri` — there is no
# public home page yet — and SARIF2017 for DXIL resource findings, which have
# no byte offset to give as a region).
#
#   npm install --prefix /tmp/smt @microsoft/sarif-multitool
#   chmod u+x /tmp/smt/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
#   SARIF_MULTITOOL=/tmp/smt/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool \
#       scripts/sarif-multitool.sh [PATH...]
#
# Point SARIF_MULTITOOL at the native binary, not at npm's `sarif-multitool`
# wrapper: the wrapper (5.7.0) passes its arguments through a shell, which
# splits "Sarif;Gh" at the `;` (`Gh: not found`, no target validated).
# PATHs default to tests/fixtures plus ../shared/corpus and ../shared/fixtures
# when present.
set -euo pipefail
cd "$(dirname "$0")/.."
tool="${SARIF_MULTITOOL:?set SARIF_MULTITOOL to the Sarif.Multitool binary}"
if [ "$#" -eq 0 ]; then
    set -- tests/fixtures
    for d in ../shared/corpus ../shared/fixtures; do
        if [ -d "$d" ]; then set -- "$@" "$d"; fi
    done
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
set +e
cargo run --quiet -- check "$@" --format sarif --output "$tmp/irlint.sarif"
rc=$?
set -e
if [ "$rc" -gt 2 ] || [ ! -s "$tmp/irlint.sarif" ]; then
    echo "irlint check failed (exit $rc)"
    exit 1
fi
"$tool" validate --rule-kind "Sarif;Gh" --output "$tmp/validation.sarif" "$tmp/irlint.sarif" > "$tmp/out.txt" 2>&1 || true
errors="$(grep -cE ': error [A-Z]+[0-9]+' "$tmp/out.txt" || true)"
warnings="$(grep -cE ': warning [A-Z]+[0-9]+' "$tmp/out.txt" || true)"
grep -oE ': (error|warning) [A-Z]+[0-9]+' "$tmp/out.txt" | sort | uniq -c || true
if ! grep -q 'Analysis completed successfully' "$tmp/out.txt"; then
    cat "$tmp/out.txt"
    echo "SARIF Multitool did not complete"
    exit 1
fi
echo "SARIF Multitool (Sarif;Gh): $errors errors, $warnings warnings"
if [ "$errors" -ne 0 ]; then
    grep -E ': error [A-Z]+[0-9]+' "$tmp/out.txt"
    exit 1
fi
