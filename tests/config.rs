//! `irlint.toml` parsing, validation and CLI overrides.

use irlint::config::{self, RuleLevel, Settings};
use irlint::report::Level;
use irlint::rules::structured_buffer_stride as sb;

#[test]
fn good_file() {
    let s = config::parse(
        r#"
[rules]
long-vector-bytebuf-load-misaligned = "deny"
coopvec-stride-mismatch = "allow"

[rules.structured-buffer-stride-not-cache-aligned]
level = "warn"
cache-line-target = 64
"#,
        "irlint.toml",
    )
    .unwrap();
    // The rule's own options type, read from its table.
    assert_eq!(s.options::<sb::Options>(), sb::Options { cache_line_target: 64 });
    assert_eq!(s.level_for("long-vector-bytebuf-load-misaligned"), Some(Level::Error));
    assert_eq!(s.level_for("coopvec-stride-mismatch"), None);
    assert_eq!(s.level_for("structured-buffer-stride-not-cache-aligned"), Some(Level::Warning));
    // Not mentioned: default level.
    assert_eq!(s.level_for("long-vector-bytebuf-store-misaligned"), Some(Level::Warning));
}

#[test]
fn empty_file_gives_defaults() {
    let s = config::parse("", "irlint.toml").unwrap();
    assert_eq!(s.options::<sb::Options>().cache_line_target, 32);
    assert_eq!(s.level_for("coopvec-stride-mismatch"), Some(Level::Error));
    assert_eq!(s.level_for("no-such-rule"), None);
}

#[test]
fn unknown_top_level_key() {
    let e = config::parse("[lints]\nx = 1\n", "irlint.toml").unwrap_err();
    assert_eq!(e.path, "irlint.toml");
    assert_eq!(e.message, "unknown key `lints`; expected one of: rules, hlsl, exclude, per-file-ignores");
    // `[hlsl]` belongs to the input layer and is accepted here.
    assert!(config::parse("[hlsl]\nprofile = \"cs_6_9\"\n", "irlint.toml").is_ok());
}

#[test]
fn extend_is_refused_with_the_discovery_rule() {
    // ruff users write `extend`; irlint applies the nearest file alone and says so.
    let e = config::parse("extend = \"../irlint.toml\"\n", "sub/irlint.toml").unwrap_err();
    assert!(
        e.message.starts_with("`extend` is not supported: only the irlint.toml nearest to an input applies"),
        "{}",
        e.message
    );
}

#[test]
fn unknown_rule() {
    // The nearest id is suggested, not every id listed.
    let e = config::parse("[rules]\nno-such-rule = \"deny\"\n", "irlint.toml").unwrap_err();
    assert!(e.message.starts_with("unknown rule `no-such-rule`; `irlint rules` lists the rules"), "{}", e.message);
    assert!(!e.message.contains("structured-buffer-stride-not-cache-aligned"), "{}", e.message);
    let e = config::parse("[rules.no-such-rule]\nlevel = \"deny\"\n", "irlint.toml").unwrap_err();
    assert!(e.message.starts_with("unknown rule `no-such-rule`"), "{}", e.message);
    let e = config::parse("[rules]\ncoopvec-stride-mismatchh = \"deny\"\n", "irlint.toml").unwrap_err();
    assert_eq!(
        e.message,
        "unknown rule `coopvec-stride-mismatchh`; did you mean `coopvec-stride-mismatch`? (in [rules])"
    );
    let e = config::parse("[per-file-ignores]\n\"t/**\" = [\"wgmma-smem-descriptr\"]\n", "irlint.toml").unwrap_err();
    assert_eq!(
        e.message,
        "unknown rule `wgmma-smem-descriptr`; did you mean `wgmma-smem-descriptor`? (in `per-file-ignores.\"t/**\"`)"
    );
}

#[test]
fn unknown_rule_option() {
    let e = config::parse("[rules.coopvec-stride-mismatch]\ncache-line-target = 64\n", "irlint.toml").unwrap_err();
    assert_eq!(e.message, "unknown key `rules.coopvec-stride-mismatch.cache-line-target`; expected one of: level");
    let e = config::parse("[rules.structured-buffer-stride-not-cache-aligned]\nline = 64\n", "c").unwrap_err();
    assert_eq!(
        e.message,
        "unknown key `rules.structured-buffer-stride-not-cache-aligned.line`; expected one of: level, cache-line-target"
    );
}

#[test]
fn bad_cache_line_target() {
    let e =
        config::parse("[rules.structured-buffer-stride-not-cache-aligned]\ncache-line-target = 48\n", "irlint.toml")
            .unwrap_err();
    assert_eq!(
        e.message,
        "invalid value 48 for `rules.structured-buffer-stride-not-cache-aligned.cache-line-target`; expected one of: \
         16, 32, 64, 128"
    );
    assert_eq!(
        e.to_string(),
        "irlint.toml: invalid value 48 for `rules.structured-buffer-stride-not-cache-aligned.cache-line-target`; \
         expected one of: 16, 32, 64, 128"
    );
    let e = config::parse("[rules.structured-buffer-stride-not-cache-aligned]\ncache-line-target = \"64\"\n", "c")
        .unwrap_err();
    assert!(e.message.starts_with("invalid value \"64\" for"), "{}", e.message);
}

#[test]
fn bad_level() {
    let e = config::parse("[rules]\ncoopvec-stride-mismatch = \"fatal\"\n", "irlint.toml").unwrap_err();
    assert_eq!(
        e.message,
        "invalid value \"fatal\" for `rules.coopvec-stride-mismatch`; expected one of: \"error\", \"warning\", \"off\" \
         (or \"deny\", \"warn\", \"allow\")"
    );
    let e = config::parse("[rules.coopvec-stride-mismatch]\nlevel = 2\n", "irlint.toml").unwrap_err();
    assert_eq!(
        e.message,
        "invalid value 2 for `rules.coopvec-stride-mismatch.level`; expected one of: \"error\", \"warning\", \"off\" \
         (or \"deny\", \"warn\", \"allow\")"
    );
}

#[test]
fn levels_in_both_spellings() {
    // `irlint rules` prints error/warning/off; clippy spells deny/warn/allow: both are accepted.
    for (word, want) in [
        ("error", Some(Level::Error)),
        ("deny", Some(Level::Error)),
        ("warning", Some(Level::Warning)),
        ("warn", Some(Level::Warning)),
        ("off", None),
        ("allow", None),
    ] {
        let s = config::parse(&format!("[rules]\nwgmma-smem-descriptor = \"{word}\"\n"), "c").unwrap();
        assert_eq!(s.level_for("wgmma-smem-descriptor"), want, "{word}");
        let s = config::parse(&format!("[rules.wgmma-smem-descriptor]\nlevel = \"{word}\"\n"), "c").unwrap();
        assert_eq!(s.level_for("wgmma-smem-descriptor"), want, "{word} in a table");
    }
}

#[test]
fn rules_table_takes_groups_and_all_and_the_specific_name_wins() {
    // Key order does not matter: the rule id beats its group, the group beats `all`.
    for text in [
        "[rules]\nall = \"off\"\ncoopvec = \"warning\"\ncoopvec-stride-mismatch = \"error\"\n",
        "[rules]\ncoopvec-stride-mismatch = \"error\"\ncoopvec = \"warning\"\nall = \"off\"\n",
    ] {
        let s = config::parse(text, "c").unwrap();
        assert_eq!(s.level_for("coopvec-stride-mismatch"), Some(Level::Error), "{text}");
        assert_eq!(s.level_for("coopvec-fp8-with-non-optimal-layout"), Some(Level::Warning), "{text}");
        assert_eq!(s.level_for("coopvec-non-optimal-matrix-layout"), Some(Level::Warning), "off by default: {text}");
        assert_eq!(s.level_for("wgmma-smem-descriptor"), None, "{text}");
    }
    let s = config::parse("[rules.coopvec]\nlevel = \"deny\"\n", "c").unwrap();
    assert_eq!(s.level_for("coopvec-optimal-layout-nonzero-stride"), Some(Level::Error));
    // Options belong to one rule, not a group.
    let e = config::parse("[rules.structured-buffer]\ncache-line-target = 64\n", "c").unwrap_err();
    assert!(
        e.message
            .starts_with("unknown key `rules.structured-buffer.cache-line-target`: `structured-buffer` is a group"),
        "{}",
        e.message
    );
}

#[test]
fn enable_keeps_the_configured_level() {
    // `--select`/`--extend-select` turn a rule on at the level set before, else its default, else warning.
    let mut s = config::parse("[rules]\nwgmma-smem-descriptor = \"warn\"\n", "c").unwrap();
    s.apply_override("all", RuleLevel::Allow).unwrap();
    s.apply_override("wgmma", RuleLevel::Enable).unwrap();
    s.apply_override("coopvec", RuleLevel::Enable).unwrap();
    assert_eq!(s.level_for("wgmma-smem-descriptor"), Some(Level::Warning));
    assert_eq!(s.level_for("coopvec-stride-mismatch"), Some(Level::Error));
    assert_eq!(s.level_for("coopvec-non-optimal-matrix-layout"), Some(Level::Warning));
    assert_eq!(s.level_for("ptx-shared-address-misaligned"), None);
}

#[test]
fn toml_syntax_error_names_the_file() {
    let e = config::parse("[rules\n", "irlint.toml").unwrap_err();
    assert_eq!(e.path, "irlint.toml");
    assert!(!e.message.is_empty());
}

#[test]
fn cli_overrides_apply_in_order_and_reject_unknown_rules() {
    let mut s = config::parse("[rules]\ncoopvec-stride-mismatch = \"allow\"\n", "irlint.toml").unwrap();
    s.apply_override("coopvec-stride-mismatch", RuleLevel::Warn).unwrap();
    assert_eq!(s.level_for("coopvec-stride-mismatch"), Some(Level::Warning));
    s.apply_override("coopvec-stride-mismatch", RuleLevel::Deny).unwrap();
    assert_eq!(s.level_for("coopvec-stride-mismatch"), Some(Level::Error));
    let e = Settings::default().apply_override("coopvec-stride-mismatchh", RuleLevel::Deny).unwrap_err();
    assert_eq!(e.path, "command line");
    assert_eq!(e.message, "unknown rule `coopvec-stride-mismatchh`; did you mean `coopvec-stride-mismatch`?");
}

#[test]
fn discover_and_load() {
    let dir = std::env::temp_dir().join(format!("irlint-config-test-{}", std::process::id()));
    let sub = dir.join("a/b");
    std::fs::create_dir_all(&sub).unwrap();
    let file = dir.join("irlint.toml");
    std::fs::write(&file, "[rules.structured-buffer-stride-not-cache-aligned]\ncache-line-target = 128\n").unwrap();
    let found = config::discover(&sub).expect("found");
    assert_eq!(found, file);
    let s = config::load(&found).unwrap();
    assert_eq!(s.options::<sb::Options>().cache_line_target, 128);
    std::fs::write(&file, "[rules]\nbogus = \"deny\"\n").unwrap();
    let e = config::load(&file).unwrap_err();
    assert_eq!(e.path, file.display().to_string());
    let _ = std::fs::remove_dir_all(&dir);
}
