//! The sliced lowering: which statements of a body `irlint check` needs.
//!
//! The rules read a PTX function through a few values: the value operands of
//! its matrix facts (descriptors, addresses, instruction descriptors), the
//! address, size and alignment operands of its memory accesses, and what
//! those are computed from. Everything else a kernel does (its arithmetic on
//! accumulators, its epilogue) would be lowered and never evaluated: on CuTe
//! DSL kernels seven instructions in ten.
//!
//! [`Scan`] finds, during pass 1, the instructions that can write a value
//! the rules may read, by names: the roots are the registers named by those
//! operands of every fact and access instruction (both always lowered, as
//! are control instructions and every non-instruction statement), and a
//! needed register makes every instruction that writes it needed, with every
//! register that instruction reads (its guard too). Registers are matched by
//! name id, so a name declared again in an inner scope counts as one: that
//! only lowers more. Which operands a fact reads comes from the fact itself
//! (`fact_shapes`), and which operands are sources from the scopes as the
//! lowering will see them (`Declared`); where that is not sure, both readings
//! are taken. Pass 2 lowers the needed instructions, and a read of a name
//! that is not needed is `undef`.
//!
//! What the lowering then gives for the needed values is what the whole
//! lowering gives: a register's SSA value depends only on the instructions
//! that write it and on the blocks, and every writer of a needed register is
//! lowered. Instruction indices differ (fewer instructions and phis), so
//! `check` runs the sliced lowering first and lowers the module again in full
//! when the sliced run reports anything (see `crate::check`): what it prints
//! is always the full lowering's. `tests/ptx_sliced.rs` compares the two on
//! every fact and access operand of every PTX fixture and corpus module.
//!
//! A function is lowered whole when the slice could differ in another way:
//! it declares `.local` or `.param` variables (memory the analysis follows
//! through stores), or makes calls or returns values (the call summaries read
//! argument and return slots). Every instruction naming a kernel parameter
//! with `.ptr .align N` is lowered: reading its name as an address anywhere
//! drops that alignment.

use super::fact_shapes::Site;
use super::Cx;
use crate::ptx::parse::{Addr, FuncDecl, InstRef, NameId, Operand, Space, Stmt, Stmts};

const LOWER: u8 = 1;
const READS: u8 = 2;

/// What pass 2 lowers of a body ([`Scan::finish`]).
pub(super) struct Slice {
    /// By statement: 0 when it is not lowered.
    pub(super) stmts: Vec<u8>,
    /// By name id: its value may be read by the rules. A read of any other
    /// name is `undef` (no SSA walk for a register whose writers are not
    /// lowered).
    pub(super) names: Vec<bool>,
}

/// The slice's side of pass 1 (`body::lower_body`), which hands it every
/// statement; [`Scan::finish`] then finds what pass 2 lowers from the names
/// each instruction may write (pass 1's list).
pub(super) struct Scan<'a> {
    /// Still slicing (`false`: the function is lowered whole).
    on: bool,
    /// By statement: 0 not lowered, LOWER lowered, READS lowered with every
    /// name it reads needed (a writer of a needed name).
    need: Vec<u8>,
    need_name: Vec<bool>,
    /// Needed names whose writers are still to be marked.
    work: Vec<NameId>,
    decls: Declared<'a>,
    /// By name id: a kernel parameter with `.ptr .align N` (empty: none).
    aligned_param: Vec<bool>,
}

impl<'a> Scan<'a> {
    pub(super) fn new(cx: &mut Cx<'a>, fd: &FuncDecl<'a>, stmts: &Stmts<'a>) -> Self {
        cx.fact_shapes.begin_body();
        let mut scan = Scan {
            on: cx.sliced && fd.rets.is_empty(),
            need: Vec::new(),
            need_name: Vec::new(),
            work: Vec::new(),
            decls: Declared::default(),
            aligned_param: Vec::new(),
        };
        if !scan.on {
            return scan;
        }
        let names = stmts.names().len();
        scan.need = vec![LOWER; stmts.len()];
        scan.need_name = vec![false; names];
        // A kernel parameter with `.ptr .align N` keeps that alignment only
        // while no instruction reads its name as an address (`mov.b64 %rd1,
        // p`, see `operands::Body::name_value`): every instruction naming one
        // is lowered.
        if fd.entry && fd.params.iter().any(|p| p.ptr_align.is_some()) {
            scan.aligned_param = vec![false; names];
            for (id, name) in stmts.names().iter().enumerate() {
                if !name.starts_with('%') && fd.params.iter().any(|p| p.ptr_align.is_some() && p.name == *name) {
                    scan.aligned_param[id] = true;
                    scan.need_name[id] = true;
                }
            }
        }
        scan
    }

    /// A declaration: `.local` and `.param` variables end the slicing.
    pub(super) fn decl(&mut self, d: &crate::ptx::parse::VarDecl<'a>) {
        if !matches!(d.space, Space::Reg | Space::Shared) {
            self.on = false;
        }
        if self.on {
            self.decls.note(d);
        }
    }

    /// A `{` (`open`) or `}`.
    pub(super) fn scope(&mut self, open: bool) {
        if open {
            self.decls.depth += 1;
        } else {
            self.decls.depth = self.decls.depth.saturating_sub(1);
        }
    }

    /// Instruction `i`, not a control instruction (those are lowered).
    pub(super) fn inst(&mut self, cx: &mut Cx<'a>, i: usize, ins: &InstRef<'_, 'a>, names: &[&str]) {
        if !self.on {
            return;
        }
        if ins.op.starts_with("call") && matches!(ins.op.as_bytes().get(4), None | Some(b'.')) {
            self.on = false;
            return;
        }
        let aligned = !self.aligned_param.is_empty() && names_aligned_param(ins, &self.aligned_param);
        let seed = if may_be_seed(ins.op) {
            let (word, info) = cx.op_info(ins.op);
            let access = cx.word_access(word);
            (info.fact.is_some() || access.is_some()).then_some((word, info, access))
        } else {
            None
        };
        let Some((word, info, access)) = seed else {
            if !aligned {
                self.need[i] = 0;
            }
            return;
        };
        let fact = info.fact;
        let (need_name, work) = (&mut self.need_name, &mut self.work);
        let mut root = |id: NameId| mark(id, need_name, work);
        // The sources as the lowering splits them: after the first operand
        // when it is a destination, that is, when each of its elements is `_`
        // or names a register declared in scope. Where that is sure (the
        // body's own declarations say so) one split is taken, else both.
        // Under the split that reads a single first operand as a source, that
        // operand is no declared register: no instruction writes what it
        // reads, so it needs nothing.
        let op0 = ins.operands.first();
        let may_dest = !info.no_dest && may_be_dest(op0);
        let sure = may_dest && op0.is_some_and(|o| self.decls.surely_dest(o, ins.items, names));
        // (Its operand slot, and its values in the flattened sources: none for `_`.)
        let single = may_dest && matches!(op0, Some(Operand::Reg(_) | Operand::Sym(_) | Operand::Sink));
        let skip_first = if single { (1, op0.map_or(0, |o| flat_len(o, ins.items))) } else { (0, 0) };
        let splits = [
            (!sure).then_some((ins.operands, skip_first)),
            may_dest.then(|| (ins.operands.get(1..).unwrap_or(&[]), (0, 0))),
        ];
        for (srcs, (skip_slot, skip_flat)) in splits.into_iter().flatten() {
            if let Some(form) = access {
                for slot in form.slots().filter(|&k| k >= skip_slot) {
                    if let Some(o) = srcs.get(slot) {
                        operand_names(o, ins.items, &mut root);
                    }
                }
            }
            if let Some(class) = fact {
                let count = srcs.iter().map(|o| flat_len(o, ins.items)).sum();
                let site = Site { stmt: i as u32, target: cx.target, class, word, ins, nsrcs: srcs.len() };
                for k in cx.fact_shapes.picked(&site, count).into_iter().filter(|&k| k >= skip_flat) {
                    if let Some(id) = flat_name_at(srcs, ins.items, k) {
                        root(id);
                    }
                }
            }
        }
    }

    /// What pass 2 lowers; `None`: everything.
    pub(super) fn finish(self, stmts: &Stmts<'a>, writes: &[(u32, u32)]) -> Option<Slice> {
        if !self.on {
            return None;
        }
        let Scan { mut need, mut need_name, mut work, .. } = self;
        let names = need_name.len();
        // The writers of each name, by name: one list cut at `start`.
        let mut start = vec![0u32; names + 1];
        for &(name, _) in writes {
            if let Some(c) = start.get_mut(name as usize + 1) {
                *c += 1;
            }
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut writers = vec![0u32; writes.len()];
        for &(name, stmt) in writes {
            if let Some(f) = start.get_mut(name as usize) {
                if let Some(w) = writers.get_mut(*f as usize) {
                    *w = stmt;
                }
                *f += 1;
            }
        }
        // (`start[k]` is now where name k + 1's writers start.)
        while let Some(id) = work.pop() {
            let a = if id.index() == 0 { 0 } else { start.get(id.index() - 1).copied().unwrap_or(0) };
            let b = start.get(id.index()).copied().unwrap_or(0);
            for &w in writers.get(a as usize..b as usize).unwrap_or(&[]) {
                let w = w as usize;
                if need.get(w) == Some(&READS) {
                    continue;
                }
                if let Some(x) = need.get_mut(w) {
                    *x = READS;
                }
                let Some(Stmt::Inst(ins)) = stmts.get(w) else { continue };
                let ins = stmts.inst(ins);
                if let Some((g, _)) = ins.guard {
                    mark(g, &mut need_name, &mut work);
                }
                // Everything it reads: its sources.
                let reads =
                    if may_be_dest(ins.operands.first()) { ins.operands.get(1..).unwrap_or(&[]) } else { ins.operands };
                for o in reads {
                    operand_names(o, ins.items, &mut |id| mark(id, &mut need_name, &mut work));
                }
            }
        }
        Some(Slice { stmts: need, names: need_name })
    }
}

/// The registers the body's own scope has declared so far (not an inner
/// `{ }` scope's), to tell a destination from a source as the lowering's
/// scopes would (`names::Body::dest_vars`).
#[derive(Default)]
struct Declared<'a> {
    /// By name id: a register declared by name.
    names: Vec<bool>,
    /// Register ranges: prefix and count.
    ranges: Vec<(&'a str, u32)>,
    /// Their elements with reserved name ids: the first id and how many
    /// (`parse::VarDecl::first_id`), each a declared register.
    reserved: Vec<(u32, u32)>,
    /// `{ }` scopes open, the body's own included.
    depth: u32,
    /// Nothing is sure: an inner scope declared a `.shared` variable (its
    /// name is no register there, whatever the body's scope says), or the
    /// body's scope declared a range twice.
    unsure: bool,
}

impl<'a> Declared<'a> {
    fn note(&mut self, d: &crate::ptx::parse::VarDecl<'a>) {
        // The body's statements start with its own `{`.
        if self.depth != 1 {
            self.unsure |= d.space != Space::Reg;
            return;
        }
        if d.space != Space::Reg {
            return;
        }
        match (d.range, d.id) {
            (Some(n), _) => {
                // A range declared again replaces the first in the scope (and
                // its reserved ids): not followed here.
                self.unsure |= self.ranges.iter().any(|&(p, _)| p == d.name);
                self.ranges.push((d.name, n));
                if let Some(first) = d.first_id {
                    self.reserved.push((first.index() as u32, d.reserved));
                }
            }
            (None, Some(id)) => {
                if self.names.len() <= id.index() {
                    self.names.resize(id.index() + 1, false);
                }
                self.names[id.index()] = true;
            }
            (None, None) => {}
        }
    }

    /// True when `o` surely is a destination: every element `_` or a
    /// register the body's scope declared.
    fn surely_dest(&self, o: &Operand, items: &[Operand], names: &[&str]) -> bool {
        if self.unsure {
            return false;
        }
        let declared = |x: &Operand| match x {
            Operand::Sink => true,
            Operand::Reg(id) | Operand::Sym(id) => {
                let k = id.index() as u32;
                self.names.get(id.index()).copied().unwrap_or(false)
                    || self.reserved.iter().any(|&(first, count)| k.wrapping_sub(first) < count)
                    || names
                        .get(id.index())
                        .and_then(|n| super::names::split_register(n))
                        .is_some_and(|(p, k)| self.ranges.iter().any(|&(q, count)| q == p && k < count))
            }
            _ => false,
        };
        match o {
            Operand::Vector(r) | Operand::Pair(r) => r.of(items).iter().all(declared),
            o => declared(o),
        }
    }
}

/// True when a first operand `o` may be a destination: a register or `_`,
/// or a vector or pair of them (`names::Body::dest_vars`).
fn may_be_dest(o: Option<&Operand>) -> bool {
    matches!(o, Some(Operand::Reg(_) | Operand::Sym(_) | Operand::Sink | Operand::Vector(_) | Operand::Pair(_)))
}

/// Marks a name needed, queueing it the first time.
fn mark(id: NameId, need_name: &mut [bool], work: &mut Vec<NameId>) {
    if let Some(b) = need_name.get_mut(id.index()) {
        if !*b {
            *b = true;
            work.push(id);
        }
    }
}

/// True when `ins` names a parameter `aligned` marks (by name id): as a
/// symbol operand or an address's base or item.
fn names_aligned_param(ins: &InstRef<'_, '_>, aligned: &[bool]) -> bool {
    let is = |id: &NameId| aligned.get(id.index()).copied().unwrap_or(false);
    ins.operands.iter().any(|o| match o {
        Operand::Sym(id) | Operand::Addr(Addr::Sym(id, _)) => is(id),
        Operand::Addr(Addr::Full(r)) => {
            let mut found = false;
            for x in r.of(ins.items) {
                operand_names(x, ins.items, &mut |id| found |= is(&id));
            }
            found
        }
        _ => false,
    })
}

/// False for a word that is neither a fact (`ldmatrix`, `stmatrix`,
/// `tcgen05.mma`, `tcgen05.commit`, `mma`, `cp`, `wgmma`, `mbarrier`) nor a
/// memory access (`ld`, `ldu`, `st`, `atom`, `red`, `multimem`, `cp`), told
/// from its first letters (`mov`, `add`, `mul`, `ex2`, `setp` are neither).
fn may_be_seed(word: &str) -> bool {
    let b = word.as_bytes();
    match b {
        [b'l', b'd', ..] | [b's', b't', ..] | [b'c', b'p', ..] | [b'w', b'g', ..] | [b'a', b't', ..] => true,
        [b'm', b'm', ..] | [b'm', b'b', ..] => true,
        [b't', b'c', ..] => word.starts_with("tcgen05.mma") || word.starts_with("tcgen05.commit"),
        [b'r', b'e', b'd', ..] => true,
        [b'm', b'u', b'l', b't', ..] => true,
        [_, _, ..] => false,
        _ => true,
    }
}

/// Calls `f` with every name `o` reads: a register or symbol, an address's
/// base and extra operands, a list's items.
fn operand_names(o: &Operand, items: &[Operand], f: &mut impl FnMut(NameId)) {
    match o {
        Operand::Reg(id) | Operand::NotReg(id) | Operand::Sym(id) => f(*id),
        Operand::Addr(Addr::Reg(id, _) | Addr::Sym(id, _)) => f(*id),
        Operand::Vector(r) | Operand::List(r) | Operand::Pair(r) | Operand::Addr(Addr::Full(r)) => {
            for x in r.of(items) {
                operand_names(x, items, f);
            }
        }
        Operand::Int(_) | Operand::Float(..) | Operand::Sink => {}
    }
}

/// How many values `Body::flatten` gives for `o`.
fn flat_len(o: &Operand, items: &[Operand]) -> usize {
    match o {
        Operand::Vector(r) | Operand::List(r) | Operand::Pair(r) => {
            r.of(items).iter().map(|x| flat_len(x, items)).sum()
        }
        Operand::Sink => 0,
        Operand::Addr(a @ Addr::Full(_)) => 1 + a.extra(items).iter().map(|x| flat_len(x, items)).sum::<usize>(),
        _ => 1,
    }
}

/// The name value `k` of `Body::flatten` over `srcs` reads (`None`: a
/// constant, or past the end).
fn flat_name_at(srcs: &[Operand], items: &[Operand], mut k: usize) -> Option<NameId> {
    for o in srcs {
        let len = flat_len(o, items);
        if k >= len {
            k -= len;
            continue;
        }
        return match o {
            Operand::Vector(r) | Operand::List(r) | Operand::Pair(r) => flat_name_at(r.of(items), items, k),
            Operand::Addr(a) if k == 0 => name_of(&a.base(items)),
            Operand::Addr(a @ Addr::Full(_)) => flat_name_at(a.extra(items), items, k - 1),
            o => name_of(o),
        };
    }
    None
}

fn name_of(o: &Operand) -> Option<NameId> {
    match o {
        Operand::Reg(id) | Operand::NotReg(id) | Operand::Sym(id) => Some(*id),
        _ => None,
    }
}
