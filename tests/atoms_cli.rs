//! `irlint atoms`: round trips through the binary — a file mixing every
//! verifier with valid and invalid records, JSON Lines, stdin, malformed
//! records among good ones, file-level errors, and every report format.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

const MIXED: &str = "tests/data/atoms/mixed.json";

fn irlint() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_irlint"));
    c.current_dir(env!("CARGO_MANIFEST_DIR")).env_remove("GITHUB_ACTIONS").env("NO_COLOR", "1");
    c
}

fn run(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut c = irlint();
    c.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    if let Some(text) = stdin {
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    } else {
        drop(child.stdin.take());
    }
    let Output { status, stdout, stderr } = child.wait_with_output().unwrap();
    (status.code().unwrap_or(-1), String::from_utf8(stdout).unwrap(), String::from_utf8(stderr).unwrap())
}

fn json(args: &[&str], stdin: Option<&str>) -> (i32, Value) {
    let (code, out, err) = run(args, stdin);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, v)
}

/// `(id, ok, rule, message, value)` of each result.
fn rows(v: &Value) -> Vec<(Value, bool, Value, Value, Value)> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (r["id"].clone(), r["ok"].as_bool().unwrap(), r["rule"].clone(), r["message"].clone(), r["value"].clone())
        })
        .collect()
}

#[test]
fn mixed_file_json_results_in_input_order() {
    let (code, v) = json(&["atoms", "--format", "json", MIXED], None);
    assert_eq!(code, 2, "input errors among the records: exit 2");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 22);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r["index"], i);
        assert_eq!(r["path"], MIXED);
        let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        let mut want = vec!["path", "index", "id", "verifier", "ok", "rule", "message", "value"];
        want.sort_unstable();
        let mut got = keys.clone();
        got.sort_unstable();
        assert_eq!(got, want);
    }
    let s = |x: &str| Value::String(x.to_string());
    let n = Value::Null;
    let want: Vec<(Value, bool, Value, Value, Value)> = vec![
        (s("worked-0x42"), false, s("atom-tcgen05-kind"), s("INT8 type is supported only on arch-conditional variants."), n.clone()),
        (s("worked-0x42-arch"), true, n.clone(), n.clone(), serde_json::json!({"opcode": 10522})),
        (s("worked-0xE2"), false, s("atom-tcgen05-kind"), s("Block scale is not supported for f16, tf32, f8f6f4, and i8 types"), n.clone()),
        (s("colletor"), false, s("atom-tcgen05-kind"), s("Cannot use collector::a::use or colletor::a::fill with ashift"), n.clone()),
        (s("k-sw128"), true, n.clone(), n.clone(), serde_json::json!({"elem_class": 2, "k_size": 16, "mn_size": 128})),
        (s("k-pitch"), false, s("atom-umma-canonical-layout"), s("Not a canonical UMMA_K Layout: Expected stride failure."), n.clone()),
        (s("bad-swizzle"), false, s("atom-umma-canonical-layout"), s("unsupported swizzle, got Sw<3,3,3>"), n.clone()),
        (s("mn-multiple"), false, s("atom-umma-canonical-layout"), s("Not a canonical UMMA_K Layout: Expected MN-size multiple of 8."), n.clone()),
        (Value::from(7), true, n.clone(), n.clone(), serde_json::json!({"registers": 4})),
        (n.clone(), false, s("atom-ldsm-mode"), s("`num_matrices` is 4, expected 1 or 2 for mode MT1616"), n.clone()),
        (s("st16x8"), true, n.clone(), n.clone(), serde_json::json!({"registers": 4})),
        (s("copy"), false, s("atom-matrix-copy"), s("`shared_alignment` is 8, expected a multiple of 16 bytes (16-byte row addresses)"), n.clone()),
        (s("frag"), true, n.clone(), n.clone(), serde_json::json!({"registers": 4})),
        (s("sm120"), false, s("atom-sm120-block-scale"), s("`a_type` is e4m3, expected e2m1 when k is 64"), n.clone()),
        (s("sm120-ok"), true, n.clone(), n.clone(), n.clone()),
        (
            s("swz"),
            false,
            s("atom-swizzle-commutation"),
            s("`offset` is 32, expected a multiple of 1024 bytes (the swizzle period) for the offset to commute with the swizzle"),
            n.clone(),
        ),
        (s("swz-ok"), true, n.clone(), n.clone(), serde_json::json!({"period": 1024})),
        (s("tma"), false, s("atom-tma-rank-mode"), s("`rank` is 2, expected 3 to 5 for mode im2col"), n.clone()),
        (s("tma-ok"), true, n.clone(), n.clone(), serde_json::json!({"rank": 4})),
        (s("malformed"), false, s("input-error"), s("key `mode`: unknown value \"M99\" (one of: M88, MT88, M816, M832, MT1616)"), n.clone()),
        (s("missing"), false, s("input-error"), s("key `swizzle`: missing"), n.clone()),
        (serde_json::json!({"op": 3}), false, s("input-error"), s("key `rank`: expected an integer, got \"two\""), n.clone()),
    ];
    let got = rows(&v);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "record {i}");
    }
    // Every verifier appears, valid and invalid.
    let verifiers: std::collections::BTreeSet<&str> =
        v["results"].as_array().unwrap().iter().filter_map(|r| r["verifier"].as_str()).collect();
    assert_eq!(verifiers.len(), 9, "{verifiers:?}");
    // Findings: one per failing record, input errors name index, id and key.
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 14);
    let input_errors: Vec<&str> =
        findings.iter().filter(|f| f["rule"] == "input-error").map(|f| f["message"].as_str().unwrap()).collect();
    assert_eq!(
        input_errors,
        [
            "record 19 (id \"malformed\"): key `mode`: unknown value \"M99\" (one of: M88, MT88, M816, M832, MT1616)",
            "record 20 (id \"missing\"): key `swizzle`: missing",
            "record 21 (id {\"op\":3}): key `rank`: expected an integer, got \"two\"",
        ]
    );
    assert_eq!(findings[0]["function"], "record 0 (id \"worked-0x42\")");
    // Each record's line in the file (the array starts on line 1).
    let lines: Vec<u64> = findings.iter().map(|f| f["source"]["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [2, 4, 5, 7, 8, 9, 11, 13, 15, 17, 19, 21, 22, 23]);
    assert!(findings.iter().all(|f| f["source"]["file"] == MIXED));
    assert_eq!(findings[0]["values"]["verifier"], "tcgen05-kind");
    assert_eq!(v["files"][0]["kind"], "atoms");
    assert_eq!(v["stats"]["modules"], 22);
}

#[test]
fn only_valid_records_exit_0_findings_exit_1() {
    let ok = r#"[{"verifier": "tma", "mode": "tile", "rank": 3, "target": "sm_90"},
                 {"verifier": "tcgen05-kind", "raw": 66, "isa": "sm_100a"}]"#;
    let (code, out, _) = run(&["atoms", "-"], Some(ok));
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.trim(), "0 errors, 0 warnings in 1 file");
    let bad = r#"[{"verifier": "tcgen05-kind", "raw": 66, "isa": "sm_103a"}]"#;
    let (code, out, _) = run(&["atoms", "-"], Some(bad));
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "error[atom-tcgen05-kind]: INT8 type is supported only on arch-conditional variants.\n  --> <stdin>:1\n   = note: in <stdin> (record 0)\n\n1 error, 0 warnings in 1 file\n"
    );
}

#[test]
fn json_lines_from_stdin_with_a_malformed_line_among_good_ones() {
    let text = concat!(
        "{\"verifier\": \"swizzle-commutation\", \"id\": \"a\", \"swizzle\": [2, 4, 3], \"offset\": 512}\n",
        "\n",
        "{\"verifier\": \"tma\", \"id\": \"b\", \"mode\": \n",
        "{\"verifier\": \"register-fragment\", \"id\": \"c\", \"layout\": \"(4,2):(2,1)\", \"register_count\": 7}\n",
        "[1, 2]\n",
        "{\"verifier\": \"umma-layout\", \"id\": \"d\", \"direction\": \"MN\", \"elem_bits\": 32, \"swizzle\": [2, 5, 2], \"layout\": \"((32,4),(4,2)):((1,128),(32,512))\"}\n",
        "{\"verifier\": \"ldsm\", \"id\": \"e\", \"mode\": \"M88\", \"size\": \"u16\", \"num_matrices\": 2, \"transpose\": false, \"result_shape\": [2], \"extra\": 1}\n",
    );
    let (code, v) = json(&["atoms", "--format", "json", "-"], Some(text));
    assert_eq!(code, 2);
    let got = rows(&v);
    assert_eq!(got.len(), 6, "blank lines are skipped");
    assert_eq!(got[0].4, serde_json::json!({"period": 512}));
    assert_eq!(got[1].2, "input-error");
    assert!(got[1].3.as_str().unwrap().starts_with("invalid JSON: "), "{:?}", got[1].3);
    assert_eq!(got[2].3, "`register_count` is 7, expected 8 (the cosize of the layout)");
    assert_eq!(got[3].3, "a record is a JSON object, got an array");
    assert_eq!(got[4].4, serde_json::json!({"elem_class": 3, "k_size": 8, "mn_size": 128}));
    assert_eq!(
        got[5].3,
        "key `extra`: unknown key for verifier ldsm (keys: id, mode, size, num_matrices, transpose, result_shape)"
    );
    assert_eq!(v["results"][0]["path"], "<stdin>");
    // Lines count the blank line: records start on lines 1, 3, 4, 5, 6, 7.
    let lines: Vec<u64> =
        v["findings"].as_array().unwrap().iter().map(|f| f["source"]["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [3, 4, 5, 7]);
}

#[test]
fn several_files_keep_their_order_and_a_bad_file_does_not_stop_the_others() {
    let dir = std::env::temp_dir().join(format!("irlint-atoms-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "[{\"verifier\": \"tma\",").unwrap();
    let jsonl = dir.join("one.jsonl");
    std::fs::write(
        &jsonl,
        "{\"verifier\": \"tma\", \"mode\": \"tile::gather4\", \"rank\": 2, \"target\": \"sm_90a\"}\n",
    )
    .unwrap();
    let missing = dir.join("missing.json");
    let (b, j, m) = (broken.to_str().unwrap(), jsonl.to_str().unwrap(), missing.to_str().unwrap());
    let (code, v) = json(&["atoms", "--format", "json", b, j, m], None);
    assert_eq!(code, 2);
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(
        (files[0]["status"].as_str(), files[1]["status"].as_str(), files[2]["status"].as_str()),
        (Some("error"), Some("ok"), Some("error"))
    );
    assert!(files[0]["message"].as_str().unwrap().starts_with("invalid JSON array of records: "));
    assert!(files[2]["message"].as_str().unwrap().starts_with("cannot read: "));
    let got = rows(&v);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].3, "`target` is sm_90a, expected sm_100 or later for mode tile::gather4");
    let (code, out, _) = run(&["atoms", b], None);
    assert_eq!(code, 2);
    assert!(
        out.contains("broken.json\n") && out.contains("error[input-error]: invalid JSON array of records"),
        "{out}"
    );
    assert!(out.contains(", 1 input error in 1 file"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sarif_and_github_formats() {
    let (code, v) = json(&["atoms", "--format", "sarif", MIXED], None);
    assert_eq!(code, 2);
    let run0 = &v["runs"][0];
    let results = run0["results"].as_array().unwrap();
    assert_eq!(results.len(), 11);
    assert_eq!(results[0]["ruleId"], "atom-tcgen05-kind");
    // The record's line is the primary location; the record itself a related one.
    assert_eq!(results[0]["relatedLocations"][0]["logicalLocations"][0]["name"], "record 0 (id \"worked-0x42\")");
    let rules: Vec<&str> =
        run0["tool"]["driver"]["rules"].as_array().unwrap().iter().filter_map(|r| r["id"].as_str()).collect();
    for id in ["atom-ldsm-mode", "atom-umma-canonical-layout", "atom-tcgen05-kind", "atom-tma-rank-mode"] {
        assert!(rules.contains(&id), "{id}");
    }
    assert_eq!(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 2);
    let notes = run0["invocations"][0]["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notes.len(), 3);
    let (code, out, _) = run(&["atoms", "--format", "github", MIXED], None);
    assert_eq!(code, 2);
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("::error file=tests/data/atoms/mixed.json,line=2,title=atom-tcgen05-kind::INT8 type is supported only on arch-conditional variants."),
        "{first}"
    );
    assert_eq!(out.lines().filter(|l| l.starts_with("::error")).count(), 14);
}

#[test]
fn explain_and_rules_know_the_atom_rules() {
    let (code, out, _) = run(&["explain", "atom-tcgen05-kind"], None);
    assert_eq!(code, 0);
    assert!(out.starts_with("atom-tcgen05-kind (default: error)"), "{out}");
    assert!(out.contains("## What it does") && out.contains("colletor"), "{out}");
    let (_, out, _) = run(&["rules"], None);
    for rule in irlint::atoms::AtomRule::ALL {
        assert!(out.lines().any(|l| l.starts_with(rule.id())), "{rule}");
    }
    let (code, _, err) = run(&["atoms"], None);
    assert_eq!(code, 2, "{err}");
}
