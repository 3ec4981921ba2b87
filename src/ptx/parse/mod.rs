//! PTX text → a borrowed syntax tree: module directives, variables, functions
//! and their statements. Instruction words are kept as written (modifiers are
//! read as a set later, see [`super::Opcode`]); unknown instructions are
//! ordinary statements. Every error names line and column.

use super::lex::{error_at, number, Lexer, Number, Pos, Tok, Token};
use crate::read::{ErrorKind, Result};

mod directives;
mod expr;
mod instructions;

pub(crate) use instructions::number_operand;

/// A state space (`.reg`, `.global`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// `.reg`
    Reg,
    /// `.global`
    Global,
    /// `.shared`
    Shared,
    /// `.const`
    Const,
    /// `.local`
    Local,
    /// `.param`
    Param,
    /// `.tex`
    Tex,
}

impl Space {
    fn from_dir(d: &str) -> Option<Space> {
        Some(match d.split("::").next().unwrap_or(d) {
            ".reg" => Space::Reg,
            ".global" => Space::Global,
            ".shared" => Space::Shared,
            ".const" => Space::Const,
            ".local" => Space::Local,
            ".param" => Space::Param,
            ".tex" => Space::Tex,
            _ => return None,
        })
    }

    /// The LLVM NVPTX address-space number (generic 0, global 1, shared 3, const 4, local 5, param 101).
    pub fn address_space(self) -> u32 {
        match self {
            Space::Global => 1,
            Space::Shared => 3,
            Space::Const => 4,
            Space::Local => 5,
            Space::Param => 101,
            Space::Reg | Space::Tex => 0,
        }
    }

    /// Directive spelling.
    pub fn name(self) -> &'static str {
        match self {
            Space::Reg => ".reg",
            Space::Global => ".global",
            Space::Shared => ".shared",
            Space::Const => ".const",
            Space::Local => ".local",
            Space::Param => ".param",
            Space::Tex => ".tex",
        }
    }
}

/// A variable, parameter or register declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct VarDecl<'a> {
    /// State space.
    pub space: Space,
    /// Linkage (`.visible`, `.extern`, `.weak`, `.common`), if any.
    pub linkage: Option<&'a str>,
    /// Element type (`.b32`, `.u64`, `.pred`); `None` when not written.
    pub ty: Option<&'a str>,
    /// `.v2`/`.v4`/`.v8` vector width.
    pub vector: Option<u32>,
    /// `.align N`.
    pub align: Option<u64>,
    /// `.ptr … .align N` of a kernel parameter: the alignment of the memory
    /// the pointer points to (PTX ISA, kernel parameter attribute `.ptr`).
    pub ptr_align: Option<u64>,
    /// Name (without the `<N>` range).
    pub name: &'a str,
    /// `%r<N>`: N registers `%r0 … %r{N-1}`.
    pub range: Option<u32>,
    /// Array dimensions (`None` for `[]`).
    pub dims: Vec<Option<u64>>,
    /// Has an initializer.
    pub init: bool,
    /// Where it is declared.
    pub pos: Pos,
}

/// An operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand<'a> {
    /// A register (`%r1`, `%tid.x`).
    Reg(&'a str),
    /// A negated predicate `!%p1`.
    NotReg(&'a str),
    /// A symbol or label (`global_smem`, `$L__BB0_2`, `mm_param_0`).
    Sym(&'a str),
    /// The sink `_`.
    Sink,
    /// An integer immediate (two's complement).
    Int(i64),
    /// A float immediate: bits and width (32 or 64).
    Float(u64, u16),
    /// A vector `{a, b, …}` (a boxed slice: an operand is 24 bytes).
    Vector(Box<[Operand<'a>]>),
    /// A parenthesised list (call arguments and returns).
    List(Box<[Operand<'a>]>),
    /// `a|b` (two predicate results).
    Pair(Box<Operand<'a>>, Box<Operand<'a>>),
    /// An address `[base + offset]`, optionally with `, extra` inside the brackets
    /// (tensor coordinates: `[%rd1, {%r1, %r2}]`).
    Addr(Addr<'a>),
}

/// The inside of `[…]`, as [`Addr::new`] stores it: inline for the usual
/// register or symbol base with a 32-bit offset and nothing after a comma
/// (no allocation; the operand stays 24 bytes), boxed otherwise. Read it
/// through [`Addr::base`], [`Addr::offset`] and [`Addr::extra`].
#[derive(Debug, Clone, PartialEq)]
pub enum Addr<'a> {
    /// `[%rd1+8]`: a register base and its offset.
    Reg(&'a str, i32),
    /// `[smem+8]`: a symbol base and its offset.
    Sym(&'a str, i32),
    /// Anything else (an immediate or `_` base, a 64-bit offset, operands
    /// after a comma).
    Full(Box<Address<'a>>),
}

impl<'a> Addr<'a> {
    /// The address `[base + offset, extra…]`, inline where it fits.
    pub fn new(base: Operand<'a>, offset: i64, extra: Vec<Operand<'a>>) -> Self {
        match (base, i32::try_from(offset)) {
            (Operand::Reg(r), Ok(o)) if extra.is_empty() => Addr::Reg(r, o),
            (Operand::Sym(s), Ok(o)) if extra.is_empty() => Addr::Sym(s, o),
            (base, _) => Addr::Full(Box::new(Address { base, offset, extra })),
        }
    }

    /// The base: a register, a symbol, `_` or an immediate.
    pub fn base(&self) -> Operand<'a> {
        match self {
            Addr::Reg(r, _) => Operand::Reg(r),
            Addr::Sym(s, _) => Operand::Sym(s),
            Addr::Full(a) => a.base.clone(),
        }
    }

    /// The constant byte offset.
    pub fn offset(&self) -> i64 {
        match self {
            Addr::Reg(_, o) | Addr::Sym(_, o) => i64::from(*o),
            Addr::Full(a) => a.offset,
        }
    }

    /// The operands after a comma (tensor coordinates).
    pub fn extra(&self) -> &[Operand<'a>] {
        match self {
            Addr::Reg(..) | Addr::Sym(..) => &[],
            Addr::Full(a) => &a.extra,
        }
    }
}

/// The inside of `[…]` when it does not fit inline in an [`Addr`].
#[derive(Debug, Clone, PartialEq)]
pub struct Address<'a> {
    /// Register, symbol or immediate base.
    pub base: Operand<'a>,
    /// Constant byte offset.
    pub offset: i64,
    /// Operands after a comma (tensor coordinates).
    pub extra: Vec<Operand<'a>>,
}

/// An instruction statement as stored in [`Stmts`]: its operands are in the
/// body's operand arena ([`Stmts::inst`] gives them with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instruction<'a> {
    /// Guard predicate `@%p` (`true` when negated `@!%p`).
    pub guard: Option<(&'a str, bool)>,
    /// Instruction word with every modifier (`ld.global.v4.b32`).
    pub op: &'a str,
    /// Where its operands are: arena chunk, first index there, count.
    operands: (u32, u32, u32),
    /// Where it starts (the guard, when present).
    pub pos: Pos,
}

/// An instruction with its operands, as the lowering reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InstRef<'s, 'a> {
    /// Guard predicate `@%p` (`true` when negated `@!%p`).
    pub guard: Option<(&'a str, bool)>,
    /// Instruction word with every modifier (`ld.global.v4.b32`).
    pub op: &'a str,
    /// Operands in order.
    pub operands: &'s [Operand<'a>],
    /// Where it starts (the guard, when present).
    pub pos: Pos,
}

/// A statement in a function body.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt<'a> {
    /// `name:`
    Label(&'a str, Pos),
    /// `{` (an inner scope: inline asm, call sequences).
    Open(Pos),
    /// `}`
    Close(Pos),
    /// A declaration (`.reg`, `.local`, `.shared`, `.param`, …).
    Decl(Box<VarDecl<'a>>),
    /// `.loc file line column[, … inlined_at file line column]`.
    Loc(LocDirective),
    /// `label: .branchtargets a, b, …;`
    BranchTargets(&'a str, Vec<&'a str>, Pos),
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
    chunks: Vec<Vec<Stmt<'a>>>,
    len: usize,
    /// Chunks released so far (each call only looks at the new ones).
    released: usize,
    /// Operands of the instructions, in chunks of at least [`Stmts::OPERAND_CHUNK`]:
    /// an instruction's are consecutive in one chunk.
    operands: Vec<Vec<Operand<'a>>>,
    /// For each statement chunk, the operand chunk its first instruction's
    /// operands go to or after.
    operand_marks: Vec<u32>,
    /// Operand chunks released so far.
    operands_released: usize,
}

impl<'a> Stmts<'a> {
    /// Statements per chunk (160 KB: above glibc's initial mmap threshold,
    /// so a released chunk goes back to the system at once).
    pub const CHUNK: usize = 2048;

    /// Operands per arena chunk (at least; 192 KB, above the mmap threshold).
    pub const OPERAND_CHUNK: usize = 8192;

    /// Statements with their first chunks sized for a body of about
    /// `bytes` bytes of text (a statement per 32 bytes, an operand per 16;
    /// nothing reserved for 0). Compilers write a line per 23 to 46 bytes
    /// with two or three operands, so the usual body is read without growing
    /// a chunk by copying it, and what is reserved stays within about four
    /// bytes per byte of text. At most a whole statement chunk (147 KB) and
    /// half an operand chunk (96 KB): a first operand chunk larger than the
    /// statement chunk stayed above glibc's mmap threshold, so every body
    /// mapped and faulted it in afresh (Triton corpus: 5,842 page faults
    /// against 3,201, about 2 µs each on this VM).
    pub fn for_body_bytes(bytes: usize) -> Self {
        let mut s = Stmts::default();
        if bytes > 0 {
            s.chunks.push(Vec::with_capacity((bytes / 32).clamp(4, Self::CHUNK)));
            s.operand_marks.push(0);
            s.operands.push(Vec::with_capacity((bytes / 16).min(Self::OPERAND_CHUNK / 2)));
        }
        s
    }

    /// Appends a statement.
    pub fn push(&mut self, s: Stmt<'a>) {
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

    /// Appends an instruction with its operands.
    pub fn push_inst(
        &mut self,
        guard: Option<(&'a str, bool)>,
        op: &'a str,
        operands: impl ExactSizeIterator<Item = Operand<'a>>,
        pos: Pos,
    ) {
        let n = operands.len();
        let fits = self.operands.last().is_some_and(|c| c.len() + n <= c.capacity().max(Self::OPERAND_CHUNK));
        if !fits {
            // As statements: the first chunk grows as needed, the others are
            // allocated whole (larger for an instruction of more operands).
            let c = if self.operands.is_empty() { Vec::new() } else { Vec::with_capacity(Self::OPERAND_CHUNK.max(n)) };
            self.operands.push(c);
        }
        let k = self.operands.len() - 1;
        let chunk = &mut self.operands[k];
        let start = chunk.len();
        chunk.extend(operands);
        let range = (k as u32, start as u32, n as u32);
        self.push(Stmt::Inst(Instruction { guard, op, operands: range, pos }));
    }

    /// The operand stack of the arena, for a reader that pushes an
    /// instruction's operands there (then [`Stmts::push_inst_pushed`]) or
    /// truncates it to where it was.
    #[inline]
    pub fn operand_stack(&mut self) -> &mut Vec<Operand<'a>> {
        // Room for the usual instruction in the chunk (one of more operands
        // than that grows it).
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
    /// [`Stmts::operand_stack`] from `start` on.
    pub fn push_inst_pushed(&mut self, guard: Option<(&'a str, bool)>, op: &'a str, start: usize, pos: Pos) {
        let k = self.operands.len().saturating_sub(1);
        let n = self.operands.get(k).map_or(0, |c| c.len().saturating_sub(start));
        let range = (k as u32, start as u32, n as u32);
        self.push(Stmt::Inst(Instruction { guard, op, operands: range, pos }));
    }

    /// The operands of an instruction of these statements (empty once released).
    pub fn operands(&self, ins: &Instruction<'a>) -> &[Operand<'a>] {
        let (k, start, n) = ins.operands;
        let (start, n) = (start as usize, n as usize);
        self.operands.get(k as usize).and_then(|c| c.get(start..start + n)).unwrap_or(&[])
    }

    /// An instruction of these statements with its operands.
    pub fn inst<'s>(&'s self, ins: &Instruction<'a>) -> InstRef<'s, 'a> {
        InstRef { guard: ins.guard, op: ins.op, operands: self.operands(ins), pos: ins.pos }
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

/// A `.loc` directive: file index, line, column and the call site it was
/// inlined at (`inlined_at f l c`), if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LocDirective {
    /// `.file` index.
    pub file: u32,
    /// Line.
    pub line: u32,
    /// Column (0 when not written).
    pub col: u32,
    /// `inlined_at` file, line, column.
    pub inlined_at: Option<(u32, u32, u32)>,
}

/// A function (`.entry` or `.func`).
#[derive(Debug, Clone, PartialEq)]
pub struct FuncDecl<'a> {
    /// Name.
    pub name: &'a str,
    /// True for `.entry`.
    pub entry: bool,
    /// Linkage directive, if any.
    pub linkage: Option<&'a str>,
    /// Return parameters of a `.func`.
    pub rets: Vec<VarDecl<'a>>,
    /// Parameters.
    pub params: Vec<VarDecl<'a>>,
    /// Performance and attribute directives (`.reqntid 128`, `.maxnreg 255`, `.noreturn`).
    pub attrs: Vec<(&'a str, Vec<u64>)>,
    /// Body statements; `None` for a prototype.
    pub body: Option<Stmts<'a>>,
    /// Where the `.entry`/`.func` word is.
    pub pos: Pos,
}

/// A parsed PTX module.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PtxModule<'a> {
    /// `.version major.minor`.
    pub version: Option<(u32, u32)>,
    /// `.target` words (`sm_100a`, `debug`, `texmode_independent`).
    pub target: Vec<&'a str>,
    /// `.address_size`.
    pub address_size: Option<u32>,
    /// `.file` index and name.
    pub files: Vec<(u32, String)>,
    /// Module-scope variables.
    pub globals: Vec<VarDecl<'a>>,
    /// Functions in order.
    pub functions: Vec<FuncDecl<'a>>,
    /// `.section` names (`-G` debug sections), skipped.
    pub sections: Vec<&'a str>,
    /// `.pragma` strings.
    pub pragmas: Vec<&'a str>,
}

struct Parser<'a> {
    lx: Lexer<'a>,
    statements: usize,
    files: Vec<(u32, String)>,
    /// Operands of the lists being read (see `Parser::list`).
    scratch: Vec<Operand<'a>>,
}

fn unexpected(t: &Token<'_>, expected: &str) -> crate::read::ReadError {
    let found = match t.kind {
        Tok::Eof => "end of input".to_string(),
        _ => format!("'{}'", t.text.chars().take(40).collect::<String>()),
    };
    let kind = if t.kind == Tok::Eof { ErrorKind::UnexpectedEof } else { ErrorKind::Malformed };
    error_at(t.into(), kind, format!("expected {expected}, found {found}"))
}

const LINKAGE: [&str; 4] = [".visible", ".extern", ".weak", ".common"];
const ATTRS: [&str; 10] = [
    ".maxntid",
    ".reqntid",
    ".minnctapersm",
    ".maxnctapersm",
    ".maxnreg",
    ".noreturn",
    ".explicitcluster",
    ".reqnctapercluster",
    ".maxclusterrank",
    ".blocksareclusters",
];

impl<'a> Parser<'a> {
    fn expect_punct(&mut self, c: u8) -> Result<Token<'a>> {
        let t = self.lx.next()?;
        if t.is(c) {
            Ok(t)
        } else {
            Err(unexpected(&t, &format!("'{}'", c as char)))
        }
    }

    fn eat_punct(&mut self, c: u8) -> Result<bool> {
        if self.lx.peek()?.is(c) {
            self.lx.next()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn uint(&mut self) -> Result<u64> {
        let t = self.lx.next()?;
        match (t.kind, number(t.text)) {
            (Tok::Num, Some(Number::Int(v))) => Ok(v),
            _ => Err(unexpected(&t, "an integer")),
        }
    }

    fn uint32(&mut self) -> Result<u32> {
        let t = self.lx.peek()?;
        let v = self.uint()?;
        u32::try_from(v).map_err(|_| error_at((&t).into(), ErrorKind::Malformed, "integer out of range"))
    }

    /// Skips tokens up to and including the `;` that ends a statement, balancing braces.
    fn skip_statement(&mut self) -> Result<()> {
        let mut depth = 0u32;
        loop {
            let t = self.lx.next()?;
            match t.kind {
                Tok::Eof => return Err(unexpected(&t, "';'")),
                Tok::Punct(b'{') => depth = depth.saturating_add(1),
                Tok::Punct(b'}') => depth = depth.saturating_sub(1),
                Tok::Punct(b';') if depth == 0 => return Ok(()),
                _ => {}
            }
        }
    }

    /// Skips a balanced `{ … }` (the opening brace is next).
    fn skip_braces(&mut self) -> Result<()> {
        self.expect_punct(b'{')?;
        if self.lx.skip_block() {
            return Ok(());
        }
        let mut depth = 1u32;
        loop {
            let t = self.lx.next()?;
            match t.kind {
                Tok::Eof => return Err(unexpected(&t, "'}'")),
                Tok::Punct(b'{') => depth = depth.saturating_add(1),
                Tok::Punct(b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
    }
}

/// The items of `v` from `at` on, moved into a vector of exactly their
/// number (one allocation and a copy; `v` keeps its capacity). Unlike
/// `Vec::split_off`, never hands over `v`'s own buffer when `at` is 0.
pub(crate) fn take_tail<T>(v: &mut Vec<T>, at: usize) -> Vec<T> {
    if at == 0 {
        let mut t = Vec::with_capacity(v.len());
        t.append(v);
        return t;
    }
    v.split_off(at.min(v.len()))
}

fn unquote(s: &str) -> String {
    s.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(s).to_string()
}

/// Parses PTX text into a module.
pub fn parse(text: &str) -> Result<PtxModule<'_>> {
    Parser { lx: Lexer::new(text), statements: 0, files: Vec::new(), scratch: Vec::new() }.module()
}

#[cfg(test)]
mod fast_tests;

#[cfg(test)]
mod size_tests;

#[cfg(test)]
mod loc_tests {
    use super::*;

    fn parser(s: &str) -> Parser<'_> {
        Parser { lx: Lexer::new(s), statements: 0, files: Vec::new(), scratch: Vec::new() }
    }

    /// The `.loc` arguments read byte by byte equal those read token by token
    /// (forced by a peeked token, which the fast path never skips over), and
    /// the next token is the same.
    #[test]
    fn loc_fast_path_matches_the_tokens() {
        for s in [
            "\t1 243 0\n\tld.u32 %r1, [x];",
            " 1 9\n}",
            " 3 0 0",
            "\t1 22 7, function_name $L__info_string3, inlined_at 2 310 9\n\tret;",
            "\t1 22 7, function_name $L__info_string3, inlined_at 2 310 9 \r\n$L__BB0_1:",
            "\t1 22 7, function_name $L__info_string3, inlined_at 2 310 9, inlined_at 4 5 6\nret;",
            " 1 243 0 // c\nret;",
            " 1 243 0 /* c */ 4\nret;",
            " 1 243 0 /* c\n */ ret;",
            " 1 243 // c\nret;",
            " 1 243 0x10\nret;",
            " 1 243 010\nret;",
        ] {
            let mut fast = parser(s);
            let a = fast.loc_args().unwrap();
            let mut slow = parser(s);
            slow.lx.peek().unwrap();
            let b = slow.loc_args().unwrap();
            assert_eq!(a, b, "{s:?}");
            assert_eq!(fast.lx.next().unwrap(), slow.lx.next().unwrap(), "{s:?}");
        }
        let mut p = parser("\t1 22 7, function_name $L__info_string3, inlined_at 2 310 9\n");
        assert!(p.lx.simple_loc().is_some(), "the usual -lineinfo form takes the fast path");
    }
}
