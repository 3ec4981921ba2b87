//! Hostile inputs on every surface besides the shader readers (issue 25,
//! classes 4, 5, 6, 11, 12, 15, 16; issue 29 §3): the files irlint writes,
//! the files it reads besides its inputs (`irlint.toml`, baselines, ignore
//! files, source files named by debug info, `irlint atoms` inputs), reports,
//! walks and command-line values. Each test builds its inputs here and runs
//! the real binary with a time limit and a peak-RSS check, alone and, where
//! it makes sense, in a batch with a fixture that has findings.
//!
//! Time limits are the (5 s for an input under 10 MB) for a release
//! build; an unoptimised test build gets four times as long.

mod common;

#[path = "support/runner.rs"]
mod runner;
#[path = "support/scratch.rs"]
mod tmp;
use runner::{irlint, limit, run_with, Opts};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> tmp::Scratch {
    tmp::scratch_in("irlint-surfaces", name)
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write input");
    p
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", p.display());
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The fixture with findings every batch includes, and its finding count.
fn fixture() -> PathBuf {
    common::root().join("tests/fixtures/ptx_desc/shared_address.ptx")
}

fn findings_of(report: &serde_json::Value, path_end: &str) -> usize {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["path"].as_str().is_some_and(|p| p.ends_with(path_end)) && d["rule"] != "input-error")
        .count()
}

fn fixture_findings() -> usize {
    let r = irlint(&["check", "--format", "json", s(&fixture())], limit(5));
    let n = findings_of(&r.json(), "shared_address.ptx");
    assert!(n >= 8, "the fixture has findings: {n}");
    n
}

/// A PTX kernel `name` with `n` misaligned `mbarrier.init`s (one error
/// finding each), each at `.loc 1 LINE` for the lines `lines` gives, naming
/// `file` as source file 1.
fn ptx(name: &str, file: &str, n: usize, lines: impl Fn(usize) -> usize) -> String {
    let mut t = format!(
        ".version 8.7\n.target sm_100a\n.address_size 64\n.file 1 \"{file}\"\n.visible .entry {name}(.param .u32 p)\n{{\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, 1028;\n"
    );
    for i in 0..n {
        t.push_str(&format!("\t.loc 1 {} 0\n\tmbarrier.init.shared::cta.b64 [%r1], 1;\n", lines(i)));
    }
    t.push_str("\tret;\n}\n");
    t
}

// ---------------------------------------------------------------------------
// Class 4: temporary files

/// Every name the temporaries of `-o` and the stdin spool could have had
/// (the old scheme: `.NAME.irlint-PID.tmp` next to the output,
/// `irlint-stdin-PID` in the temporary directory) holds a symlink to a
/// victim: irlint writes its report and reads stdin (now into memory, never
/// a temporary file) without touching it.
#[test]
fn planted_symlinks_at_temporary_names_are_not_followed() {
    let dir = scratch("symlink");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let victim = write(&dir, "victim.txt", b"precious\n");
    let out = dir.join("report.json");
    let input = std::fs::read(fixture()).unwrap();
    let mut planted = Vec::new();
    let r = run_with(
        &["check", "--format", "json", "-", "-o", s(&out)],
        limit(5),
        Opts { env: vec![("TMPDIR", &tmp)], stdin: Some(&input), ..Default::default() },
        |pid| {
            for name in [format!(".report.json.irlint-{pid}.tmp"), format!("report.json.irlint-{pid}.tmp")] {
                planted.push(dir.join(name));
            }
            planted.push(tmp.join(format!("irlint-stdin-{pid}")));
            for p in &planted {
                std::os::unix::fs::symlink(&victim, p).unwrap();
            }
        },
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious\n");
    for p in &planted {
        assert_eq!(std::fs::read_link(p).unwrap(), victim, "{} is still the planted link", p.display());
    }
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(findings_of(&report, "<stdin>"), fixture_findings());
    // Nothing else is left behind: the victim, the links, the report.
    let left = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(left, 1 + 2 + 1 + 1, "victim, two links, report, tmp/");
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 1, "only the planted stdin link");
}

/// The same for `irlint atoms -o` and `--write-baseline` (one atomic writer).
#[test]
fn atoms_and_baseline_outputs_write_through_random_temporaries() {
    let dir = scratch("symlink-atoms");
    let victim = write(&dir, "victim.txt", b"precious\n");
    let records = write(&dir, "r.jsonl", "{}\n");
    let out = dir.join("atoms.json");
    let base = dir.join("base.json");
    for args in [
        vec!["atoms", "--format", "json", s(&records), "-o", s(&out)],
        vec!["check", s(&fixture()), "--write-baseline", s(&base)],
    ] {
        let target = if args[0] == "atoms" { &out } else { &base };
        let stem = target.file_name().unwrap().to_str().unwrap().to_string();
        let mut planted = Vec::new();
        let r = run_with(&args, limit(5), Opts { stdin: Some(b""), ..Default::default() }, |pid| {
            let p = dir.join(format!(".{stem}.irlint-{pid}.tmp"));
            std::os::unix::fs::symlink(&victim, &p).unwrap();
            planted.push(p);
        });
        assert!(r.code <= 2, "{}", r.stderr);
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious\n", "{args:?}");
        assert!(std::fs::symlink_metadata(target).unwrap().is_file(), "{args:?} wrote {}", target.display());
        for p in planted {
            assert_eq!(std::fs::read_link(&p).unwrap(), victim);
            std::fs::remove_file(p).unwrap();
        }
    }
}

// ---------------------------------------------------------------------------
// Issue 29 §3: an output that is an input

#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = scratch("out-is-in");
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let original = std::fs::read(fixture()).unwrap();
    let x = write(&sub, "x.ptx", &original);
    let link = dir.join("hard.ptx");
    std::fs::hard_link(&x, &link).unwrap();
    let sym = dir.join("sym.ptx");
    std::os::unix::fs::symlink(&x, &sym).unwrap();
    let records = write(&dir, "r.jsonl", "{}\n");
    let dotted = format!("{}/./sub/../sub/x.ptx", s(&dir));
    let cases: Vec<(Vec<&str>, &Path)> = vec![
        // The same spelling, another spelling, a hard link, a symlink, found by a walk.
        (vec!["check", s(&x), "-o", s(&x)], &x),
        (vec!["check", s(&x), "-o", &dotted], &x),
        (vec!["check", s(&x), "--format", "json", "-o", s(&link)], &x),
        (vec!["check", s(&x), "-o", s(&sym)], &x),
        (vec!["check", s(&dir), "--format", "sarif", "-o", s(&x)], &x),
        (vec!["check", s(&x), "--write-baseline", s(&x)], &x),
        (vec!["atoms", s(&records), "-o", s(&records)], &records),
    ];
    for (args, input) in cases {
        let before = std::fs::read(input).unwrap();
        let r = irlint(&args, limit(5));
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.starts_with("error: --") && r.stderr.contains(" is the input "), "{args:?}: {}", r.stderr);
        assert_eq!(std::fs::read(input).unwrap(), before, "{args:?} changed the input");
    }
    assert_eq!(std::fs::read(&x).unwrap(), original);
    // A new file, or another existing file, is written as before.
    let out = dir.join("report.txt");
    let r = irlint(&["check", s(&x), "-o", s(&out)], limit(5));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(std::fs::read_to_string(&out).unwrap().contains("error[ptx-shared-address-misaligned]"));
    let r = irlint(&["check", s(&x), "-o", s(&out)], limit(5));
    assert_eq!(r.code, 1, "{}", r.stderr);
}

// ---------------------------------------------------------------------------
// Class 5: terminal escapes

/// True for a byte that is a C0 control (tab and newline aside), DEL, or
/// starts a C1 control (U+0080..U+009F is `C2 80..C2 9F` in UTF-8).
fn raw_control(out: &[u8]) -> Option<usize> {
    out.iter().enumerate().position(|(i, &b)| {
        (b < 0x20 && b != b'\n' && b != b'\t')
            || b == 0x7f
            || (b == 0xc2 && out.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)))
    })
}

#[test]
fn control_characters_from_inputs_are_escaped_in_text_reports() {
    let dir = scratch("escapes");
    let evil = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\r\u{7f}";
    // A `.file` name, the source line it names (read from disk), and the input's own path.
    let src_name = format!("ev{evil}il.cu");
    let src = format!("int a;\nint b;\n  x = f({evil}); // line 3\n");
    write(&dir, &src_name, &src);
    let text = ptx("k", &format!("{}/{src_name}", s(&dir)), 2, |_| 3);
    let kernel = write(&dir, &format!("k{evil}.ptx"), &text);
    // An unused suppression quotes an unknown rule id with escapes.
    let src2 = format!("x; // irlint: allow(no{evil}rule)\n");
    write(&dir, "s.cu", &src2);
    write(&dir, "s.ptx", ptx("s", &format!("{}/s.cu", s(&dir)), 1, |_| 1));
    std::fs::copy(fixture(), dir.join("fixture.ptx")).unwrap();
    let n = fixture_findings();
    for format in ["human", "github"] {
        for target in [s(&kernel), s(&dir)] {
            let r = irlint(&["check", "--color", "never", "--format", format, target], limit(5));
            assert_eq!(r.code, 1, "{}", r.stderr);
            let out = &r.stdout;
            if let Some(i) = raw_control(out) {
                panic!("raw control byte 0x{:02X} at {i} in {format} output:\n{}", out[i], r.text());
            }
            let t = r.text();
            assert!(t.contains("\\x1B]0;pwned\\x07\\x1B[2J\\u{9B}31m\\x0D\\x7F"), "{format}:\n{t}");
            if target == s(&dir) {
                assert!(t.contains("no\\x1B]0;pwned"), "{format}: the unused suppression's rule id\n{t}");
                let fixture_lines = t.lines().filter(|l| l.contains("fixture.ptx")).count();
                assert!(fixture_lines >= n, "{format}: {fixture_lines} lines for the fixture's {n} findings");
            }
        }
    }
    // `--color always` styles with irlint's own escapes only.
    let r = irlint(&["check", "--color", "always", s(&kernel)], limit(5));
    assert!(!r.text().contains("\u{1b}]0;"), "{}", r.text());
    // JSON escapes by its own rules and keeps the text exact.
    let r = irlint(&["check", "--format", "json", s(&kernel)], limit(5));
    assert!(!r.stdout.iter().any(|&b| b < 0x20 && b != b'\n'), "JSON escapes C0 controls");
    let rep = r.json();
    assert_eq!(rep["findings"][0]["source"]["file"].as_str().unwrap(), format!("{}/{src_name}", s(&dir)));
}

// ---------------------------------------------------------------------------
// Class 6: files irlint reads besides its inputs

/// Specials that must never be read whole or waited on: a FIFO (opening it
/// blocks), `/dev/zero` (endless), `/proc/self/pagemap` (`stat` size 0,
/// gigabytes long).
fn specials(dir: &Path) -> Vec<(PathBuf, &'static str)> {
    let fifo = dir.join("fifo");
    mkfifo(&fifo);
    vec![
        (fifo, "not a regular file (a FIFO)"),
        (PathBuf::from("/dev/zero"), "not a regular file (a character device)"),
        // Read in bounded chunks: the kernel refuses some (EINVAL), or the limit stops it.
        (PathBuf::from("/proc/self/pagemap"), ""),
    ]
}

#[test]
fn config_and_baseline_specials_are_refused_quickly() {
    let dir = scratch("config-specials");
    for (p, why) in specials(&dir) {
        for flag in ["--config", "--baseline"] {
            let r = irlint(&["check", flag, s(&p), s(&fixture())], limit(5));
            assert_eq!(r.code, 2, "{flag} {}: {}", p.display(), r.stderr);
            assert!(r.stderr.contains(why), "{flag} {}: {}", p.display(), r.stderr);
            assert!(r.rss_kb < 128 * 1024, "{flag} {}: {} MB", p.display(), r.rss_kb / 1024);
        }
        // A discovered `irlint.toml` that is a link to it: an input error naming the config.
        let proj = scratch("config-link");
        std::os::unix::fs::symlink(&p, proj.join("irlint.toml")).unwrap();
        std::fs::copy(fixture(), proj.join("a.ptx")).unwrap();
        let r = irlint(&["check", "--format", "json", s(&proj)], limit(5));
        let rep = r.json();
        if why.contains("regular") {
            // Not a regular file: not a config at all; the fixture's findings stand.
            assert_eq!(r.code, 1, "{}: {}", p.display(), r.stderr);
            assert_eq!(findings_of(&rep, "a.ptx"), fixture_findings());
        } else {
            assert_eq!(r.code, 2, "{}: {}", p.display(), r.stderr);
            let err = rep["findings"].as_array().unwrap().iter().find(|d| d["rule"] == "input-error").unwrap();
            assert!(err["path"].as_str().unwrap().ends_with("irlint.toml"), "{err}");
        }
    }
}

#[test]
fn ignore_file_specials_are_errors_not_hangs() {
    for (i, what) in ["fifo", "zero", "pagemap"].into_iter().enumerate() {
        let dir = scratch("gitignore-specials");
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        let holder = scratch("specials");
        let specials = specials(&holder);
        std::os::unix::fs::symlink(&specials[i].0, dir.join(".gitignore")).unwrap();
        std::fs::copy(fixture(), dir.join("a.ptx")).unwrap();
        let r = irlint(&["check", s(&dir)], limit(5));
        assert_eq!(r.code, 2, "{what}: {}", r.stderr);
        assert!(r.stderr.contains(".gitignore"), "{what}: {}", r.stderr);
        // --no-ignore reads no ignore file.
        let r = irlint(&["check", "--no-ignore", s(&dir)], limit(5));
        assert_eq!(r.code, 1, "{what}: {}", r.stderr);
    }
}

#[test]
fn source_files_named_by_debug_info_are_read_bounded() {
    let dir = scratch("source-specials");
    std::fs::copy(fixture(), dir.join("fixture.ptx")).unwrap();
    let n = fixture_findings();
    for (i, (p, _)) in specials(&dir).into_iter().enumerate() {
        let k = write(&dir, &format!("k{i}.ptx"), ptx("k", s(&p), 3, |i| i + 1));
        let r = irlint(&["check", "--format", "json", s(&k)], limit(5));
        assert_eq!(r.code, 1, "{}: {}", p.display(), r.stderr);
        let rep = r.json();
        assert_eq!(findings_of(&rep, &format!("k{i}.ptx")), 3, "{}", p.display());
        assert!(r.rss_kb < 128 * 1024, "{}: {} MB", p.display(), r.rss_kb / 1024);
    }
    let r = irlint(&["check", "--format", "json", s(&dir)], limit(10));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(findings_of(&r.json(), "fixture.ptx"), n);
}

#[test]
fn atoms_input_specials_are_refused_quickly() {
    let dir = scratch("atoms-specials");
    let ok = write(&dir, "ok.jsonl", "{}\n");
    for (p, why) in specials(&dir) {
        let r = irlint(&["atoms", "--format", "json", s(&p), s(&ok)], limit(5));
        assert_eq!(r.code, 2, "{}: {}", p.display(), r.stderr);
        let rep = r.json();
        let msg = rep["files"][0]["message"].as_str().unwrap_or_default().to_string();
        assert!(msg.contains(why), "{}: {msg}", p.display());
        assert_eq!(rep["files"].as_array().unwrap().len(), 2);
        assert!(r.rss_kb < 256 * 1024, "{}: {} MB", p.display(), r.rss_kb / 1024);
    }
}

// ---------------------------------------------------------------------------
// Class 11: reports

#[test]
fn a_huge_function_name_is_cut_in_every_finding() {
    let dir = scratch("long-name");
    let name = format!("k{}", "x".repeat(1 << 20));
    let k = write(&dir, "k.ptx", ptx(&name, "k.cu", 2000, |i| i + 1));
    std::fs::copy(fixture(), dir.join("fixture.ptx")).unwrap();
    for target in [k.as_path(), dir.as_path()] {
        let r = irlint(&["check", "--format", "json", s(target)], limit(5));
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert!(r.stdout.len() < 40 << 20, "report of {} MB", r.stdout.len() >> 20);
        let rep = r.json();
        let f: Vec<&serde_json::Value> = rep["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["path"].as_str().unwrap().ends_with("k.ptx"))
            .collect();
        assert_eq!(f.len(), 2000);
        let func = f[0]["function"].as_str().unwrap();
        assert!(func.len() <= 1024 && func.ends_with('…') && func.starts_with("kxxx"), "{} bytes", func.len());
        if target == dir.as_path() {
            assert_eq!(findings_of(&rep, "fixture.ptx"), fixture_findings());
        }
    }
    let r = irlint(&["check", "--color", "never", s(&k)], limit(5));
    assert!(r.stdout.len() < 40 << 20, "human report of {} MB", r.stdout.len() >> 20);
}

#[test]
fn a_long_source_file_is_indexed_once() {
    let dir = scratch("long-source");
    // 5 M lines (10 MB), findings spread to its end.
    let lines = 5_000_000usize;
    let mut src = "x\n".repeat(lines - 1);
    src.push_str("last = f(); // the end\n");
    write(&dir, "big.cu", &src);
    let k = write(&dir, "k.ptx", ptx("k", "big.cu", 2000, |i| lines - i * 7));
    let r = irlint(&["check", "--format", "json", s(&k)], limit(5));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let rep = r.json();
    assert_eq!(rep["findings"].as_array().unwrap().len(), 2000);
    // The human report shows the source line of the last one.
    let r = irlint(&["check", "--color", "never", s(&k)], limit(5));
    assert!(r.text().contains("last = f(); // the end"), "{}", &r.text()[..2000.min(r.text().len())]);
}

#[test]
fn suppressions_are_looked_up_not_scanned() {
    let dir = scratch("many-suppressions");
    // 150,000 suppression lines (7 MB); 4,000 findings on 2,000 of them, one
    // rule suppressed and one not.
    let lines = 150_000usize;
    let mut src = String::new();
    for i in 0..lines {
        let rule = if i % 2 == 0 { "ptx-shared-address-misaligned" } else { "some-other-rule" };
        src.push_str(&format!("y = {i}; // irlint: allow({rule})\n"));
    }
    write(&dir, "s.cu", &src);
    let k = write(&dir, "k.ptx", ptx("k", "s.cu", 4000, |i| (i % 2000) * 71 + 1));
    std::fs::copy(fixture(), dir.join("fixture.ptx")).unwrap();
    let r = irlint(&["check", "--format", "json", s(&dir)], limit(5));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let rep = r.json();
    let kept: Vec<u64> = rep["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["path"].as_str().unwrap().ends_with("k.ptx") && d["rule"] == "ptx-shared-address-misaligned")
        .map(|d| d["source"]["line"].as_u64().unwrap())
        .collect();
    // Line L is suppressed when line L or L-1 allows the rule: even lines
    // (0-based index i odd, 1-based L = i+1 even) hold `some-other-rule`, and
    // the line above (odd) allows it: every finding is suppressed.
    let _ = k;
    assert!(kept.is_empty(), "{} findings kept", kept.len());
    assert_eq!(findings_of(&rep, "fixture.ptx"), fixture_findings());
    let unused = rep["findings"].as_array().unwrap().iter().filter(|d| d["rule"] == "unused-suppression").count();
    assert!(unused > 0);
}

// ---------------------------------------------------------------------------
// Class 12: walks

fn git_project(name: &str) -> tmp::Scratch {
    let dir = scratch(name);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    dir
}

#[test]
fn a_gitignore_of_many_patterns_is_one_set_or_an_error() {
    let max = 10_000;
    for (patterns, code) in [(max, 1), (20_000, 2)] {
        let dir = git_project("many-patterns");
        let mut gi = String::new();
        for i in 0..patterns {
            gi.push_str(&if i % 2 == 0 { format!("gen_{i}_*.tmp\n") } else { format!("build{i}/\n") });
        }
        write(&dir, ".gitignore", &gi);
        for d in 0..20 {
            let sub = dir.join(format!("d{d}/e"));
            std::fs::create_dir_all(&sub).unwrap();
            for f in 0..10 {
                std::fs::copy(fixture(), sub.join(format!("f{f}.ptx"))).unwrap();
            }
        }
        let r = irlint(&["check", "--format", "json", s(&dir)], limit(5));
        assert_eq!(r.code, code, "{patterns}: {}", r.stderr);
        if code == 2 {
            assert!(r.stderr.contains(".gitignore: more than 10000 patterns"), "{}", r.stderr);
        } else {
            assert_eq!(r.json()["files"].as_array().unwrap().len(), 200);
        }
    }
}

/// A tree 1,500 directories deep with an ignore file every 25 levels (name
/// and anchored patterns), files at the bottom and along the way.
#[test]
fn deep_trees_are_matched_incrementally() {
    let dir = git_project("deep");
    write(&dir, ".gitignore", "*.skip\n");
    let mut p = dir.clone();
    for level in 0..1500 {
        p.push("d");
        std::fs::create_dir(&p).unwrap();
        if level % 100 == 0 {
            std::fs::copy(fixture(), p.join("f.ptx")).unwrap();
            write(&p, "x.skip", "ignored");
        }
        if level % 25 == 0 {
            write(&p, ".gitignore", format!("*.l{level}\n!keep.l{level}\nd/d/*.anchored\n"));
        }
        if level == 1477 {
            // Two levels below the ignore file of level 1475.
            write(&p, "b.anchored", "ignored");
        }
    }
    for f in 0..50 {
        std::fs::copy(fixture(), p.join(format!("f{f}.ptx"))).unwrap();
    }
    write(&p, "a.skip", "ignored");
    let r = irlint(&["check", "--format", "json", s(&dir)], limit(5));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let rep = r.json();
    let files = rep["files"].as_array().unwrap();
    assert_eq!(files.len(), 15 + 50, "{}", r.secs);
    assert!(files.iter().all(|f| f["path"].as_str().unwrap().ends_with(".ptx")));
    // More nested ignore files on one path than the limit: an error naming one.
    let dir = git_project("deep-ignores");
    let mut p = dir.clone();
    for level in 0..70 {
        p.push("d");
        std::fs::create_dir(&p).unwrap();
        write(&p, ".gitignore", format!("*.l{level}\n"));
    }
    std::fs::copy(fixture(), p.join("f.ptx")).unwrap();
    let r = irlint(&["check", s(&dir)], limit(5));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("more than 64 nested directories with ignore files on one path"), "{}", r.stderr);
}

#[test]
fn config_globs_are_capped() {
    for (globs, code) in [(1024usize, 1), (70_000, 2)] {
        let dir = scratch("globs");
        let list: Vec<String> = (0..globs).map(|i| format!("\"g/**/{i}*\"")).collect();
        write(&dir, "irlint.toml", format!("exclude = [{}]\n", list.join(", ")));
        for d in 0..10 {
            let sub = dir.join(format!("s{d}"));
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::copy(fixture(), sub.join("a.ptx")).unwrap();
        }
        let r = irlint(&["check", "--format", "json", s(&dir)], limit(5));
        assert_eq!(r.code, code, "{globs}: {}", r.stderr);
        let rep = r.json();
        if code == 2 {
            let err = rep["findings"].as_array().unwrap().iter().find(|d| d["rule"] == "input-error").unwrap();
            let msg = err["message"].as_str().unwrap();
            assert!(msg.contains("irlint.toml") || err["path"].as_str().unwrap().ends_with("irlint.toml"), "{err}");
            assert!(msg.contains("70000 globs, over the limit of 1024"), "{msg}");
        }
        // --config names it: a usage error.
        let r = irlint(&["check", "--config", s(&dir.join("irlint.toml")), s(&fixture())], limit(5));
        assert_eq!(r.code, if code == 2 { 2 } else { 1 }, "{}", r.stderr);
    }
    // A config over 1 MiB (70,000 globs of 40 bytes: 3 MB).
    let dir = scratch("big-config");
    let list: Vec<String> = (0..70_000).map(|i| format!("\"generated/shaders/**/variant_{i:06}_*.spv\"")).collect();
    write(&dir, "irlint.toml", format!("exclude = [{}]\n", list.join(", ")));
    let r = irlint(&["check", "--config", s(&dir.join("irlint.toml")), s(&fixture())], limit(5));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("irlint.toml: file is 3150011 bytes, over the 1048576-byte config limit"),
        "{}",
        r.stderr
    );
    // One glob over 1,024 bytes.
    let dir = scratch("long-glob");
    write(&dir, "irlint.toml", format!("exclude = [\"{}\"]\n", "a".repeat(2000)));
    let r = irlint(&["check", "--config", s(&dir.join("irlint.toml")), s(&fixture())], limit(5));
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("a glob of 2000 bytes in `exclude`, over the 1024-byte limit"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------
// Class 15: `irlint atoms` record counts

#[test]
fn atoms_record_counts_are_capped() {
    let dir = scratch("atoms-many");
    let ok = write(&dir, "ok.jsonl", "{}\n");
    let jsonl = write(&dir, "many.jsonl", "{}\n".repeat(3_000_000));
    let array = write(&dir, "many.json", format!("[{}{{}}]", "{},".repeat(3_000_000)));
    for p in [&jsonl, &array] {
        let r = irlint(&["atoms", "--format", "json", s(p), s(&ok)], limit(5));
        assert_eq!(r.code, 2, "{}", r.stderr);
        let rep = r.json();
        let msg = rep["files"][0]["message"].as_str().unwrap();
        assert!(msg.starts_with("3000001 records") || msg.starts_with("3000000 records"), "{msg}");
        assert!(msg.contains("over the limit of 65536 per input"), "{msg}");
        assert_eq!(rep["results"].as_array().unwrap().len(), 1, "the other input still runs");
    }
    // At the limit: every record runs.
    let at = write(&dir, "at.jsonl", "{}\n".repeat(65_536));
    let r = irlint(&["atoms", "--format", "json", s(&at)], limit(10));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(r.json()["results"].as_array().unwrap().len(), 65_536);
}

// ---------------------------------------------------------------------------
// Class 16: `-j`

#[test]
fn absurd_job_counts_are_usage_errors() {
    for j in ["100000", "18446744073709551615"] {
        let r = irlint(&["check", "-j", j, s(&fixture())], limit(5));
        assert_eq!(r.code, 2, "{j}");
        assert!(r.stderr.contains(&format!("-j {j}: at most ")), "{}", r.stderr);
        assert!(r.stdout.is_empty());
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max = (cores * 4).max(64).to_string();
    let r = irlint(&["check", "--format", "json", "-j", &max, s(&fixture())], limit(5));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(findings_of(&r.json(), "shared_address.ptx"), fixture_findings());
}
