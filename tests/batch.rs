//! Batch runs (issue 16): the walk's order and cost model, streamed output
//! equal to the collected report, and the same JSON at every `-j`.

mod common;
use common::{irlint, TempDir};

use irlint::input::batch::{Batch, BatchOptions};
use irlint::input::discover;
use irlint::input::pipeline::Source;
use irlint::report::stream::{CollectSink, GithubSink, JsonSink, Spill};
use irlint::report::{self, Format};
use std::io::Write;
use std::path::PathBuf;

/// The JSON text with the timing (the only varying figure) zeroed.
fn zero_seconds(json: &str) -> String {
    json.lines()
        .map(|l| match l.find("\"seconds\": ") {
            Some(i) => format!("{}\"seconds\": 0", &l[..i]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Up to `n` files of each corpus folder, copied twice under names that sort
/// differently per component and as whole paths (`set-b` before `set/`).
fn copied_corpus(tag: &str, n: usize) -> Option<TempDir> {
    let corpus = common::shared("corpus")?;
    let d = TempDir::new(tag);
    for copy in ["set", "set-b"] {
        for sub in ["dxil", "spirv", "dxbc", "ptx"] {
            let mut files = common::files_with_suffix(&corpus.join(sub), "");
            files.truncate(n);
            for (i, f) in files.iter().enumerate() {
                let dir = d.path().join(copy).join(sub).join(format!("g{}", i % 3));
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::copy(f, dir.join(f.file_name().unwrap())).unwrap();
            }
        }
    }
    // A file beside the folders whose name sorts between `set` and `set/`.
    std::fs::write(d.path().join("set.bin"), b"not a shader").unwrap();
    Some(d)
}

#[test]
fn json_is_the_same_at_every_jobs_count() {
    let Some(d) = copied_corpus("jobs", 60) else { return };
    let out: Vec<String> = ["1", "2", "4"]
        .iter()
        .map(|j| {
            let o = irlint().current_dir(d.path()).args(["check", ".", "--format", "json", "-j", j]).output().unwrap();
            assert!(o.status.code().is_some_and(|c| c <= 2), "{o:?}");
            zero_seconds(&String::from_utf8(o.stdout).unwrap())
        })
        .collect();
    assert_eq!(out[0], out[1], "-j 1 and -j 2 differ");
    assert_eq!(out[0], out[2], "-j 1 and -j 4 differ");
    let v: serde_json::Value = serde_json::from_str(&out[0]).unwrap();
    let paths: Vec<&str> = v["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted, "files are in report order");
    assert!(paths.contains(&"./set.bin") && paths.iter().any(|p| p.starts_with("./set-b/")));
}

#[test]
fn streamed_reports_equal_the_collected_report() {
    let Some(d) = copied_corpus("stream", 40) else { return };
    let paths = [d.path().join("set"), d.path().join("set-b"), d.path().join("set.bin")];
    let batch = Batch::new(BatchOptions { jobs: Some(3), ..Default::default() });
    let mut collect = CollectSink::default();
    let (tally, _) = batch.stream(Source::Paths(&paths), &mut collect).unwrap();
    let run = collect.report;
    assert!(!run.diagnostics.is_empty() && run.files.len() > 200);
    assert_eq!(tally.exit_code(), run.exit_code());
    assert_eq!(tally.counts, run.counts());
    assert_eq!(tally.skipped, run.skipped().count());

    let mut json = Vec::new();
    let mut sink = JsonSink::new(&mut json).unwrap();
    batch.stream(Source::Paths(&paths), &mut sink).unwrap();
    drop(sink);
    assert_eq!(
        zero_seconds(std::str::from_utf8(&json).unwrap()),
        zero_seconds(&report::render(&run, Format::Json, false, false))
    );

    let mut github = Vec::new();
    batch.stream(Source::Paths(&paths), &mut GithubSink::new(&mut github)).unwrap();
    assert_eq!(String::from_utf8(github).unwrap(), report::render(&run, Format::Github, false, false));

    // The inputs in walk order are the report's order, and `Batch::run` agrees.
    let inputs = discover::discover(&paths);
    let displays: Vec<_> = inputs.iter().map(|i| i.display.clone()).collect();
    let mut sorted = displays.clone();
    sorted.sort();
    assert_eq!(displays, sorted);
    let again = batch.run(&inputs);
    assert_eq!(again.files, run.files);
    assert_eq!(again.diagnostics, run.diagnostics);
}

#[test]
fn empty_runs_stream_the_empty_report() {
    let d = TempDir::new("empty");
    let batch = Batch::new(BatchOptions::default());
    let mut json = Vec::new();
    let mut sink = JsonSink::new(&mut json).unwrap();
    let (_, stats) = batch.stream(Source::Paths(&[d.path().to_path_buf()]), &mut sink).unwrap();
    drop(sink);
    let empty = report::RunReport { stats, ..Default::default() };
    assert_eq!(String::from_utf8(json).unwrap(), report::render(&empty, Format::Json, false, false));
}

#[test]
fn walk_order_is_string_order() {
    let d = TempDir::new("order");
    for f in ["a/x.bin", "a-b.bin", "a.bin", "a0/y.bin", "b/c/d.bin", "b/c-d.bin", "b/c.d/e.bin", "B.bin"] {
        let p = d.path().join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, b"x").unwrap();
    }
    let inputs = discover::discover(&[d.path().to_path_buf()]);
    let rel: Vec<String> =
        inputs.iter().map(|i| i.path.strip_prefix(d.path()).unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(rel, ["B.bin", "a-b.bin", "a.bin", "a/x.bin", "a0/y.bin", "b/c-d.bin", "b/c.d/e.bin", "b/c/d.bin"]);
    // Paths inside one another: each file once, in string order.
    let inputs = discover::discover(&[d.path().join("b"), d.path().join("a"), d.path().join("b/c")]);
    let n: Vec<_> = inputs.iter().map(|i| i.display.rsplit('/').next().unwrap().to_string()).collect();
    assert_eq!(n, ["x.bin", "c-d.bin", "e.bin", "d.bin"]);
}

#[cfg(unix)]
#[test]
fn links_are_listed_once_and_configs_come_from_the_listings() {
    let d = TempDir::new("links");
    std::fs::create_dir_all(d.path().join("real/sub")).unwrap();
    std::fs::write(d.path().join("real/sub/f.bin"), b"x").unwrap();
    std::fs::write(d.path().join("real/irlint.toml"), b"").unwrap();
    std::fs::hard_link(d.path().join("real/sub/f.bin"), d.path().join("real/hard.bin")).unwrap();
    std::os::unix::fs::symlink(d.path().join("real"), d.path().join("link")).unwrap();
    std::os::unix::fs::symlink(d.path().join("real/sub/f.bin"), d.path().join("file-link.bin")).unwrap();
    std::os::unix::fs::symlink(d.path().join("nowhere"), d.path().join("broken.bin")).unwrap();
    let inputs = discover::discover(&[d.path().to_path_buf()]);
    let rel: Vec<String> =
        inputs.iter().map(|i| i.path.strip_prefix(d.path()).unwrap().to_string_lossy().into_owned()).collect();
    // `file-link.bin` comes first and stands for f.bin (and its hard link);
    // `link/` is walked before `real/`, which is then the same directory.
    assert_eq!(rel, ["broken.bin", "file-link.bin"]);
    let real = discover::discover(&[d.path().join("real")]);
    assert_eq!(real.len(), 1, "a hard link is the same file: {real:?}");
    let config = real[0].config.as_deref().expect("config found");
    assert_eq!(config, &std::path::absolute(d.path().join("real/irlint.toml")).unwrap());
}

#[test]
fn spill_keeps_the_bytes_in_order() {
    let mut s = Spill::default();
    let chunk: Vec<u8> = (0..=255u8).cycle().take(300_000).collect();
    for _ in 0..10 {
        s.write_all(&chunk).unwrap();
    }
    let mut out = Vec::new();
    s.drain_into(&mut out).unwrap();
    assert_eq!(out.len(), 3_000_000);
    assert!(out.chunks(300_000).all(|c| c == chunk.as_slice()));
}

#[test]
fn large_runs_spill_the_file_list_and_still_match() {
    // 10,000 entries of `files` (~1.7 MB) are over the 1 MiB kept in memory.
    let d = TempDir::new("spill");
    for i in 0..100 {
        let dir = d.path().join(format!("d{i:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for j in 0..100 {
            std::fs::write(dir.join(format!("f{j:03}.bin")), [i as u8, j as u8]).unwrap();
        }
    }
    let paths = [d.path().to_path_buf()];
    let batch = Batch::new(BatchOptions { jobs: Some(2), ..Default::default() });
    let mut collect = CollectSink::default();
    batch.stream(Source::Paths(&paths), &mut collect).unwrap();
    assert_eq!(collect.report.files.len(), 10_000);
    let mut json = Vec::new();
    let mut sink = JsonSink::new(&mut json).unwrap();
    batch.stream(Source::Paths(&paths), &mut sink).unwrap();
    drop(sink);
    assert!(json.len() > Spill::LIMIT + Spill::LIMIT / 2);
    let expected = report::render(&collect.report, Format::Json, false, false);
    assert_eq!(zero_seconds(std::str::from_utf8(&json).unwrap()), zero_seconds(&expected));
}

/// The streaming sinks' exit code (`Tally`) follows `RunReport::exit_code` in every case.
#[test]
fn tally_exit_codes_follow_the_report() {
    let d = TempDir::new("exit");
    std::fs::write(d.path().join("text.bin"), b"nothing to see").unwrap();
    let mut cases: Vec<(Vec<PathBuf>, Option<i32>)> = vec![
        (vec![d.path().join("text.bin")], Some(0)),
        (vec![d.path().join("missing.spv")], Some(2)),
        (vec![d.path().to_path_buf()], Some(0)),
    ];
    if let Some(corpus) = common::shared("corpus") {
        // Findings without input errors, and everything.
        let findings = common::files_with_suffix(&corpus.join("dxil"), ".dxil");
        cases.push((findings, None));
        cases.push((vec![corpus], None));
    }
    let batch = Batch::new(BatchOptions { jobs: Some(2), ..Default::default() });
    for (paths, expected) in cases {
        let mut collect = CollectSink::default();
        let (tally, _) = batch.stream(Source::Paths(&paths), &mut collect).unwrap();
        let run = collect.report;
        assert_eq!(tally.exit_code(), run.exit_code(), "{paths:?}");
        assert_eq!(tally.counts, run.counts(), "{paths:?}");
        assert_eq!(tally.skipped, run.skipped().count(), "{paths:?}");
        if let Some(e) = expected {
            assert_eq!(run.exit_code(), e, "{paths:?}");
        }
    }
}

/// A diagnostic located elsewhere than its input (a broken `irlint.toml` at
/// its own path) is held by a streaming sink and merged in report order.
#[test]
fn held_diagnostics_merge_into_the_stream() {
    use irlint::report::stream::{prerender, Chunk, Sink};
    use irlint::report::{Certainty, Diagnostic, Level, RunReport, Stats};
    let diag = |path: &str, msg: &str| {
        let mut d = Diagnostic::new("input-error", Level::Error, Certainty::Proven, msg.to_string());
        d.location.path = path.into();
        d
    };
    let own = [
        ("a.spv", vec![diag("a.spv", "x")]),
        ("c.spv", vec![diag("c.spv", "y"), diag("c.spv", "z")]),
        ("d.spv", vec![diag("d.spv", "w")]),
    ];
    let foreign = [diag("b/irlint.toml", "broken"), diag("z.toml", "last")];
    let mut all: Vec<Diagnostic> = own.iter().flat_map(|(_, d)| d.clone()).chain(foreign.iter().cloned()).collect();
    all.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let expected = RunReport { diagnostics: all, ..Default::default() };
    for format in [Format::Json, Format::Github] {
        let mut out = Vec::new();
        {
            let mut sink: Box<dyn Sink + '_> = match format {
                Format::Json => Box::new(JsonSink::new(&mut out).unwrap()),
                _ => Box::new(GithubSink::new(&mut out)),
            };
            let p = sink.prerender();
            let mut first = Chunk::default();
            prerender(&p, own[0].0, &[], &own[0].1, &mut first);
            sink.input(Vec::new(), vec![foreign[0].clone()], Some(first)).unwrap();
            let mut second = Chunk::default();
            for (path, d) in &own[1..] {
                prerender(&p, path, &[], d, &mut second);
            }
            sink.input(Vec::new(), vec![foreign[1].clone()], Some(second)).unwrap();
            sink.finish(&Stats::default()).unwrap();
        }
        assert_eq!(String::from_utf8(out).unwrap(), report::render(&expected, format, false, false), "{format}");
    }
}

/// A broken `irlint.toml` is reported once, at its own path, by the first input
/// under it in report order: the streamed JSON and GitHub output place it as
/// the collected report does, at every -j.
#[test]
fn a_broken_config_is_reported_once_in_report_order() {
    let d = TempDir::new("badconfig");
    for (f, text) in [
        ("a/bad.spv", "garbage"),
        ("c/irlint.toml", "not [valid"),
        ("c/a.bin", "x"),
        ("c/sub/x.bin", "x"),
        ("c/z.spv", "x"),
        ("d/bad.spv", "garbage"),
    ] {
        let p = d.path().join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
    let paths = [d.path().join("a"), d.path().join("c"), d.path().join("d")];
    for jobs in [1, 2, 4] {
        let batch = Batch::new(BatchOptions { jobs: Some(jobs), ..Default::default() });
        let mut collect = CollectSink::default();
        batch.stream(Source::Paths(&paths), &mut collect).unwrap();
        let run = collect.report;
        let config_errors = run.diagnostics.iter().filter(|d| d.message.starts_with("configuration error")).count();
        assert_eq!(config_errors, 1, "{:#?}", run.diagnostics);
        let mut json = Vec::new();
        let mut sink = JsonSink::new(&mut json).unwrap();
        batch.stream(Source::Paths(&paths), &mut sink).unwrap();
        drop(sink);
        let expected = report::render(&run, Format::Json, false, false);
        assert_eq!(zero_seconds(std::str::from_utf8(&json).unwrap()), zero_seconds(&expected), "-j {jobs}");
        let mut github = Vec::new();
        batch.stream(Source::Paths(&paths), &mut GithubSink::new(&mut github)).unwrap();
        assert_eq!(String::from_utf8(github).unwrap(), report::render(&run, Format::Github, false, false));
    }
}
