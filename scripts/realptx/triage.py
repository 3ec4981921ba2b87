#!/usr/bin/env python3
"""Triage what irlint does on a directory tree of real PTX, one source per subdirectory.

Usage: triage.py IRLINT ROOT [SOURCE...] > report.md
  IRLINT: the irlint binary (target/release/irlint)
  ROOT:   a directory with one subdirectory per source (cutlass/, triton-3.6-ws/, ...), each holding
          *.ptx and optionally ptxas.txt (lines "<file> ok <arch>" / "<file> REJECT <arch>: <error>")
Per source it runs `irlint check --format json` and `irlint dump --format json` on each module and
prints a Markdown report: modules, sizes, ptxas verdicts, input errors grouped by message, findings
grouped by rule with a sample, the share of tcgen05/wgmma shared-memory descriptors whose version /
layout the dataflow knows, and the share of ldmatrix/stmatrix (16 B) and mbarrier (8 B) addresses
whose alignment is decided. It also writes ROOT/<source>/irlint.json with the raw per-module data
(or TRIAGE_JSON_DIR/<source>.irlint.json when that variable is set).
"""
import collections
import json
import os
import re
import subprocess
import sys


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        return json.loads(p.stdout), p.returncode, p.stderr
    except json.JSONDecodeError:
        return None, p.returncode, p.stderr


MOD_RE = re.compile(r"^(?P<v>.*?) = (?P<d>.*)$")


def align_decided(addr, need):
    """True when the low log2(need) bits of an address operand are known (aligned or not)."""
    if addr is None:
        return None
    if isinstance(addr, int):
        return True
    m = MOD_RE.match(addr)
    if not m:
        return False
    d = m.group("d")
    if d.startswith("{"):
        return True
    mm = re.match(r"(\d+) mod (\d+)", d)
    if mm:
        rem, mod = int(mm.group(1)), int(mm.group(2))
        return mod >= need or rem % mod != 0
    return False


def align_known_ok(addr, need):
    if isinstance(addr, int):
        return addr % need == 0
    if not isinstance(addr, str):
        return False
    m = MOD_RE.match(addr)
    if not m:
        return False
    d = m.group("d")
    if d.startswith("{"):
        return all(int(x) % need == 0 for x in d.strip("{}").split(", "))
    mm = re.match(r"(\d+) mod (\d+)", d)
    return bool(mm) and int(mm.group(2)) >= need and int(mm.group(1)) % need == 0


def field(s, name):
    if not isinstance(s, str):
        return None
    m = re.search(r"\b" + name + r"=(\S+)", s)
    return m.group(1) if m else None


def analyse(irlint, path):
    rec = {"path": path, "bytes": os.path.getsize(path)}
    chk, rc, err = run_json([irlint, "check", "--format", "json", path])
    if chk is None:
        rec["status"] = "crash"
        rec["message"] = f"rc={rc} {err.strip()[:300]}"
        return rec
    f = (chk.get("files") or [{}])[0]
    rec["status"] = f.get("status")
    rec["message"] = f.get("message")
    rec["findings"] = [
        {k: x.get(k) for k in ("rule", "level", "certainty", "message", "line", "function", "values")}
        for x in chk.get("findings", [])
    ]
    dmp, rc, err = run_json([irlint, "dump", "--format", "json", path])
    stats = collections.Counter()
    if dmp is not None:
        for fi in dmp.get("files", []):
            for op in fi.get("ops", []) or []:
                kind = op.get("kind")
                if kind in ("tcgen05-mma", "wgmma"):
                    for key in ("a_desc", "b_desc"):
                        if key not in op:
                            continue
                        fs = op.get(key + "_fields")
                        lay = field(fs, "layout_type")
                        ver = field(fs, "version") if kind == "tcgen05-mma" else "n/a"
                        stats[f"{kind}.{key}"] += 1
                        if lay not in (None, "?") and ver not in (None, "?"):
                            stats[f"{kind}.{key}.known"] += 1
                elif kind in ("ld-st-matrix", "mbarrier"):
                    need = 16 if kind == "ld-st-matrix" else 8
                    a = op.get("address")
                    if a is None:
                        continue
                    stats[kind] += 1
                    if align_decided(a, need):
                        stats[kind + ".decided"] += 1
                    if align_known_ok(a, need):
                        stats[kind + ".aligned"] += 1
    rec["dump"] = dict(stats)
    return rec


def normalise(msg):
    msg = re.sub(r"line \d+, column \d+", "line N, column C", msg)
    msg = re.sub(r"byte offset 0x[0-9a-f]+ \(\d+\)", "byte offset X", msg)
    msg = re.sub(r"\$L__BB\d+_\d+", "$L__BBa_b", msg)
    msg = re.sub(r"%[a-z]*\d+", "%rN", msg)
    return msg


def throughput(irlint, path, min_cpu=0.5, max_reps=50):
    """CPU time per run of `irlint check` on one module (children's rusage, repeated until min_cpu
    seconds were spent) and the peak RSS of one run (/usr/bin/time -v)."""
    import resource
    reps = 0
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = 0.0
    while reps < max_reps and (reps < 3 or cpu < min_cpu):
        subprocess.run([irlint, "check", "--format", "json", path], capture_output=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        reps += 1
    p = subprocess.run(["/usr/bin/time", "-v", irlint, "check", "--format", "json", path],
                       capture_output=True, text=True)
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    size = os.path.getsize(path)
    per = cpu / reps
    return {"cpu_s": per, "mb_per_s": size / 1e6 / per if per else 0.0,
            "rss_mb": int(m.group(1)) / 1024 if m else 0.0, "bytes": size, "reps": reps}


def main():
    irlint, root = sys.argv[1], sys.argv[2]
    sources = sys.argv[3:] or sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    out = []
    for src in sources:
        d = os.path.join(root, src)
        mods = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(d) for f in fs if f.endswith(".ptx"))
        mods = [m for m in mods if "/dump-" not in m]
        if not mods:
            continue
        verdict = {}
        vp = os.path.join(d, "ptxas.txt")
        if os.path.exists(vp):
            for line in open(vp):
                parts = line.rstrip("\n").split(" ", 1)
                if len(parts) == 2:
                    verdict[parts[0]] = parts[1]
        recs = [analyse(irlint, m) for m in mods]
        for r in recs:
            r["ptxas"] = verdict.get(os.path.basename(r["path"]), "not checked")
        big = sorted(recs, key=lambda r: -r["bytes"])[:2]
        for r in big if not os.environ.get("TRIAGE_NO_PERF") else []:  # e.g. with a debug build
            r["perf"] = throughput(irlint, r["path"])
        jdir = os.environ.get("TRIAGE_JSON_DIR", d)  # for read-only trees such as ../shared/corpus
        os.makedirs(jdir, exist_ok=True)
        json.dump(recs, open(os.path.join(jdir, f"{src}.irlint.json" if jdir != d else "irlint.json"), "w"), indent=1)
        out.append(report(src, recs))
    print("\n".join(out))


def report(src, recs):
    L = [f"### {src}", ""]
    total = sum(r["bytes"] for r in recs)
    ok_ptxas = sum(1 for r in recs if r["ptxas"].startswith("ok"))
    read = sum(1 for r in recs if r.get("status") == "ok")
    for r in recs:
        r["findings"] = [f for f in r.get("findings", []) if f["rule"] != "input-error"]
    nf = sum(len(r.get("findings", [])) for r in recs)
    clean = sum(1 for r in recs if r.get("status") == "ok" and not r.get("findings"))
    L.append(f"{len(recs)} modules, {total / 1e6:.1f} MB; ptxas accepts {ok_ptxas}; irlint reads {read} "
             f"(status ok), {nf} findings, {clean} modules read with no finding.")
    L.append("")
    L.append("| module | bytes | ptxas | irlint | findings |")
    L.append("|---|---:|---|---|---|")
    for r in recs:
        rules = collections.Counter(f["rule"] for f in r.get("findings", []))
        fs = ", ".join(f"{k} ×{v}" for k, v in rules.most_common()) or "–"
        st = r.get("status")
        L.append(f"| {os.path.basename(r['path'])} | {r['bytes']} | {r['ptxas']} | {st} | {fs} |")
    errs = collections.defaultdict(list)
    for r in recs:
        if r.get("status") != "ok":
            msg = normalise(r.get("message") or "")
            errs[msg].append(os.path.basename(r["path"]))
    if errs:
        L += ["", "Input errors (modules not read), by message:", ""]
        for msg, ms in sorted(errs.items(), key=lambda x: -len(x[1])):
            L.append(f"- {len(ms)} × `{msg}` — e.g. {ms[0]}")
    byrule = collections.defaultdict(list)
    for r in recs:
        for f in r.get("findings", []):
            byrule[f["rule"]].append((os.path.basename(r["path"]), f))
    if byrule:
        L += ["", "Findings by rule (one sample each):", ""]
        for rule, fs in sorted(byrule.items(), key=lambda x: -len(x[1])):
            m, f = fs[0]
            nm = len({x[0] for x in fs})
            L.append(f"- **{rule}** ×{len(fs)} in {nm} modules — {m}:{f.get('line')}: {f.get('message')}")
    perf = [r for r in recs if r.get("perf")]
    if perf:
        L += ["", "Speed and memory (`irlint check --format json`, user+sys CPU per run averaged over >= 0.5 s of runs, process start included; peak RSS of one run):", ""]
        for r in perf:
            p = r["perf"]
            L.append(f"- {os.path.basename(r['path'])} ({p['bytes'] / 1e6:.2f} MB): {p['cpu_s']:.3f} s CPU, "
                     f"{p['mb_per_s']:.0f} MB/s, peak RSS {p['rss_mb']:.0f} MB ({p['rss_mb'] * 1048576 / p['bytes']:.1f}× file)")
    st = collections.Counter()
    for r in recs:
        st.update(r.get("dump", {}))
    unread = sum(1 for r in recs if r.get("status") != "ok")
    L += ["", "Dataflow coverage (irlint dump" + (f"; the {unread} unread modules count nowhere" if unread else "") + "):", ""]
    for kind in ("tcgen05-mma.a_desc", "tcgen05-mma.b_desc", "wgmma.a_desc", "wgmma.b_desc"):
        if st[kind]:
            k = st[kind + ".known"]
            L.append(f"- {kind}: {k}/{st[kind]} with version/layout known ({100 * k / st[kind]:.0f} %), "
                     f"{st[kind] - k} unknown")
    for kind, need in (("ld-st-matrix", 16), ("mbarrier", 8)):
        if st[kind]:
            k = st[kind + ".decided"]
            L.append(f"- {kind} address ({need} B): {k}/{st[kind]} alignment decided "
                     f"({100 * k / st[kind]:.0f} %), {st[kind + '.aligned']} known aligned, {st[kind] - k} undecided")
    L.append("")
    return "\n".join(L)


if __name__ == "__main__":
    main()
