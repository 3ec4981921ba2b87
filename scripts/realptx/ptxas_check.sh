#!/bin/bash
# Record ptxas 13.5's verdict on every module of a directory: DIR/ptxas.txt gets one line per
# module, "<file> ok <arch>" or "<file> REJECT <arch>: <first error line>" (arch from .target).
# Usage: ptxas_check.sh DIR...   (modules already listed in DIR/ptxas.txt are skipped)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/env.sh"
for d in "$@"; do
  touch "$d/ptxas.txt"
  for f in "$d"/*.ptx; do
    b=$(basename "$f")
    grep -q "^$b " "$d/ptxas.txt" && continue
    echo "$b $(ptxas_verdict "$f")" >> "$d/ptxas.txt"
  done
  echo "$d: $(grep -c ' ok ' "$d/ptxas.txt") ok, $(grep -c ' REJECT ' "$d/ptxas.txt") rejected"
done
