//! The module graph flows one way — input → reader → IR → analysis → rules →
//! report (docs/architecture.md, "Module dependencies"): no import cycle
//! between the crate's top-level modules.
//!
//! The graph is read from the sources: every `crate::…` and `super::…` path
//! (in `use` lines, groups `{…}` expanded, and inline paths), comments left
//! out. Nodes are the top-level modules, with two refinements that follow the
//! code's real dependencies: the report *model* (`report/diagnostic.rs`,
//! `report/files.rs`: `Diagnostic`, `Level`, `FileReport`, … — imported by the
//! pipeline and the rules) is apart from the emitters (`report::{human, json,
//! sarif, …}`, which read the rule registry), and `atoms::cli` (the
//! `irlint atoms` command) is apart from the atom verifiers it drives.
//! Test code (`*_tests.rs` files, and everything from a file's first
//! `#[cfg(test)]` on) may use any module — a unit test of the analysis may
//! lower a SPIR-V fixture — and is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MODEL_FILES: &[&str] = &["src/report/diagnostic.rs", "src/report/files.rs"];

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `src/report/json.rs` → `["report", "json"]`; `src/rules/mod.rs` → `["rules"]`.
fn module_path(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        parts.clear();
    }
    parts
}

fn node(path: &[String], model: &BTreeSet<String>) -> String {
    match path {
        [] => "crate".into(),
        [r, m, ..] if r == "report" && (m == "diagnostic" || m == "files" || model.contains(m)) => {
            "report::model".into()
        }
        [a, c, ..] if a == "atoms" && c == "cli" => "atoms::cli".into(),
        [first, ..] => first.clone(),
    }
}

/// Splits `a, b::{c, d}, e` at top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out.into_iter().filter(|x| !x.is_empty()).collect()
}

fn ident_len(s: &str) -> usize {
    s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len())
}

/// The module paths that `rest` (the text after `crate::` or `super::`)
/// names, relative to `base`.
fn targets(base: &[String], rest: &str, out: &mut Vec<Vec<String>>) {
    let mut segs = base.to_vec();
    let mut rest = rest.trim_start();
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    depth += i32::from(c == '{') - i32::from(c == '}');
                    depth == 0
                })
                .map_or(group.len(), |(i, _)| i);
            for item in split_top(&group[..end]) {
                targets(&segs, item, out);
            }
            return;
        }
        let n = ident_len(rest);
        if n == 0 {
            break;
        }
        let ident = &rest[..n];
        let after = rest[n..].trim_start();
        if ident != "self" {
            segs.push(ident.to_string());
        }
        match after.strip_prefix("::") {
            Some(next) => rest = next.trim_start(),
            None => break,
        }
    }
    out.push(segs);
}

struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
    /// Files behind each edge.
    why: BTreeMap<(String, String), BTreeSet<String>>,
}

fn graph() -> Graph {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut model = BTreeSet::new();
    for f in MODEL_FILES {
        let text = std::fs::read_to_string(root.join(f)).unwrap();
        for line in text.lines() {
            for kw in ["pub struct ", "pub enum ", "pub fn ", "pub const ", "pub type ", "pub trait "] {
                if let Some(rest) = line.strip_prefix(kw) {
                    model.insert(rest[..ident_len(rest)].to_string());
                }
            }
        }
    }
    let mut files = Vec::new();
    rs_files(&root.join("src"), &mut files);
    let mut g = Graph { edges: BTreeMap::new(), why: BTreeMap::new() };
    for f in files {
        let rel = f.strip_prefix(root.join("src")).unwrap().to_string_lossy().replace('\\', "/");
        if rel.ends_with("_tests.rs") {
            continue;
        }
        let me = module_path(&rel);
        let from = node(&me, &model);
        let is_mod_file = rel.ends_with("mod.rs") || rel == "lib.rs" || rel == "main.rs";
        // `super` of `report/json.rs` is `report`; of `report/mod.rs` the crate.
        let parent: Vec<String> = if is_mod_file || me.is_empty() {
            me[..me.len().saturating_sub(1)].to_vec()
        } else {
            me[..me.len() - 1].to_vec()
        };
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines().take_while(|l| l.trim() != "#[cfg(test)]") {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            let code = code.split(" //").next().unwrap_or("");
            for (kw, base) in [("crate::", Vec::new()), ("super::", parent.clone())] {
                let mut from_i = 0;
                while let Some(i) = code[from_i..].find(kw) {
                    let at = from_i + i;
                    from_i = at + kw.len();
                    // `$crate::`, `foo_crate::`: not a path of this crate.
                    if code[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
                        continue;
                    }
                    let mut ts = Vec::new();
                    targets(&base, &code[at + kw.len()..], &mut ts);
                    for t in ts {
                        let to = node(&t, &model);
                        if to != from && to != "crate" {
                            g.edges.entry(from.clone()).or_default().insert(to.clone());
                            g.why.entry((from.clone(), to)).or_default().insert(rel.clone());
                        }
                    }
                }
            }
        }
    }
    g
}

/// Strongly connected components with more than one node (Tarjan).
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let i = t.index.len();
        t.index.insert(v, i);
        t.low.insert(v, i);
        t.stack.push(v);
        t.on.insert(v);
        let g = t.g;
        for w in g.edges.get(v).into_iter().flatten() {
            if !t.index.contains_key(w.as_str()) {
                visit(t, w);
                let lw = t.low[w.as_str()];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w.as_str()) {
                let iw = t.index[w.as_str()];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t =
        T { g, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on: BTreeSet::new(), out: Vec::new() };
    for v in g.edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn no_import_cycles_between_top_level_modules() {
    let g = graph();
    let found = cycles(&g);
    let mut msg = String::new();
    for comp in &found {
        msg.push_str(&format!("cycle among {comp:?}:\n"));
        for a in comp {
            for b in g.edges.get(a).into_iter().flatten().filter(|b| comp.contains(b)) {
                msg.push_str(&format!("  {a} -> {b} ({:?})\n", g.why[&(a.clone(), b.clone())]));
            }
        }
    }
    assert!(found.is_empty(), "import cycles (the flow must stay one-way):\n{msg}");
}

/// The two cycles issue 27 named stay broken, edge by edge: the report model
/// is `report`'s own (the emitters do not import `check`), the rules read
/// their settings through `rules::RuleSettings` (not `config`), and the atom
/// rules' metadata lives with the rules (the verifiers do not import `rules`).
#[test]
fn named_upward_edges_are_absent() {
    let g = graph();
    for (from, to) in [
        ("report", "check"),
        ("report::model", "check"),
        ("rules", "config"),
        ("atoms", "rules"),
        ("atoms", "config"),
        ("rules", "suppress"),
        ("config", "input"),
        ("report::model", "rules"),
    ] {
        let files = g.why.get(&(from.to_string(), to.to_string()));
        assert!(files.is_none(), "{from} imports {to} in {files:?}");
    }
}

/// The graph reader sees the edges it must: a test of the test.
#[test]
fn the_graph_sees_known_edges() {
    let g = graph();
    for (from, to) in [
        ("check", "rules"),
        ("check", "report::model"),
        ("rules", "report::model"),
        ("report", "rules"),
        ("report", "report::model"),
        ("config", "rules"),
        ("atoms::cli", "atoms"),
        ("input", "check"),
    ] {
        assert!(
            g.edges.get(from).is_some_and(|t| t.contains(to)),
            "expected an edge {from} -> {to}; edges of {from}: {:?}",
            g.edges.get(from)
        );
    }
    // A group import names each module in it.
    let mut ts = Vec::new();
    targets(&[], "{dxil, ptx::lex::{Pos, error_at}, report::{self, Level}};", &mut ts);
    let ts: Vec<String> = ts.iter().map(|t| t.join("::")).collect();
    assert_eq!(ts, ["dxil", "ptx::lex::Pos", "ptx::lex::error_at", "report", "report::Level"]);
}
