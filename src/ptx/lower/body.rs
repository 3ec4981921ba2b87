//! One function body → blocks of SSA instructions.
//!
//! Pass 1 splits the statements into blocks (at labels and after branches,
//! `ret`, `exit`, `trap`) and resolves branch targets through the `{ }` scopes
//! they were written in. Pass 2 fills the blocks in order, turning registers
//! into SSA values with the on-the-fly construction of Braun et al. ("Simple
//! and Efficient SSA Construction", CC 2013): a block is sealed once all its
//! predecessors are filled, reads in unsealed blocks create operand-less phis
//! that are completed on sealing, and a final pass folds trivial phis. Reads
//! walk single-predecessor chains and complete phis from a work list, so deep
//! CFGs cannot overflow the stack. Pass 1 also computes dominators and
//! dominance frontiers ([`super::dom`]): a read reaching a join outside the
//! iterated dominance frontier of its register's writers takes the value at
//! the join's immediate dominator instead of making a phi.
//!
//! This file holds the blocks and pass 1; the SSA reads and phi folding are in
//! [`super::ssa`], each register's state in [`super::locals`], names and
//! scopes in [`super::names`], operands in [`super::operands`], instructions in
//! [`super::compute`], the per-word facts in [`super::ops`].

use super::dom::Dom;
use super::names::{written_names, Scope};
use super::ops::control;
use super::{span, Cx};
use crate::ir::{BlockH, Function, Inst, InstH, InstKind, LocH, Span, TypeH, Value};
use crate::ptx::facts;
use crate::ptx::lex::{error_at, Pos};
use crate::ptx::parse::{FuncDecl, LocDirective, NameId, Operand, Outline, Stmt, Stmts};
use crate::read::limits::{MAX_BLOCKS, MAX_PTX_SSA_WORK, MAX_VALUES};
use crate::read::{ErrorKind, Result};
use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Term<'a> {
    Fall,
    Br(&'a str, u32),
    CondBr(&'a str, u32),
    Switch(&'a str),
    Ret,
    CondRet,
    Trap,
    CondTrap,
}

pub(super) struct Pre<'a> {
    pub(super) first: usize,
    pub(super) end: usize,
    pub(super) term: Term<'a>,
    pub(super) term_pos: Pos,
}

/// A block's predecessors or successors: inline up to two (a block's edge
/// lists cost no allocation unless it is a switch or a join of three).
pub(super) type Edges = smallvec::SmallVec<[usize; 2]>;

#[derive(Default)]
pub(super) struct Blk {
    pub(super) phis: Vec<InstH>,
    /// Its instructions after the phis: a range of `Body::body_insts` (a
    /// block's are made while it is filled, blocks one after another).
    pub(super) body: (u32, u32),
    pub(super) sealed: bool,
    pub(super) unfilled: u32,
    /// Phis made here before the block was sealed: (register, index in `phis`).
    pub(super) incomplete: Vec<(u32, u32)>,
    pub(super) preds: Edges,
    pub(super) succs: Edges,
    pub(super) ir: Option<BlockH>,
    /// Filled, and some register written here.
    pub(super) filled: bool,
    pub(super) writes: bool,
    /// A block at or above this one on its single-predecessor chain, every
    /// block in between passing values through (see `ssa::Body::pass_up`).
    pub(super) skip: Option<usize>,
}

/// What pass 2 keeps of a register the body reads or writes.
#[derive(Clone, Copy)]
pub(super) struct Local {
    /// The id in `dom` of the name it was first read or written as (from
    /// `Body::id_dom`; `NOT_NOTED`: none yet; `dom::NEVER_WRITTEN`: no
    /// instruction writes it), noted when first met.
    pub(super) name: u32,
    /// Its latest entry of `defs`, kept out of the table: the block
    /// (`u32::MAX`: none yet) and the value there. Reads and writes within
    /// the block being filled hash nothing (see `ssa::Body::set_def`).
    pub(super) block: u32,
    pub(super) value: Value,
    /// Its declared type (from `Body::decls`, found once).
    pub(super) ty: TypeH,
}

/// [`Local::name`] of a register whose name was not noted yet.
pub(super) const NOT_NOTED: u32 = u32::MAX;

#[derive(Clone, Copy)]
pub(super) enum Slot {
    Var(u32),
    Sym(Value),
    Param(u32),
}

pub(super) struct Body<'c, 'a> {
    pub(super) cx: &'c mut Cx<'a>,
    pub(super) f: Function,
    pub(super) blocks: Vec<Blk>,
    /// Every block's instructions after its phis, block after block.
    pub(super) body_insts: Vec<InstH>,
    /// The register declarations in order: (first register, type), each
    /// covering the registers up to the next one's first. One entry per
    /// declaration, not per register: `%f<110593>` is one.
    pub(super) decls: Vec<(u32, TypeH)>,
    /// Registers declared so far (the next register number).
    pub(super) nvars: u32,
    /// The entry of `decls` found last (see `ssa::Body::decl_ty`).
    pub(super) last_decl: usize,
    pub(super) scopes: Vec<Scope<'a>>,
    /// Scopes closed, emptied for the next `{` (a scope opened costs no allocation).
    pub(super) spare_scopes: Vec<Scope<'a>>,
    /// [`Scope::len_mask`] of the open scopes past the base ones: a name
    /// whose length bit is clear is declared in none of them (see
    /// `names::Body::lookup`).
    pub(super) inner_mask: u64,
    /// What the base scopes say of each name (by id) looked up since their
    /// last declaration (see `names::Body::lookup`).
    pub(super) outer_names: FxHashMap<usize, (u32, Option<Slot>)>,
    /// Bumped by every declaration in the base scopes (and when they change).
    pub(super) outer_gen: u32,
    /// Register ranges of the body scope found last, direct-mapped by prefix:
    /// (prefix key, generation, first register, count); see `names::Body::lookup`.
    pub(super) recent_ranges: [(u64, u32, u32, u32); 8],
    pub(super) cur: usize,
    pub(super) sp: Span,
    pub(super) loc: Option<(LocDirective, LocH)>,
    /// Register values known at the end of each block (written there, or
    /// found above and cached), keyed by block and register (`ssa::def_key`):
    /// one table for the body, not one per block.
    pub(super) defs: FxHashMap<u64, Value>,
    /// Phis to complete: (register, index in `phis`, block).
    pub(super) work: Vec<(u32, u32, usize)>,
    pub(super) phis: Vec<InstH>,
    /// Operands of every completed phi, phi after phi; `phi_range[i]` is
    /// where phi `i`'s are (start, count).
    pub(super) phi_ops: Vec<(Value, BlockH)>,
    pub(super) phi_range: Vec<(usize, usize)>,
    pub(super) entry_allocas: Vec<InstH>,
    /// Members of a multi-result instruction written to registers of the
    /// block being filled and not read yet: (register, aggregate, member,
    /// type, span of the instruction); `u32::MAX` for a register overwritten
    /// since (its member is never made). See `ssa::Body::defer_member`.
    pub(super) deferred: Vec<(u32, Value, u32, crate::ir::TypeH, Span)>,
    /// Register → 1 + its entry in `deferred` (0: none); allocated zeroed
    /// (the pages of registers never deferred stay untouched).
    pub(super) deferred_at: Vec<u32>,
    /// Bit `var % 64` of every register deferred in this block (a read or
    /// write of any other register skips `deferred_at`).
    pub(super) deferred_mask: u64,
    pub(super) facts: Vec<facts::Pending>,
    pub(super) cond: Option<(Value, bool)>,
    pub(super) switch_value: Option<Value>,
    /// The module's SSA work budget ran out (see `ssa::Body::charge`).
    pub(super) over_budget: bool,
    /// Dominators and phi placement, when the CFG allows (see [`super::dom`]).
    pub(super) dom: Option<Dom>,
    /// Name id (`parse::NameId`) → 1 + its name's id in `dom` (0: no
    /// instruction writes it); dom ids in order of first write.
    pub(super) id_dom: Vec<u32>,
    /// Name id → the register the base scopes say it is, tagged with
    /// `outer_gen + 1` when that was found (0: not known); see
    /// `names::Body::lookup`.
    pub(super) id_vars: Vec<u64>,
    /// Register → 1 + its index in `locals` (0: not met yet). Declared
    /// ranges are often far larger than what the body uses (`%f<110593>`
    /// for 4,097 registers), so only this 4-byte entry is per declared
    /// register, and it is zeroed by the allocator: the pages of registers
    /// never met are never touched (not resident).
    pub(super) var_local: Vec<u32>,
    pub(super) locals: Vec<Local>,
    /// The item slots of the instruction being lowered (its vectors', lists',
    /// pairs' and full addresses' items: `parse::Items` index them), copied
    /// from the syntax tree when it has any.
    pub(super) items: Vec<Operand>,
    /// The body's names by id (`parse::NameId`), moved out of the statements.
    pub(super) names: Vec<&'a str>,
    /// Registers the body declares, inner scopes' included (pass 1's count).
    pub(super) declared: usize,
    /// The register ranges the body scope declares whose elements have
    /// reserved name ids (`parse::VarDecl::first_id`): `%r123` of such a
    /// range is found from its id alone (see `names::Body::lookup_slow`).
    pub(super) id_ranges: smallvec::SmallVec<[IdRange<'a>; 8]>,
    /// The entry of `id_ranges` found last.
    pub(super) last_id_range: usize,
    /// By name id: read it (the sliced lowering, `super::slice::Slice::names`);
    /// empty: every name.
    pub(super) slice_names: Vec<bool>,
    /// The statement being lowered.
    pub(super) cur_stmt: u32,
}

/// The elements of a register range of the body scope that have reserved
/// name ids (see [`Body::id_ranges`]).
#[derive(Clone, Copy)]
pub(super) struct IdRange<'a> {
    /// The name id of the first of them.
    pub(super) first_id: u32,
    /// How many.
    pub(super) count: u32,
    /// The register of the first of them.
    pub(super) base: u32,
    /// Their declared type.
    pub(super) ty: TypeH,
    /// The range's prefix (`%r`).
    pub(super) prefix: &'a str,
}

/// Lowers the body `stmts` of `fd` into `f` (which carries the signature),
/// freeing the statements block by block as pass 2 goes past them.
pub(super) fn lower_body<'a>(
    cx: &mut Cx<'a>,
    fd: &FuncDecl<'a>,
    mut stmts: Stmts<'a>,
    f: Function,
) -> Result<(Function, Vec<facts::Pending>)> {
    // ---- pass 1: blocks and edges -------------------------------------------------
    let mut pres = vec![Pre { first: 0, end: stmts.len(), term: Term::Fall, term_pos: fd.pos }];
    let mut parents: Vec<u32> = vec![0];
    let mut stack: Vec<u32> = vec![0];
    let mut labels: FxHashMap<(u32, &str), usize> = FxHashMap::default();
    // Branch tables by name, with the scope they were written in: their labels
    // are resolved from there once the whole body is read (they name labels
    // further down as often as not).
    let mut tables: FxHashMap<&str, (u32, &[&str])> = FxHashMap::default();
    let mut terminated = false;
    let mut content = false;
    // Labels no branch names (`$L__tmp0`, `$L__func_begin0`) do not split
    // blocks. What the body holds was gathered as it was read: the control
    // instructions (their word matched once), the branch tables, the
    // instructions that may write a register (about the names pass 1 meets:
    // compilers write most registers once, to size that table once) and the
    // registers declared (to size the registers' table once, see
    // `ssa::Body::reserve_locals`).
    let Outline { controls, tables: table_stmts, writers, declared } = stmts.take_outline();
    let mut targets: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
    for &i in &controls {
        if let Some(Stmt::Inst(ins)) = stmts.get(i as usize) {
            if let Some(Operand::Sym(l)) = stmts.operands(ins).last() {
                targets.insert(stmts.name(*l));
            }
        }
    }
    for &i in &table_stmts {
        if let Some(Stmt::BranchTargets(t)) = stmts.get(i as usize) {
            targets.extend(t.targets.iter().copied());
        }
    }
    // The sliced lowering's scan rides along (see `super::slice`).
    let mut scan = super::slice::Scan::new(cx, fd, &stmts);
    // IR instructions the statements may give, about, to size the
    // instruction arena once: three per instruction and two per register it
    // writes (a 128-register `wgmma` gives 129 or more).
    let mut insts = 0usize;
    // A block starts at a branch target or after a control instruction:
    // the lists of blocks and labels sized once.
    pres.reserve(targets.len() + controls.len() + 1);
    let mut next_control = 0usize;
    labels.reserve(targets.len());
    // The names the instructions may write (their first operand), by
    // statement: (name, statement), in order (about one per instruction).
    let mut name_writes: Vec<(u32, u32)> = Vec::with_capacity(writers.saturating_add(writers / 4));
    for (i, s) in stmts.iter().enumerate() {
        let scope = stack.last().copied().unwrap_or(0);
        let new_block = match s {
            Stmt::Label(name, _) => targets.contains(name) && (content || terminated || pres.len() == 1),
            Stmt::Inst(_) => terminated,
            _ => false,
        };
        if new_block {
            if pres.len() >= MAX_BLOCKS {
                return Err(error_at(fd.pos, ErrorKind::LimitExceeded, "too many basic blocks"));
            }
            if let Some(p) = pres.last_mut() {
                p.end = i;
            }
            pres.push(Pre { first: i, end: stmts.len(), term: Term::Fall, term_pos: fd.pos });
            terminated = false;
            content = false;
        }
        let cur = pres.len() - 1;
        match s {
            Stmt::Open(_) => {
                let id = parents.len() as u32;
                parents.push(scope);
                stack.push(id);
                scan.scope(true);
            }
            Stmt::Close(_) => {
                stack.pop();
                scan.scope(false);
            }
            Stmt::Decl(d) => {
                if let Some(d) = stmts.decl(*d) {
                    scan.decl(d);
                }
            }
            Stmt::Label(name, pos) if targets.contains(name) && labels.insert((scope, name), cur).is_some() => {
                return Err(error_at(*pos, ErrorKind::Malformed, format!("label {name} defined twice")));
            }
            Stmt::BranchTargets(t) => {
                tables.insert(t.label, (scope, t.targets.as_slice()));
            }
            Stmt::Inst(ins) => {
                content = true;
                let base = if controls.get(next_control) == Some(&(i as u32)) {
                    next_control += 1;
                    control(ins.op)
                } else {
                    None
                };
                insts += 1;
                if base.is_none() {
                    let ins = stmts.inst(ins);
                    if let Some(o) = ins.operands.first() {
                        // What an instruction gives grows with its destinations
                        // (a member read or an unpacking, a select when guarded).
                        insts = insts.saturating_add(2);
                        written_names(o, ins.items, &mut |name| {
                            insts = insts.saturating_add(2);
                            name_writes.push((name.index() as u32, i as u32));
                        });
                    }
                    scan.inst(cx, i, &ins, stmts.names());
                }
                if let Some(base) = base {
                    let guarded = ins.guard().is_some();
                    let target = match stmts.operands(ins) {
                        [Operand::Sym(l)] => Some(stmts.name(*l)),
                        _ => None,
                    };
                    let term = match (base, guarded) {
                        ("bra", _) => {
                            let Some(l) = target else {
                                return Err(error_at(ins.pos, ErrorKind::Malformed, "branch without a label"));
                            };
                            if guarded {
                                Term::CondBr(l, scope)
                            } else {
                                Term::Br(l, scope)
                            }
                        }
                        ("brx", _) => match stmts.operands(ins) {
                            [_, Operand::Sym(t)] => Term::Switch(stmts.name(*t)),
                            _ => {
                                return Err(error_at(
                                    ins.pos,
                                    ErrorKind::Malformed,
                                    "brx.idx needs an index and a table",
                                ))
                            }
                        },
                        ("trap", false) => Term::Trap,
                        ("trap", true) => Term::CondTrap,
                        (_, false) => Term::Ret,
                        (_, true) => Term::CondRet,
                    };
                    if let Some(p) = pres.last_mut() {
                        p.term = term;
                        p.term_pos = ins.pos;
                    }
                    terminated = true;
                }
            }
            _ => {}
        }
    }
    let falls_off =
        matches!(pres.last().map(|p| p.term), Some(Term::Fall | Term::CondBr(..) | Term::CondRet | Term::CondTrap));
    if falls_off {
        pres.push(Pre { first: stmts.len(), end: stmts.len(), term: Term::Ret, term_pos: fd.pos });
    }
    let resolve = |name: &str, mut scope: u32, pos: Pos| -> Result<usize> {
        loop {
            if let Some(b) = labels.get(&(scope, name)) {
                return Ok(*b);
            }
            if scope == 0 {
                return Err(error_at(pos, ErrorKind::Malformed, format!("undefined label {name}")));
            }
            scope = parents.get(scope as usize).copied().unwrap_or(0);
        }
    };
    let n = pres.len();
    let mut blocks: Vec<Blk> = (0..n).map(|_| Blk::default()).collect();
    for (i, p) in pres.iter().enumerate() {
        let next: Edges = if i + 1 < n { smallvec::smallvec![i + 1] } else { smallvec::smallvec![] };
        let succs = match p.term {
            Term::Fall | Term::CondRet | Term::CondTrap => next,
            Term::Br(l, s) => smallvec::smallvec![resolve(l, s, p.term_pos)?],
            Term::CondBr(l, s) => {
                let mut v = smallvec::smallvec![resolve(l, s, p.term_pos)?];
                v.extend(next);
                v
            }
            Term::Switch(t) => {
                let Some(&(scope, targets)) = tables.get(t) else {
                    return Err(error_at(p.term_pos, ErrorKind::Malformed, format!("undefined branch table {t}")));
                };
                // One table shared by M `brx.idx` gives M copies of its edges:
                // charge them before allocating.
                cx.charge_edges(targets.len(), p.term_pos)?;
                let mut v = Edges::with_capacity(targets.len());
                for l in targets {
                    v.push(resolve(l, scope, p.term_pos)?);
                }
                v
            }
            Term::Ret | Term::Trap => smallvec::smallvec![],
        };
        for &s in &succs {
            if let Some(b) = blocks.get_mut(s) {
                b.preds.push(i);
                b.unfilled += 1;
            }
        }
        if let Some(b) = blocks.get_mut(i) {
            b.succs = succs;
        }
    }
    // Statements the check needs (all when `None`, see `super::slice`).
    let (needed, slice_names) = match scan.finish(&stmts, &name_writes) {
        Some(s) => (Some(s.stmts), s.names),
        None => (None, Vec::new()),
    };
    // The blocks each name is written in, for phi placement: name id → 1 +
    // dom id, given in order of first write (zeroed: the pages of names
    // never written stay untouched), and (dom id, block) once per name and
    // block. The sliced lowering reads only the needed names: the others
    // need none.
    let mut id_dom: Vec<u32> = vec![0; stmts.names().len()];
    let mut dom_count = 0u32;
    let mut writes: Vec<(u32, u32)> = Vec::with_capacity(name_writes.len());
    let mut last_write: Vec<u32> = Vec::new();
    let mut block = 0usize;
    for &(name, stmt) in &name_writes {
        if needed.is_some() && !slice_names.get(name as usize).copied().unwrap_or(true) {
            continue;
        }
        // (Statements and blocks both come in order.)
        while pres.get(block + 1).is_some_and(|p| p.first <= stmt as usize) {
            block += 1;
        }
        let Some(d) = id_dom.get_mut(name as usize) else { continue };
        if *d == 0 {
            dom_count += 1;
            *d = dom_count;
        }
        let id = *d - 1;
        if last_write.len() <= id as usize {
            last_write.push(u32::MAX);
        }
        if last_write[id as usize] != block as u32 {
            last_write[id as usize] = block as u32;
            writes.push((id, block as u32));
        }
    }
    drop(name_writes);
    // A name written in k blocks leaves k - 1 values in `Body::defs` as
    // the blocks are filled (the others stay in its `Local`), and reads in
    // other blocks cache about twice as many again (2.8 to 3.8 times the
    // rewrites on the Triton, nvcc and FlashAttention-3 sets): the table
    // sized once.
    let rewrites = writes.len().saturating_sub(dom_count as usize);
    let cap = MAX_PTX_SSA_WORK.saturating_sub(cx.ssa_work) / 2;
    let mut spent = 0u64;
    let dom = Dom::build(&blocks, writes, dom_count as usize, cap, &mut spent);
    cx.ssa_work = cx.ssa_work.saturating_add(spent);
    let mut f = f;
    f.is_declaration = false;
    // Room for what the instructions may give, the terminators and some
    // phis; past that the arena grows as usual (growth copies it: for a
    // moment both copies are resident). What is reserved and not written
    // takes no memory (its pages are never touched).
    let room = insts.saturating_add(insts / 8).saturating_add(pres.len().saturating_mul(2)).min(MAX_VALUES);
    if f.insts.is_empty() {
        f.insts = crate::ir::Arena::with_capacity(room);
    }
    for b in blocks.iter_mut() {
        b.ir = Some(f.blocks.append(Default::default()));
    }
    // ---- pass 2: fill blocks -------------------------------------------------------
    let mut body = Body {
        body_insts: Vec::with_capacity(room),
        cx,
        f,
        blocks,
        decls: Vec::new(),
        nvars: 0,
        last_decl: 0,
        scopes: vec![Scope::default()],
        spare_scopes: Vec::new(),
        inner_mask: 0,
        outer_names: FxHashMap::default(),
        outer_gen: 0,
        recent_ranges: [(u64::MAX, u32::MAX, 0, 0); 8],
        cur: 0,
        sp: span(fd.pos),
        loc: None,
        defs: FxHashMap::with_capacity_and_hasher(rewrites.saturating_mul(3), Default::default()),
        work: Vec::new(),
        phis: Vec::new(),
        phi_ops: Vec::new(),
        phi_range: Vec::new(),
        entry_allocas: Vec::new(),
        deferred: Vec::new(),
        deferred_at: Vec::new(),
        deferred_mask: 0,
        facts: Vec::new(),
        cond: None,
        switch_value: None,
        over_budget: false,
        dom,
        id_dom,
        id_vars: vec![0; stmts.names().len()],
        var_local: Vec::new(),
        locals: Vec::new(),
        items: Vec::new(),
        names: stmts.take_names(),
        declared,
        id_ranges: smallvec::SmallVec::new(),
        last_id_range: 0,
        slice_names,
        cur_stmt: 0,
    };
    for (i, p) in fd.params.iter().enumerate() {
        body.scopes[0].insert_name(p.name, Slot::Param(i as u32));
    }
    for r in &fd.rets {
        body.declare(r)?;
    }
    for (i, p) in pres.iter().enumerate() {
        body.cur = i;
        let start = body.body_insts.len() as u32;
        body.cond = None;
        body.switch_value = None;
        body.blocks[i].sealed = body.blocks[i].unfilled == 0;
        for k in p.first..p.end {
            let Some(s) = stmts.get(k) else { continue };
            if needed.as_ref().is_some_and(|n| n.get(k) == Some(&0)) {
                continue;
            }
            body.cur_stmt = k as u32;
            body.stmt(s, &stmts)?;
            if body.over_budget {
                return Err(ssa_budget_error(s, &stmts, fd.pos));
            }
            // Statements are read once, in order: those before this one
            // go as their chunks fill (the IR grows as the tree shrinks).
            if k % 512 == 0 {
                stmts.release_before(k);
            }
        }
        // Blocks are consecutive runs of statements: nothing before this
        // block's end is read again.
        stmts.release_before(p.end);
        body.flush_deferred();
        if body.f.insts.len() > MAX_VALUES {
            return Err(error_at(fd.pos, ErrorKind::LimitExceeded, "too many instructions in one function"));
        }
        body.terminate(i, p.term, p.term_pos);
        body.blocks[i].body = (start, body.body_insts.len() as u32);
        body.blocks[i].filled = true;
        let mut k = 0;
        while let Some(&s) = body.blocks[i].succs.get(k) {
            k += 1;
            let b = &mut body.blocks[s];
            b.unfilled = b.unfilled.saturating_sub(1);
            if b.unfilled == 0 && s <= i && !b.sealed {
                body.seal(s);
            }
        }
        if body.over_budget {
            return Err(error_at(p.term_pos, ErrorKind::LimitExceeded, ssa_budget_message()));
        }
    }
    body.finish()
}

fn ssa_budget_message() -> String {
    format!("SSA construction needs more than {MAX_PTX_SSA_WORK} steps (register reads through blocks, phis)")
}

fn ssa_budget_error(s: &Stmt<'_>, stmts: &Stmts<'_>, fallback: Pos) -> crate::read::ReadError {
    let pos = match s {
        Stmt::Inst(i) => i.pos,
        Stmt::Label(_, p) | Stmt::Open(p) | Stmt::Close(p) => *p,
        Stmt::BranchTargets(t) => t.pos,
        Stmt::Decl(d) => stmts.decl(*d).map_or(fallback, |d| d.pos),
        Stmt::Loc(_) => fallback,
    };
    error_at(pos, ErrorKind::LimitExceeded, ssa_budget_message())
}

impl<'c, 'a> Body<'c, 'a> {
    /// The name of id `id` in this body (empty for an id it does not have).
    pub(super) fn name(&self, id: NameId) -> &'a str {
        self.names.get(id.index()).copied().unwrap_or("")
    }

    pub(super) fn ir_block(&self, b: usize) -> BlockH {
        self.blocks.get(b).and_then(|b| b.ir).unwrap_or_else(first_block)
    }

    pub(super) fn emit(&mut self, ty: TypeH, kind: InstKind) -> Value {
        let h = self.f.insts.append(Inst { ty, kind, span: self.sp });
        self.body_insts.push(h);
        Value::Inst(h)
    }

    /// The terminator of block `b`, the block being filled.
    pub(super) fn emit_term(&mut self, b: usize, kind: InstKind) {
        debug_assert_eq!(b, self.cur);
        let ty = self.cx.void();
        let h = self.f.insts.append(Inst { ty, kind, span: self.sp });
        self.body_insts.push(h);
    }

    pub(super) fn terminate(&mut self, i: usize, term: Term<'a>, pos: Pos) {
        self.sp = Span { offset: u64::from(pos.offset), id: pos.line, loc: self.sp.loc };
        // (Taken for the terminator and put back: no copy.)
        let succs = std::mem::take(&mut self.blocks[i].succs);
        let first = succs.first().map(|&s| self.ir_block(s));
        let (cond, neg) = self.cond.unwrap_or((Value::Arg(u32::MAX), false));
        let kind = match (term, first) {
            (Term::Fall | Term::Br(..), Some(t)) => InstKind::Br { target: t },
            (Term::CondBr(..), Some(t)) => {
                let other = succs.get(1).map(|&s| self.ir_block(s)).unwrap_or(t);
                let (if_true, if_false) = if neg { (other, t) } else { (t, other) };
                InstKind::CondBr { cond, if_true, if_false }
            }
            (Term::CondRet | Term::CondTrap, Some(next)) => {
                let exit = self.f.blocks.append(Default::default());
                let ty = self.cx.void();
                let k = if term == Term::CondRet { InstKind::Ret { value: None } } else { InstKind::Unreachable };
                let h = self.f.insts.append(Inst { ty, kind: k, span: self.sp });
                self.f.blocks[exit].insts.push(h);
                let (if_true, if_false) = if neg { (next, exit) } else { (exit, next) };
                InstKind::CondBr { cond, if_true, if_false }
            }
            (Term::Switch(_), Some(default)) => {
                let cases = succs.iter().enumerate().map(|(k, &s)| (k as u64, self.ir_block(s))).collect();
                let value = self.switch_value.unwrap_or(cond);
                InstKind::Switch { value, default, cases }
            }
            (Term::Trap, _) => InstKind::Unreachable,
            _ => InstKind::Ret { value: None },
        };
        // A conditional terminator whose guard was never read (cannot happen for
        // parsed input) falls back to an undefined condition.
        let kind = match kind {
            InstKind::CondBr { cond: Value::Arg(u32::MAX), if_true, if_false } => {
                let bool_ty = self.cx.int(1);
                InstKind::CondBr { cond: self.cx.undef(bool_ty), if_true, if_false }
            }
            InstKind::Switch { value: Value::Arg(u32::MAX), default, cases } => {
                let t = self.cx.int(32);
                InstKind::Switch { value: self.cx.undef(t), default, cases }
            }
            k => k,
        };
        self.blocks[i].succs = succs;
        self.emit_term(i, kind);
    }
}

/// Block 0 (every body has one); a fallback that is never taken.
pub(super) fn first_block() -> BlockH {
    BlockH::from_index(0).unwrap_or_else(|| unreachable!("index 0 is a valid handle"))
}
