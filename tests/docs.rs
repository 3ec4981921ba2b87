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
