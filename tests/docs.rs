//! Documentation stays in sync with the code.

mod common;

#[test]
fn limits_page_names_every_limit() {
    let src = std::fs::read_to_string(common::root().join("src/read/limits.rs")).expect("limits.rs");
    let doc = std::fs::read_to_string(common::root().join("docs/limits.md")).expect("docs/limits.md");
    let names: Vec<&str> =
        src.lines().filter_map(|l| l.trim().strip_prefix("pub const ")).filter_map(|l| l.split(':').next()).collect();
    assert!(names.len() >= 10);
    for n in names {
        assert!(doc.contains(&format!("`{n}`")), "docs/limits.md does not document {n}");
    }
}

#[test]
fn readme_has_the_two_commands() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).expect("README");
    assert!(readme.contains("cargo run --release -- check shaders/examples"));
    assert!(readme.contains("\ncargo test\n"));
    let ci = std::fs::read_to_string(common::root().join(".ci/run")).expect(".ci/run");
    assert!(ci.contains("\ncargo test\n"), ".ci/run calls the README's test command");
}

#[test]
fn every_rule_has_a_doc_page() {
    for r in irlint::rules::registry() {
        let p = common::root().join(format!("docs/rules/{}.md", r.id));
        assert!(p.is_file(), "missing {}", p.display());
    }
}

/// The rows of the first Markdown table after `after` whose header starts with `header`:
/// each row's cells.
fn table_rows(doc: &str, after: &str, header: &str) -> Vec<Vec<String>> {
    let start = doc.find(after).unwrap_or_else(|| panic!("`{after}` not found"));
    let rest = &doc[start..];
    let t = rest.find(header).unwrap_or_else(|| panic!("table `{header}` not found after `{after}`"));
    rest[t..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect())
        .collect()
}

/// The `code` spans of a table cell that are identifiers (not quoted values).
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).filter(|s| !s.starts_with('"')).map(str::to_string).collect()
}

#[test]
fn readme_rule_tables_match_the_registry() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).expect("README");
    let mut rows = table_rows(&readme, "# irlint", "| rule | default |");
    rows.extend(table_rows(&readme, "matrix-atom rules", "| rule | default |"));
    let registry = irlint::rules::registry();
    for r in registry {
        let level = r.default_level.map(|l| l.as_str()).unwrap_or("off");
        let row = rows
            .iter()
            .find(|row| code_spans(&row[0]) == [r.id])
            .unwrap_or_else(|| panic!("README.md's rule table has no row for `{}`", r.id));
        assert_eq!(row[1], level, "README.md: default level of {}", r.id);
    }
    assert_eq!(rows.len(), registry.len(), "README.md lists rules the registry does not have: {rows:?}");
}

/// `values` keys each rule writes, per docs/diagnostics.md: `(rule, keys, optional)`;
/// a key followed by `(when …)` is optional.
fn documented_value_keys() -> Vec<(String, Vec<String>, Vec<String>)> {
    let doc = std::fs::read_to_string(common::root().join("docs/diagnostics.md")).expect("diagnostics.md");
    let mut out = Vec::new();
    for row in table_rows(&doc, "## JSON report", "| rule | value keys |") {
        let parts: Vec<&str> = row[1].split('`').collect();
        let mut keys = Vec::new();
        let mut optional = Vec::new();
        for i in (1..parts.len()).step_by(2) {
            if parts[i].starts_with('"') {
                continue;
            }
            keys.push(parts[i].to_string());
            if parts.get(i + 1).is_some_and(|after| after.trim_start().starts_with("(when")) {
                optional.push(parts[i].to_string());
            }
        }
        for id in code_spans(&row[0]) {
            out.push((id, keys.clone(), optional.clone()));
        }
    }
    out
}

/// `(rule, values keys)` of every finding of a real run.
fn real_value_keys(args: &[&str]) -> Vec<(String, Vec<String>)> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_irlint"))
        .args(args)
        .args(["--format", "json"])
        .current_dir(common::root())
        .output()
        .expect("run irlint");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let keys = f["values"].as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
            (f["rule"].as_str().unwrap_or_default().to_string(), keys)
        })
        .collect()
}

#[test]
fn diagnostics_value_keys_match_the_registry_and_real_output() {
    let documented = documented_value_keys();
    for r in irlint::rules::registry() {
        assert!(
            documented.iter().any(|(id, ..)| id == r.id),
            "docs/diagnostics.md's value-key table has no row for `{}`",
            r.id
        );
    }
    for (id, ..) in &documented {
        assert!(irlint::rules::find(id).is_some(), "docs/diagnostics.md documents `{id}`, which is not a rule");
    }
    let fixtures = common::fixtures().display().to_string();
    let mut real = real_value_keys(&["check", &fixtures, "-W", "coopvec-non-optimal-matrix-layout"]);
    if let Some(corpus) = common::shared("corpus") {
        real.extend(real_value_keys(&["check", &corpus.display().to_string()]));
    }
    let atoms = common::root().join("tests/data/atoms").display().to_string();
    real.extend(real_value_keys(&["atoms", &atoms]));
    let mut seen: Vec<(&str, &str)> = Vec::new();
    let mut fired = 0;
    for (rule, keys) in &real {
        let Some((_, doc_keys, _)) = documented.iter().find(|(id, ..)| id == rule) else {
            assert!(irlint::rules::find(rule).is_none(), "{rule} fired but is not documented");
            continue;
        };
        fired += 1;
        for k in keys {
            // `assumed` may join any finding that rests on spec-constant defaults (documented once).
            if k == "assumed" {
                let doc = std::fs::read_to_string(common::root().join("docs/diagnostics.md")).unwrap();
                assert!(doc.contains("`assumed`"), "docs/diagnostics.md does not document `assumed`");
                continue;
            }
            assert!(doc_keys.contains(k), "{rule} writes values key `{k}`; docs/diagnostics.md lists {doc_keys:?}");
            seen.push((rule, k));
        }
    }
    assert!(fired > 20, "only {fired} findings compared");
    // Every documented key (but the optional ones) of a rule that fired is one the output uses.
    for (id, doc_keys, optional) in &documented {
        if !real.iter().any(|(r, _)| r == id) {
            continue;
        }
        for k in doc_keys.iter().filter(|k| !optional.contains(k)) {
            assert!(
                seen.contains(&(id.as_str(), k.as_str())),
                "docs/diagnostics.md lists `{k}` for {id}; no output has it"
            );
        }
    }
}
