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

/// What a user reads: the README, CONTRIBUTING, every page under `docs/` (rule pages included),
/// `shaders/README.md`, and what the command line prints (`--help`, `check --help`, `rules`,
/// `explain` of every rule). `(name, text)` pairs.
fn user_facing_texts() -> Vec<(String, String)> {
    let root = common::root();
    let mut out = Vec::new();
    let mut files = vec![root.join("README.md"), root.join("CONTRIBUTING.md"), root.join("shaders/README.md")];
    files.extend(common::files_with_suffix(&root.join("docs"), ".md")); // docs/rules too
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        out.push((f.strip_prefix(&root).unwrap_or(&f).display().to_string(), text));
    }
    let mut commands: Vec<Vec<String>> =
        vec![vec!["--help".into()], vec!["check".into(), "--help".into()], vec!["rules".into()]];
    commands.extend(irlint::rules::registry().iter().map(|r| vec!["explain".into(), r.id.into()]));
    for args in commands {
        let (code, stdout, stderr) = common::run(common::irlint().args(&args));
        assert_eq!(code, 0, "irlint {args:?}: {stderr}");
        out.push((format!("`irlint {}`", args.join(" ")), stdout));
    }
    out
}

/// Byte offsets of `word` in `text` (ASCII case-insensitive) as a whole word: no letter,
/// digit or `_` right before or after it (`seed` matches "seed 002" and "the seed's", not
/// "seeded", "fuzz/seeds" or the API name `seed_msg`).
fn whole_words(text: &str, word: &str) -> Vec<usize> {
    let lower = text.to_ascii_lowercase();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = lower.as_bytes();
    lower
        .match_indices(&word.to_ascii_lowercase())
        .map(|(i, _)| i)
        .filter(|&i| i == 0 || !is_word(bytes[i - 1]))
        .filter(|&i| bytes.get(i + word.len()).is_none_or(|&b| !is_word(b)))
        .collect()
}

/// The stale or internal phrases of `text`, with the line they are on: names of documents that are
/// not in the repository (`ptx-atoms.md`, `rules.md`, `crates.md`), the project's internal
/// specification ("seed 002"), its decision numbers (`D1`…`D19`), issue numbers, and the PTX
/// front end described as future work.
fn stale_phrases(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let line_of = |i: usize| text[..i].matches('\n').count() + 1;
    let mut found = Vec::new();
    for phrase in [
        "ptx-atoms.md",
        "rules.md",
        "crates.md",
        "coming ptx front end",
        "ptx front end will",
        "(dxil, spir-v)",
        "realptx helper",
        "this session",
    ] {
        found.extend(lower.match_indices(phrase).map(|(i, _)| format!("line {}: {phrase}", line_of(i))));
    }
    found.extend(whole_words(text, "seed").into_iter().map(|i| format!("line {}: seed", line_of(i))));
    // `issue 23`, `#25`: issue numbers mean nothing outside the project's tracker (`#0`, a
    // resource index in `irlint dump`, is not one).
    for (i, _) in lower.match_indices("issue ") {
        if lower[i + 6..].starts_with(|c: char| c.is_ascii_digit()) {
            found.push(format!("line {}: {}", line_of(i), &text[i..(i + 8).min(text.len())]));
        }
    }
    for (i, _) in lower.match_indices('#') {
        let digits = lower[i + 1..].bytes().take_while(u8::is_ascii_digit).count();
        if digits == 2 {
            found.push(format!("line {}: {}", line_of(i), &text[i..(i + 4).min(text.len())]));
        }
    }
    // `D1` … `D19` as a whole word (not `D3D12`, `0xD1` or `.2d`).
    let bytes = text.as_bytes();
    for (i, _) in text.match_indices('D') {
        let digits = bytes[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + 1 + digits);
        let word = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
        if (1..=2).contains(&digits) && !word(before.as_ref()) && !word(after) {
            found.push(format!("line {}: {}", line_of(i), &text[i..i + 1 + digits]));
        }
    }
    found
}

#[test]
fn the_stale_phrase_check_finds_what_it_looks_for() {
    let bad = "verifiers of seed 002 (the seed's table, ptx-atoms.md D14)\nissue 23 and #25;\n\
               a PTX front end will feed them; rules.md §0";
    let found = stale_phrases(bad);
    for want in ["seed", "ptx-atoms.md", "D14", "issue 23", "#25", "ptx front end will", "rules.md"] {
        assert!(found.iter().any(|f| f.contains(want)), "{want} not found in {found:?}");
    }
    assert_eq!(found.iter().filter(|f| f.ends_with(": seed")).count(), 2, "{found:?}");
    let fine =
        "seeded mutants in fuzz/seeds/, `seed_msg()`, `SEED_MESSAGES`, D3D12, 0xD1, .2d, ## Heading, resource #0";
    assert_eq!(stale_phrases(fine), Vec::<String>::new());
}

#[test]
fn user_facing_text_has_no_stale_or_internal_phrases() {
    let mut problems = Vec::new();
    for (name, text) in user_facing_texts() {
        problems.extend(stale_phrases(&text).into_iter().map(|p| format!("{name}: {p}")));
    }
    assert!(problems.is_empty(), "stale or internal phrases in user-facing text:\n{}", problems.join("\n"));
}

#[test]
fn help_and_package_descriptions_name_all_three_formats() {
    let (_, help, _) = common::run(common::irlint().arg("--help"));
    let about = help.lines().next().unwrap_or_default();
    assert_eq!(about, "Lints compiled GPU code (DXIL, SPIR-V, PTX)");
    let description = env!("CARGO_PKG_DESCRIPTION");
    assert!(description.starts_with("Lints compiled GPU code (DXIL, SPIR-V, PTX)"), "{description}");
    let pyproject = std::fs::read_to_string(common::root().join("pyproject.toml")).expect("pyproject.toml");
    assert!(pyproject.contains("description = \"Lints compiled GPU code (DXIL, SPIR-V, PTX)"), "pyproject.toml");
    let readme = std::fs::read_to_string(common::root().join("README.md")).expect("README");
    let intro = &readme[..readme.find("| rule |").expect("rule table")];
    for format in ["DXIL", "SPIR-V", "PTX"] {
        assert!(intro.contains(format), "README's introduction does not name {format}");
    }
}

/// The pre-commit `rev` and the `cargo install --tag` of the docs are the tag of the crate's
/// version, so that they name the release the docs describe.
#[test]
fn documented_release_tags_match_the_crate_version() {
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    for page in ["README.md", "docs/integration.md"] {
        let text = std::fs::read_to_string(common::root().join(page)).expect(page);
        let revs: Vec<&str> = text.lines().filter_map(|l| l.trim().strip_prefix("rev: ")).collect();
        let tags: Vec<&str> = text.split("--tag ").skip(1).filter_map(|rest| rest.split_whitespace().next()).collect();
        assert!(!revs.is_empty() && !tags.is_empty(), "{page}: no pre-commit rev or cargo install --tag");
        for t in revs.iter().chain(&tags) {
            assert!(*t == tag || t.starts_with('"'), "{page}: `{t}` is not the crate version's tag {tag}");
        }
        assert!(!text.contains("OWNER"), "{page}: an OWNER placeholder without instructions");
    }
}
