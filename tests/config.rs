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
fn unknown_rule() {
    let e = config::parse("[rules]\nno-such-rule = \"deny\"\n", "irlint.toml").unwrap_err();
    assert!(
        e.message.starts_with("unknown rule `no-such-rule`; known rules: coopvec-stride-mismatch, "),
        "{}",
        e.message
    );
    assert!(e.message.contains("structured-buffer-stride-not-cache-aligned"), "{}", e.message);
    let e = config::parse("[rules.no-such-rule]\nlevel = \"deny\"\n", "irlint.toml").unwrap_err();
    assert!(e.message.starts_with("unknown rule `no-such-rule`"), "{}", e.message);
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
    let e = config::parse("[rules]\ncoopvec-stride-mismatch = \"error\"\n", "irlint.toml").unwrap_err();
    assert_eq!(
        e.message,
        "invalid value \"error\" for `rules.coopvec-stride-mismatch`; expected one of: \"allow\", \"warn\", \"deny\""
    );
    let e = config::parse("[rules.coopvec-stride-mismatch]\nlevel = 2\n", "irlint.toml").unwrap_err();
    assert_eq!(
        e.message,
        "invalid value 2 for `rules.coopvec-stride-mismatch.level`; expected one of: \"allow\", \"warn\", \"deny\""
    );
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
    assert!(e.message.starts_with("unknown rule `coopvec-stride-mismatchh`; known rules: "), "{}", e.message);
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
