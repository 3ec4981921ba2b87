//! PTX text → a borrowed syntax tree: module directives, variables, functions
//! and their statements. Instruction words are kept as written (modifiers are
//! read as a set later, see [`super::Opcode`]); unknown instructions are
//! ordinary statements. Every error names line and column.

use super::lex::{error_at, number, Lexer, Number, Pos, Tok, Token};
use crate::read::{ErrorKind, Result};

mod directives;
mod expr;
mod instructions;
mod names;
mod stmts;

pub(crate) use instructions::number_operand;
pub use names::NameId;
pub(crate) use names::{digits_value, nondigit_bits, Interner};
pub use stmts::{control_word, BranchTable, InstRef, Instruction, Outline, Stmt, Stmts};

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
    /// The name's id in its function body's name table ([`Stmts::names`]);
    /// `None` outside a body (module variables, parameters).
    pub id: Option<NameId>,
    /// `%r<N>`: N registers `%r0 … %r{N-1}`.
    pub range: Option<u32>,
    /// For a range the function body's own scope declares (not an inner
    /// `{ … }` scope): the id of `%r{F}` (F = [`VarDecl::reserved_from`])
    /// when the ids of `%r{F} … %r{F+R-1}` (R = [`VarDecl::reserved`]) were
    /// reserved, so that `%rK` has id `first_id + (K - F)` wherever the body
    /// reads it, for F <= K < F+R (its name is in [`Stmts::names`] once
    /// read). F is 0 for a range of at most 4,096 registers (all of them
    /// reserved), else N - 4,096 (nvcc uses the top of its oversized
    /// ranges). `None` when nothing was reserved (an inner scope, module
    /// scope, a prefix of more than 7 bytes or with a digit, a name of the
    /// form already read before the declaration, more than 8 ranges, an
    /// element's name longer than 8 bytes, or past the module's budget of an
    /// id per 8 bytes of text): its elements then get ids as they are read,
    /// like any name, as do elements outside F..F+R.
    pub first_id: Option<NameId>,
    /// The first element with a reserved id (see [`VarDecl::first_id`]).
    pub reserved_from: u32,
    /// How many elements from [`VarDecl::reserved_from`] on have reserved
    /// ids (0 when none, at most 4,096).
    pub reserved: u32,
    /// Array dimensions (`None` for `[]`).
    pub dims: Vec<Option<u64>>,
    /// Has an initializer.
    pub init: bool,
    /// Where it is declared.
    pub pos: Pos,
}

/// Where the items of a `{…}` vector, a `(…)` list, an `a|b` pair or a
/// full address are: a range of the instruction's item slots
/// ([`InstRef::items`]), which follow its operands in the body's operand
/// arena (no allocation per list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Items {
    start: u32,
    len: u32,
}

impl Items {
    /// Number of items.
    pub fn len(self) -> usize {
        self.len as usize
    }

    /// No item.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The indexes of the items in the instruction's item slots.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }

    /// The items in `items`, the item slots of their instruction (empty
    /// when out of range).
    pub fn of(self, items: &[Operand]) -> &[Operand] {
        items.get(self.range()).unwrap_or(&[])
    }

    /// The range `start..end` of item slots (`None` past `u32`).
    pub(crate) fn new(start: usize, end: usize) -> Option<Items> {
        Some(Items { start: u32::try_from(start).ok()?, len: u32::try_from(end.checked_sub(start)?).ok()? })
    }
}

/// An operand. Lists, pairs and full addresses keep their items in the
/// instruction's item slots ([`Items`]): an operand is 16 bytes with no heap
/// part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Operand {
    /// A register (`%r1`, `%tid.x`): its name's id ([`NameId`]; the name is
    /// in the body's table, [`Stmts::names`]).
    Reg(NameId),
    /// A negated predicate `!%p1`.
    NotReg(NameId),
    /// A symbol, label or register named without `%` (`global_smem`,
    /// `$L__BB0_2`, `mm_param_0`, `p`).
    Sym(NameId),
    /// The sink `_`.
    Sink,
    /// An integer immediate (two's complement).
    Int(i64),
    /// A float immediate: bits and width (32 or 64).
    Float(u64, u16),
    /// A vector `{a, b, …}`.
    Vector(Items),
    /// A parenthesised list (call arguments and returns).
    List(Items),
    /// `a|b` (two predicate results): two items.
    Pair(Items),
    /// An address `[base + offset]`, optionally with `, extra` inside the brackets
    /// (tensor coordinates: `[%rd1, {%r1, %r2}]`).
    Addr(Addr),
}

/// The inside of `[…]`: inline for the usual register or symbol base with a
/// 32-bit offset and nothing after a comma, else as items: the base, the
/// operands after commas, and the 64-bit offset last (an [`Operand::Int`]).
/// Read it through [`Addr::base`], [`Addr::offset`] and [`Addr::extra`],
/// which take the instruction's item slots. (Keeping the offset in the items
/// keeps an operand at 16 bytes.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Addr {
    /// `[%rd1+8]`: a register base and its offset.
    Reg(NameId, i32),
    /// `[smem+8]`: a symbol base and its offset.
    Sym(NameId, i32),
    /// Anything else (an immediate or `_` base, a 64-bit offset, operands
    /// after a comma): the base, the extra operands and the offset, as items.
    Full(Items),
}

impl Addr {
    /// The address `[base + offset]` with no extra operand, inline when the
    /// base is a register or symbol and the offset fits 32 bits; `None`
    /// otherwise (then it is an [`Addr::Full`] with its base in the items).
    pub fn inline(base: Operand, offset: i64) -> Option<Self> {
        match (base, i32::try_from(offset)) {
            (Operand::Reg(r), Ok(o)) => Some(Addr::Reg(r, o)),
            (Operand::Sym(s), Ok(o)) => Some(Addr::Sym(s, o)),
            _ => None,
        }
    }

    /// The base: a register, a symbol, `_` or an immediate (`items`: the
    /// instruction's item slots).
    pub fn base(&self, items: &[Operand]) -> Operand {
        match self {
            Addr::Reg(r, _) => Operand::Reg(*r),
            Addr::Sym(s, _) => Operand::Sym(*s),
            Addr::Full(i) => i.of(items).first().copied().unwrap_or(Operand::Int(0)),
        }
    }

    /// The constant byte offset (`items`: the instruction's item slots).
    pub fn offset(&self, items: &[Operand]) -> i64 {
        match self {
            Addr::Reg(_, o) | Addr::Sym(_, o) => i64::from(*o),
            Addr::Full(i) => match i.of(items) {
                [_, .., Operand::Int(o)] => *o,
                _ => 0,
            },
        }
    }

    /// The operands after a comma (tensor coordinates).
    pub fn extra<'s>(&self, items: &'s [Operand]) -> &'s [Operand] {
        items.get(self.extra_range()).unwrap_or(&[])
    }

    /// True when operands follow the base after commas.
    pub fn has_extra(&self) -> bool {
        !self.extra_range().is_empty()
    }

    /// The slots of [`Addr::extra`] in the instruction's item slots.
    pub fn extra_range(&self) -> std::ops::Range<usize> {
        match self {
            Addr::Full(i) if i.len() > 2 => {
                let r = i.range();
                r.start + 1..r.end - 1
            }
            _ => 0..0,
        }
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
    scratch: Vec<Operand>,
    /// The item slots of the instruction being read ([`Items`]).
    items: Vec<Operand>,
    /// The names of the body being read.
    names: names::Interner<'a>,
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

fn unquote(s: &str) -> String {
    s.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(s).to_string()
}

/// Parses PTX text into a module.
pub fn parse(text: &str) -> Result<PtxModule<'_>> {
    Parser::new(text).module()
}

impl<'a> Parser<'a> {
    /// A parser at the start of `text`.
    fn new(text: &'a str) -> Self {
        Parser {
            lx: Lexer::new(text),
            statements: 0,
            files: Vec::new(),
            scratch: Vec::new(),
            items: Vec::new(),
            names: names::Interner::for_text(text.len()),
        }
    }
}

#[cfg(test)]
mod fast_tests;

#[cfg(test)]
mod size_tests;

#[cfg(test)]
mod loc_tests {
    use super::*;

    fn parser(s: &str) -> Parser<'_> {
        Parser::new(s)
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
