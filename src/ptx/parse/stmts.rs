//! The statements of a function body: instructions with their operands in
//! an arena of chunks, declarations beside them, all released block by
//! block as the lowering goes past them.

use super::{Items, NameId, Operand, VarDecl};
use crate::ptx::lex::Pos;
use crate::ptx::parse::LocDirective;

/// An instruction statement as stored in [`Stmts`]: its operands are in the
/// body's operand arena ([`Stmts::inst`] gives them with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instruction<'a> {
    /// Guard predicate `@%p`, by its name's index ([`NO_GUARD`]: none; read
    /// through [`Instruction::guard`]; negated when [`InstRef::guard`] says so).
    guard: u32,
    /// The guard is negated (`@!%p`).
    neg: bool,
    /// Instruction word with every modifier (`ld.global.v4.b32`).
    pub op: &'a str,
    /// The operand arena chunk its operands are in.
    chunk: u32,
    /// Index of its first operand there.
    start: u32,
    /// Number of operands (at most `MAX_PTX_OPERANDS`, which the reader
    /// enforces).
    n: u16,
    /// Number of item slots after them.
    m: u32,
    /// Where it starts (the guard, when present).
    pub pos: Pos,
}

/// [`Instruction`]'s guard slot when there is none (a body has fewer names:
/// `MAX_PTX_NAMES`).
const NO_GUARD: u32 = u32::MAX;

impl Instruction<'_> {
    /// The guard predicate `@%p`, if any.
    pub fn guard(&self) -> Option<NameId> {
        (self.guard != NO_GUARD).then_some(NameId::new(self.guard))
    }
}

/// A branch table (`label: .branchtargets a, b, …;`).
#[derive(Debug, Clone, PartialEq)]
pub struct BranchTable<'a> {
    /// Its label.
    pub label: &'a str,
    /// The labels it lists.
    pub targets: Vec<&'a str>,
    /// Where it is.
    pub pos: Pos,
}

/// An instruction with its operands, as the lowering reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InstRef<'s, 'a> {
    /// Guard predicate `@%p` (`true` when negated `@!%p`).
    pub guard: Option<(NameId, bool)>,
    /// Instruction word with every modifier (`ld.global.v4.b32`).
    pub op: &'a str,
    /// Operands in order.
    pub operands: &'s [Operand],
    /// The item slots of its lists, pairs and full addresses ([`Items`]).
    pub items: &'s [Operand],
    /// Where it starts (the guard, when present).
    pub pos: Pos,
}

impl<'s, 'a> InstRef<'s, 'a> {
    /// The items of a list, pair or full address of this instruction.
    pub fn list(&self, r: Items) -> &'s [Operand] {
        r.of(self.items)
    }
}

const _: () = assert!(crate::read::limits::MAX_PTX_OPERANDS < u16::MAX as usize);

/// A statement in a function body.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt<'a> {
    /// `name:`
    Label(&'a str, Pos),
    /// `{` (an inner scope: inline asm, call sequences).
    Open(Pos),
    /// `}`
    Close(Pos),
    /// A declaration (`.reg`, `.local`, `.shared`, `.param`, …): its index
    /// in the body's declarations ([`Stmts::decl`]; released with its chunk).
    Decl(u32),
    /// `.loc file line column[, … inlined_at file line column]`.
    Loc(LocDirective),
    /// `label: .branchtargets a, b, …;` (boxed: statements stay 48 bytes).
    BranchTargets(Box<BranchTable<'a>>),
    /// An instruction.
    Inst(Instruction<'a>),
}

/// The statements of a function body, in chunks of [`Stmts::CHUNK`]: a long
/// body is never copied to grow, and the lowering frees the chunks it has
/// passed ([`Stmts::release_before`]), so the syntax tree of a large function
/// shrinks while its IR grows. The instructions' operands are in an arena of
/// chunks beside them (no allocation per instruction), released with them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stmts<'a> {
    pub(super) chunks: Vec<Vec<Stmt<'a>>>,
    pub(super) len: usize,
    /// Chunks released so far (each call only looks at the new ones).
    pub(super) released: usize,
    /// Operands of the instructions, in chunks of at least [`Stmts::OPERAND_CHUNK`]:
    /// an instruction's are consecutive in one chunk.
    pub(super) operands: Vec<Vec<Operand>>,
    /// For each statement chunk, the operand chunk its first instruction's
    /// operands go to or after.
    pub(super) operand_marks: Vec<u32>,
    /// Operand chunks released so far.
    pub(super) operands_released: usize,
    /// The declarations of each statement chunk, in order ([`Stmt::Decl`]
    /// indexes them), released with it.
    pub(super) decls: Vec<Vec<VarDecl<'a>>>,
    /// The body's names by id ([`NameId`]), never released (`""`: a
    /// reserved id never read).
    pub(super) names: Vec<&'a str>,
    /// What the lowering needs before it walks the body, gathered as the
    /// statements are appended ([`Stmts::take_outline`]).
    pub(super) outline: Outline,
}

/// What a body holds, gathered as it is read: the lowering sizes its tables
/// and finds the labels that start blocks from it without a walk of its own.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outline {
    /// The statements that are control instructions (`bra`, `brx`, `ret`,
    /// `exit`, `trap`: [`control_word`]), in order.
    pub controls: Vec<u32>,
    /// The statements that are branch tables, in order.
    pub tables: Vec<u32>,
    /// The other instructions (each may write a register).
    pub writers: usize,
    /// Registers declared, inner scopes' included (a range counts its
    /// registers).
    pub declared: usize,
}

/// The base of a control instruction's word (`bra`, `brx`, `ret`, `exit`,
/// `trap`): a branch, return or trap ends a basic block.
pub fn control_word(op: &str) -> Option<&str> {
    // Most words start with another letter: no scan for the dot.
    if !matches!(op.as_bytes().first(), Some(b'b' | b'r' | b'e' | b't')) {
        return None;
    }
    let base = op.get(..op.bytes().position(|b| b == b'.').unwrap_or(op.len())).unwrap_or(op);
    matches!(base, "bra" | "brx" | "ret" | "exit" | "trap").then_some(base)
}

impl<'a> Stmts<'a> {
    /// Statements per chunk (96 KB: under glibc's initial mmap threshold, so
    /// a released chunk stays in the heap for what the lowering allocates next).
    pub const CHUNK: usize = 2048;

    /// Operands per arena chunk (at least; 128 KB).
    pub const OPERAND_CHUNK: usize = 8192;

    /// Statements with their first chunks sized for a body of about
    /// `bytes` bytes of text (a statement per 32 bytes, an operand per 16;
    /// nothing reserved for 0). Compilers write a line per 23 to 46 bytes
    /// with two or three operands, so the usual body is read without growing
    /// a chunk by copying it, and what is reserved stays within about three
    /// bytes per byte of text. At most a whole statement chunk (96 KB) and
    /// half an operand chunk (64 KB): a first operand chunk larger than the
    /// statement chunk stayed above glibc's mmap threshold, so every body
    /// mapped and faulted it in afresh (Triton corpus, with 24-byte operands:
    /// 5,842 page faults against 3,201, about 2 µs each on this VM).
    pub fn for_body_bytes(bytes: usize) -> Self {
        let mut s = Stmts::default();
        if bytes > 0 {
            s.chunks.push(Vec::with_capacity((bytes / 32).clamp(4, Self::CHUNK)));
            s.operand_marks.push(0);
            s.operands.push(Vec::with_capacity((bytes / 16).min(Self::OPERAND_CHUNK / 2)));
        }
        s
    }

    /// The body's names by id: every register and symbol name its operands,
    /// guards and declarations use ([`NameId`] indexes it), and maybe a few
    /// more read while trying the one-line path; `""` for the ids a
    /// register range reserved ([`super::VarDecl::first_id`]) whose name
    /// the body never reads.
    pub fn names(&self) -> &[&'a str] {
        &self.names
    }

    /// The name of id `id` (empty for an id of another body, or reserved
    /// and never read).
    pub fn name(&self, id: NameId) -> &'a str {
        self.names.get(id.index()).copied().unwrap_or("")
    }

    /// The table of names, moved out (a reader of the body keeps it while
    /// the statements are released).
    pub fn take_names(&mut self) -> Vec<&'a str> {
        std::mem::take(&mut self.names)
    }

    /// What the body holds ([`Outline`]), moved out.
    pub fn take_outline(&mut self) -> Outline {
        std::mem::take(&mut self.outline)
    }

    /// Appends a statement.
    pub fn push(&mut self, s: Stmt<'a>) {
        match &s {
            Stmt::Inst(ins) if control_word(ins.op).is_some() => self.outline.controls.push(self.len as u32),
            Stmt::Inst(_) => self.outline.writers += 1,
            Stmt::BranchTargets(_) => self.outline.tables.push(self.len as u32),
            _ => {}
        }
        match self.chunks.last_mut() {
            Some(c) if c.len() < Self::CHUNK => c.push(s),
            // The first chunk grows as needed (most bodies are short), the
            // others are allocated whole.
            last => {
                let mut c = if last.is_none() { Vec::new() } else { Vec::with_capacity(Self::CHUNK) };
                c.push(s);
                self.chunks.push(c);
                self.operand_marks.push(self.operands.len().saturating_sub(1) as u32);
            }
        }
        self.len += 1;
    }

    /// Appends a declaration (kept with the statement chunk it is in:
    /// [`Stmt::Decl`] holds chunk × [`Stmts::CHUNK`] + its index there).
    pub fn push_decl(&mut self, d: VarDecl<'a>) {
        if d.space == super::Space::Reg {
            self.outline.declared = self.outline.declared.saturating_add(d.range.unwrap_or(1) as usize);
        }
        self.push(Stmt::Decl(0));
        let k = self.chunks.len() - 1;
        if self.decls.len() <= k {
            self.decls.resize_with(k + 1, Vec::new);
        }
        let id = (k * Self::CHUNK + self.decls[k].len()) as u32;
        self.decls[k].push(d);
        if let Some(Stmt::Decl(x)) = self.chunks[k].last_mut() {
            *x = id;
        }
    }

    /// Declaration `i` ([`Stmt::Decl`]); `None` once released.
    pub fn decl(&self, i: u32) -> Option<&VarDecl<'a>> {
        let i = i as usize;
        self.decls.get(i / Self::CHUNK)?.get(i % Self::CHUNK)
    }

    /// Appends an instruction with its operands and the item slots of its
    /// lists ([`Items`] index `items`).
    pub fn push_inst(
        &mut self,
        guard: Option<(NameId, bool)>,
        op: &'a str,
        operands: impl ExactSizeIterator<Item = Operand>,
        items: &[Operand],
        pos: Pos,
    ) {
        let n = operands.len();
        let m = items.len();
        let fits = self.operands.last().is_some_and(|c| c.len() + n + m <= c.capacity().max(Self::OPERAND_CHUNK));
        if !fits {
            // As statements: the first chunk grows as needed, the others are
            // allocated whole (larger for an instruction of more operands).
            let c =
                if self.operands.is_empty() { Vec::new() } else { Vec::with_capacity(Self::OPERAND_CHUNK.max(n + m)) };
            self.operands.push(c);
        }
        let k = self.operands.len() - 1;
        let chunk = &mut self.operands[k];
        let start = chunk.len();
        chunk.extend(operands);
        chunk.extend_from_slice(items);
        self.push_instruction(guard, op, (k, start, n, m), pos);
    }

    /// Appends the instruction whose `n` operands and `m` item slots start
    /// at `start` in operand chunk `k`.
    fn push_instruction(
        &mut self,
        guard: Option<(NameId, bool)>,
        op: &'a str,
        (k, start, n, m): (usize, usize, usize, usize),
        pos: Pos,
    ) {
        let (chunk, start, n, m) = (k as u32, start as u32, u16::try_from(n).unwrap_or(u16::MAX), m as u32);
        let (guard, neg) = (guard.map_or(NO_GUARD, |g| g.0.index() as u32), guard.is_some_and(|g| g.1));
        self.push(Stmt::Inst(Instruction { guard, neg, op, chunk, start, n, m, pos }));
    }

    /// The operand stack of the arena, for a reader that pushes an
    /// instruction's operands there (then [`Stmts::push_inst_pushed`]) or
    /// truncates it to where it was.
    #[inline]
    pub fn operand_stack(&mut self) -> &mut Vec<Operand> {
        // Room for the usual instruction in the chunk with its items (one of
        // more than that grows it): a `wgmma` of 128 accumulators fits.
        const ROOM: usize = 64;
        let room = self.operands.last().is_some_and(|c| c.len() + ROOM <= c.capacity().max(Self::OPERAND_CHUNK));
        if !room {
            let c = if self.operands.is_empty() { Vec::new() } else { Vec::with_capacity(Self::OPERAND_CHUNK) };
            self.operands.push(c);
        }
        let k = self.operands.len() - 1;
        &mut self.operands[k]
    }

    /// Appends an instruction whose operands are those pushed on
    /// [`Stmts::operand_stack`] from `start` on, and whose item slots are
    /// `items` (moved after them; `items` is left empty).
    pub fn push_inst_pushed(
        &mut self,
        guard: Option<(NameId, bool)>,
        op: &'a str,
        start: usize,
        items: &mut Vec<Operand>,
        pos: Pos,
    ) {
        let k = self.operands.len().saturating_sub(1);
        let (mut n, m) = (0, items.len());
        if let Some(c) = self.operands.get_mut(k) {
            n = c.len().saturating_sub(start);
            c.extend_from_slice(items);
        }
        items.clear();
        self.push_instruction(guard, op, (k, start, n, m), pos);
    }

    /// The operands and the item slots of an instruction of these statements
    /// (empty once released).
    fn slots(&self, ins: &Instruction<'a>) -> (&[Operand], &[Operand]) {
        let (start, n, m) = (ins.start as usize, usize::from(ins.n), ins.m as usize);
        match self.operands.get(ins.chunk as usize).and_then(|c| c.get(start..start + n + m)) {
            Some(s) => s.split_at(n),
            None => (&[], &[]),
        }
    }

    /// The operands of an instruction of these statements (empty once released).
    pub fn operands(&self, ins: &Instruction<'a>) -> &[Operand] {
        self.slots(ins).0
    }

    /// An instruction of these statements with its operands.
    pub fn inst<'s>(&'s self, ins: &Instruction<'a>) -> InstRef<'s, 'a> {
        let (operands, items) = self.slots(ins);
        InstRef { guard: ins.guard().map(|g| (g, ins.neg)), op: ins.op, operands, items, pos: ins.pos }
    }

    /// Number of statements (released ones included).
    pub fn len(&self) -> usize {
        self.len
    }

    /// No statement.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Statement `i`; `None` past the end or once released.
    pub fn get(&self, i: usize) -> Option<&Stmt<'a>> {
        self.chunks.get(i / Self::CHUNK)?.get(i % Self::CHUNK)
    }

    /// Every statement not released, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Stmt<'a>> {
        self.chunks.iter().flatten()
    }

    /// Frees the chunks that hold only statements before `i`, and the
    /// operand chunks that hold only their operands.
    pub fn release_before(&mut self, i: usize) {
        let upto = (i / Self::CHUNK).min(self.chunks.len());
        if upto <= self.released {
            return;
        }
        for c in self.chunks.get_mut(self.released..upto).unwrap_or(&mut []) {
            *c = Vec::new();
        }
        for d in self.decls.get_mut(self.released..upto).unwrap_or(&mut []) {
            *d = Vec::new();
        }
        self.released = upto;
        let ops_upto = match self.operand_marks.get(upto) {
            Some(&m) => (m as usize).min(self.operands.len()),
            None => self.operands.len(),
        };
        for c in self.operands.get_mut(self.operands_released..ops_upto).unwrap_or(&mut []) {
            *c = Vec::new();
        }
        self.operands_released = self.operands_released.max(ops_upto);
    }
}
