//! PTX text → a borrowed syntax tree: module directives, variables, functions
//! and their statements. Instruction words are kept as written (modifiers are
//! read as a set later, see [`super::Opcode`]); unknown instructions are
//! ordinary statements. Every error names line and column.

use super::lex::{error_at, number, Lexer, Number, Pos, Tok, Token};
use crate::read::limits::{MAX_PTX_NESTING, MAX_PTX_OPERANDS, MAX_PTX_STATEMENTS};
use crate::read::{ErrorKind, Result};
use smallvec::SmallVec;

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
    /// A vector `{a, b, …}`.
    Vector(Vec<Operand<'a>>),
    /// A parenthesised list (call arguments and returns).
    List(Vec<Operand<'a>>),
    /// `a|b` (two predicate results).
    Pair(Box<Operand<'a>>, Box<Operand<'a>>),
    /// An address `[base + offset]`, optionally with `, extra` inside the brackets
    /// (tensor coordinates: `[%rd1, {%r1, %r2}]`).
    Addr(Box<Address<'a>>),
}

/// The inside of `[…]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Address<'a> {
    /// Register, symbol or immediate base.
    pub base: Operand<'a>,
    /// Constant byte offset.
    pub offset: i64,
    /// Operands after a comma (tensor coordinates).
    pub extra: Vec<Operand<'a>>,
}

/// An instruction statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction<'a> {
    /// Guard predicate `@%p` (`true` when negated `@!%p`).
    pub guard: Option<(&'a str, bool)>,
    /// Instruction word with every modifier (`ld.global.v4.b32`).
    pub op: &'a str,
    /// Operands in order.
    pub operands: SmallVec<[Operand<'a>; 4]>,
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
    Decl(VarDecl<'a>),
    /// `.loc file line column[, … inlined_at file line column]`.
    Loc(LocDirective),
    /// `label: .branchtargets a, b, …;`
    BranchTargets(&'a str, Vec<&'a str>, Pos),
    /// An instruction.
    Inst(Instruction<'a>),
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
    pub body: Option<Vec<Stmt<'a>>>,
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

    fn module(mut self) -> Result<PtxModule<'a>> {
        let mut m = PtxModule::default();
        loop {
            let t = self.lx.next()?;
            match t.kind {
                Tok::Eof => break,
                Tok::Dir => self.module_directive(&mut m, t)?,
                Tok::Punct(b';') => {}
                _ => return Err(unexpected(&t, "a directive")),
            }
        }
        m.files = std::mem::take(&mut self.files);
        Ok(m)
    }

    fn module_directive(&mut self, m: &mut PtxModule<'a>, t: Token<'a>) -> Result<()> {
        match t.text {
            ".version" => {
                let v = self.lx.next()?;
                let parsed = v.text.split_once('.').and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
                match (v.kind, parsed) {
                    (Tok::Num, Some(p)) => m.version = Some(p),
                    _ => return Err(unexpected(&v, "a version number major.minor")),
                }
            }
            ".target" => loop {
                let w = self.lx.next()?;
                if w.kind != Tok::Word {
                    return Err(unexpected(&w, "a target name"));
                }
                m.target.push(w.text);
                if !self.eat_punct(b',')? {
                    break;
                }
            },
            ".address_size" => m.address_size = Some(self.uint32()?),
            ".file" => self.file()?,
            ".section" => {
                let name = self.lx.next()?;
                m.sections.push(name.text);
                self.skip_braces()?;
            }
            ".pragma" => {
                let s = self.lx.next()?;
                m.pragmas.push(s.text);
                self.expect_punct(b';')?;
            }
            ".loc" => {
                self.loc_args()?;
            }
            ".entry" | ".func" => {
                let f = self.function(None, t)?;
                m.functions.push(f);
            }
            d if LINKAGE.contains(&d) => {
                let next = self.lx.peek()?;
                if next.kind == Tok::Dir && (next.text == ".entry" || next.text == ".func") {
                    let w = self.lx.next()?;
                    let f = self.function(Some(d), w)?;
                    m.functions.push(f);
                } else {
                    let first = self.lx.next()?;
                    let v = self.var_decl(Some(d), first, true)?;
                    m.globals.extend(v);
                }
            }
            _ if Space::from_dir(t.text).is_some() => {
                let v = self.var_decl(None, t, true)?;
                m.globals.extend(v);
            }
            ".alias" => self.skip_statement()?,
            _ => return Err(error_at((&t).into(), ErrorKind::Malformed, format!("unknown directive {}", t.text))),
        }
        Ok(())
    }

    /// `.file index "name"[, timestamp, size]` (module scope, or inside a body).
    fn file(&mut self) -> Result<()> {
        let idx = self.uint32()?;
        let s = self.lx.next()?;
        if s.kind != Tok::Str {
            return Err(unexpected(&s, "a file name string"));
        }
        self.files.push((idx, unquote(s.text)));
        while self.eat_punct(b',')? {
            self.uint()?;
        }
        Ok(())
    }

    /// `.loc file line column[, function_name label[, inlined_at f l c]]`.
    fn loc_args(&mut self) -> Result<LocDirective> {
        let line_of_loc = self.lx.peek()?.line;
        let file = self.uint32()?;
        let line = self.uint32()?;
        let t = self.lx.peek()?;
        let col = if t.kind == Tok::Num && t.line == line_of_loc { self.uint32()? } else { 0 };
        let mut loc = LocDirective { file, line, col, inlined_at: None };
        // Trailing attributes stay on the directive's line.
        let mut nums: Option<Vec<u32>> = None;
        loop {
            let t = self.lx.peek()?;
            if t.kind == Tok::Eof || t.line != line_of_loc || t.is(b';') || t.is(b'}') || t.is(b'{') {
                break;
            }
            self.lx.next()?;
            if t.kind == Tok::Word && t.text == "inlined_at" {
                nums = Some(Vec::new());
                continue;
            }
            if let Some(v) = nums.as_mut() {
                if let (Tok::Num, Some(Number::Int(x))) = (t.kind, number(t.text)) {
                    if v.len() < 3 {
                        v.push(u32::try_from(x).unwrap_or(0));
                    }
                }
                if let [f, l, c] = v.as_slice() {
                    loc.inlined_at = Some((*f, *l, *c));
                }
            }
        }
        Ok(loc)
    }

    /// A declaration starting at `first` (a state-space directive, or
    /// `.align`/type after the space). Returns one entry per declared name.
    fn var_decl(&mut self, linkage: Option<&'a str>, first: Token<'a>, stmt: bool) -> Result<Vec<VarDecl<'a>>> {
        let Some(space) = Space::from_dir(first.text) else {
            return Err(unexpected(&first, "a state space (.reg, .global, .shared, .const, .local, .param)"));
        };
        let mut base = VarDecl {
            space,
            linkage,
            ty: None,
            vector: None,
            align: None,
            name: "",
            range: None,
            dims: Vec::new(),
            init: false,
            pos: (&first).into(),
        };
        // Attribute words before the name.
        loop {
            let t = self.lx.peek()?;
            if t.kind != Tok::Dir {
                break;
            }
            self.lx.next()?;
            match t.text {
                ".align" => base.align = Some(self.uint()?),
                ".v2" => base.vector = Some(2),
                ".v4" => base.vector = Some(4),
                ".v8" => base.vector = Some(8),
                ".ptr" | ".global" | ".shared" | ".const" | ".local" | ".attribute" | ".managed" | ".unified"
                | ".texref" | ".samplerref" | ".surfref" => {
                    if self.lx.peek()?.is(b'(') {
                        self.skip_parens()?;
                    }
                }
                ty => base.ty = Some(ty),
            }
        }
        let mut out = Vec::new();
        loop {
            let n = self.lx.next()?;
            if !matches!(n.kind, Tok::Word | Tok::Reg) {
                return Err(unexpected(&n, "a name"));
            }
            let mut d = base.clone();
            d.name = n.text;
            d.pos = (&n).into();
            if self.eat_punct(b'<')? {
                let t = self.lx.peek()?;
                let count = self.uint()?;
                d.range = Some(
                    u32::try_from(count)
                        .map_err(|_| error_at((&t).into(), ErrorKind::LimitExceeded, "register range too large"))?,
                );
                self.expect_punct(b'>')?;
            }
            while self.eat_punct(b'[')? {
                if self.eat_punct(b']')? {
                    d.dims.push(None);
                } else {
                    d.dims.push(Some(self.uint()?));
                    self.expect_punct(b']')?;
                }
            }
            if self.lx.peek()?.is(b'=') {
                d.init = true;
                // Skip the initializer up to the next ',' or ';' at depth 0.
                self.lx.next()?;
                let mut depth = 0u32;
                loop {
                    let t = self.lx.peek()?;
                    match t.kind {
                        Tok::Eof => return Err(unexpected(&t, "';'")),
                        Tok::Punct(b'{') | Tok::Punct(b'(') => depth = depth.saturating_add(1),
                        Tok::Punct(b'}') | Tok::Punct(b')') => depth = depth.saturating_sub(1),
                        Tok::Punct(b',' | b';') if depth == 0 => break,
                        _ => {}
                    }
                    self.lx.next()?;
                }
            }
            out.push(d);
            if !stmt {
                return Ok(out);
            }
            if !self.eat_punct(b',')? {
                break;
            }
        }
        self.expect_punct(b';')?;
        Ok(out)
    }

    fn skip_parens(&mut self) -> Result<()> {
        self.expect_punct(b'(')?;
        let mut depth = 1u32;
        loop {
            let t = self.lx.next()?;
            match t.kind {
                Tok::Eof => return Err(unexpected(&t, "')'")),
                Tok::Punct(b'(') => depth = depth.saturating_add(1),
                Tok::Punct(b')') => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
    }

    /// `( .param … , … )` — a parameter list.
    fn param_list(&mut self) -> Result<Vec<VarDecl<'a>>> {
        self.expect_punct(b'(')?;
        let mut out = Vec::new();
        if self.eat_punct(b')')? {
            return Ok(out);
        }
        loop {
            let first = self.lx.next()?;
            let v = self.var_decl(None, first, false)?;
            out.extend(v);
            if out.len() > MAX_PTX_OPERANDS {
                return Err(error_at((&first).into(), ErrorKind::LimitExceeded, "too many parameters"));
            }
            let t = self.lx.next()?;
            if t.is(b')') {
                return Ok(out);
            }
            if !t.is(b',') {
                return Err(unexpected(&t, "',' or ')'"));
            }
        }
    }

    fn function(&mut self, linkage: Option<&'a str>, word: Token<'a>) -> Result<FuncDecl<'a>> {
        let entry = word.text == ".entry";
        let mut f = FuncDecl {
            name: "",
            entry,
            linkage,
            rets: Vec::new(),
            params: Vec::new(),
            attrs: Vec::new(),
            body: None,
            pos: (&word).into(),
        };
        // `.attribute(.unified)` and similar before the name.
        while self.lx.peek()?.kind == Tok::Dir {
            let a = self.lx.next()?;
            if self.lx.peek()?.is(b'(') {
                self.skip_parens()?;
            }
            f.attrs.push((a.text, Vec::new()));
        }
        if !entry && self.lx.peek()?.is(b'(') {
            f.rets = self.param_list()?;
        }
        let n = self.lx.next()?;
        if n.kind != Tok::Word {
            return Err(unexpected(&n, "a function name"));
        }
        f.name = n.text;
        if self.lx.peek()?.is(b'(') {
            f.params = self.param_list()?;
        }
        loop {
            let t = self.lx.peek()?;
            // Known performance directives, and any other directive with numeric
            // arguments before the body (newer PTX versions add some).
            if t.kind == Tok::Dir && (ATTRS.contains(&t.text) || !matches!(t.text, ".entry" | ".func")) {
                self.lx.next()?;
                let mut vals = Vec::new();
                let line = t.line;
                while self.lx.peek()?.kind == Tok::Num && self.lx.peek()?.line == line {
                    vals.push(self.uint()?);
                    if !self.eat_punct(b',')? {
                        break;
                    }
                }
                f.attrs.push((t.text, vals));
            } else if t.is(b';') {
                self.lx.next()?;
                return Ok(f);
            } else if t.is(b'{') {
                break;
            } else {
                return Err(unexpected(&t, "a function body, ';' or a performance directive"));
            }
        }
        f.body = Some(self.body()?);
        Ok(f)
    }

    fn count_stmt(&mut self, pos: Pos) -> Result<()> {
        self.statements += 1;
        if self.statements > MAX_PTX_STATEMENTS {
            return Err(error_at(pos, ErrorKind::LimitExceeded, "too many statements"));
        }
        Ok(())
    }

    /// A function body from its `{` to the matching `}`.
    fn body(&mut self) -> Result<Vec<Stmt<'a>>> {
        let open = self.expect_punct(b'{')?;
        let mut out = vec![Stmt::Open((&open).into())];
        let mut depth = 1usize;
        while depth > 0 {
            let t = self.lx.next()?;
            let pos: Pos = (&t).into();
            self.count_stmt(pos)?;
            match t.kind {
                Tok::Eof => return Err(unexpected(&t, "'}' closing the function body")),
                Tok::Punct(b'{') => {
                    depth += 1;
                    if depth > MAX_PTX_NESTING {
                        return Err(error_at(pos, ErrorKind::LimitExceeded, "scopes nested too deeply"));
                    }
                    out.push(Stmt::Open(pos));
                }
                Tok::Punct(b'}') => {
                    depth -= 1;
                    out.push(Stmt::Close(pos));
                }
                Tok::Punct(b';') => {}
                Tok::Dir => match t.text {
                    ".loc" => {
                        let loc = self.loc_args()?;
                        out.push(Stmt::Loc(loc));
                    }
                    ".pragma" => self.skip_statement()?,
                    ".file" => self.file()?,
                    ".section" => {
                        self.lx.next()?;
                        self.skip_braces()?;
                    }
                    d if LINKAGE.contains(&d) => {
                        let first = self.lx.next()?;
                        if first.text == ".func" || first.text == ".entry" {
                            // A nested prototype declaration.
                            self.skip_statement()?;
                        } else {
                            for v in self.var_decl(Some(d), first, true)? {
                                out.push(Stmt::Decl(v));
                            }
                        }
                    }
                    _ if Space::from_dir(t.text).is_some() => {
                        for v in self.var_decl(None, t, true)? {
                            out.push(Stmt::Decl(v));
                        }
                    }
                    ".func" | ".callprototype" => self.skip_statement()?,
                    _ => {
                        return Err(error_at(
                            pos,
                            ErrorKind::Malformed,
                            format!("unexpected directive {} in a function body", t.text),
                        ))
                    }
                },
                Tok::Word if self.lx.peek()?.is(b':') => {
                    self.lx.next()?;
                    let next = self.lx.peek()?;
                    if next.kind == Tok::Dir && next.text == ".branchtargets" {
                        self.lx.next()?;
                        let mut targets = Vec::new();
                        loop {
                            let l = self.lx.next()?;
                            if l.kind != Tok::Word {
                                return Err(unexpected(&l, "a label"));
                            }
                            targets.push(l.text);
                            if !self.eat_punct(b',')? {
                                break;
                            }
                        }
                        self.expect_punct(b';')?;
                        out.push(Stmt::BranchTargets(t.text, targets, pos));
                    } else if next.kind == Tok::Dir && (next.text == ".callprototype" || next.text == ".calltargets") {
                        self.skip_statement()?;
                    } else {
                        out.push(Stmt::Label(t.text, pos));
                    }
                }
                Tok::Word | Tok::Punct(b'@') => {
                    let i = self.instruction(t)?;
                    out.push(Stmt::Inst(i));
                }
                _ => return Err(unexpected(&t, "an instruction, label, directive or '}'")),
            }
        }
        Ok(out)
    }

    fn instruction(&mut self, first: Token<'a>) -> Result<Instruction<'a>> {
        let pos: Pos = (&first).into();
        let mut guard = None;
        let mut word = first;
        if first.is(b'@') {
            let neg = self.eat_punct(b'!')?;
            let p = self.lx.next()?;
            if !matches!(p.kind, Tok::Reg | Tok::Word) {
                return Err(unexpected(&p, "a predicate register after '@'"));
            }
            guard = Some((p.text, neg));
            word = self.lx.next()?;
        }
        if word.kind != Tok::Word {
            return Err(unexpected(&word, "an instruction"));
        }
        let mut operands = SmallVec::new();
        if self.eat_punct(b';')? {
            return Ok(Instruction { guard, op: word.text, operands, pos });
        }
        loop {
            operands.push(self.operand(0)?);
            if operands.len() > MAX_PTX_OPERANDS {
                return Err(error_at(pos, ErrorKind::LimitExceeded, "too many operands"));
            }
            let t = self.lx.next()?;
            if t.is(b';') {
                break;
            }
            if !t.is(b',') {
                return Err(unexpected(&t, "',' or ';'"));
            }
        }
        Ok(Instruction { guard, op: word.text, operands, pos })
    }

    fn operand(&mut self, depth: usize) -> Result<Operand<'a>> {
        self.operand_f(depth, true)
    }

    /// An operand; `fold` reads `sym+8` outside brackets as an address expression.
    fn operand_f(&mut self, depth: usize, fold: bool) -> Result<Operand<'a>> {
        let t = self.lx.next()?;
        if depth > MAX_PTX_NESTING {
            return Err(error_at((&t).into(), ErrorKind::LimitExceeded, "operand nested too deeply"));
        }
        let op = match t.kind {
            Tok::Reg | Tok::Word if fold && t.text != "_" && self.offset_follows()? => {
                // `sym+8` / `%r1-4` outside brackets: an address expression.
                let base = if t.kind == Tok::Reg { Operand::Reg(t.text) } else { Operand::Sym(t.text) };
                let neg = self.lx.next()?.is(b'-');
                let n = self.lx.next()?;
                let Operand::Int(v) = self.num(&n, neg)? else {
                    return Err(unexpected(&n, "an integer offset"));
                };
                Operand::Addr(Box::new(Address { base, offset: v, extra: Vec::new() }))
            }
            Tok::Reg => Operand::Reg(t.text),
            Tok::Word if t.text == "_" => Operand::Sink,
            Tok::Word => Operand::Sym(t.text),
            Tok::Num => self.num(&t, false)?,
            Tok::Punct(b'-') => {
                let n = self.lx.next()?;
                if n.kind != Tok::Num {
                    return Err(unexpected(&n, "a number after '-'"));
                }
                self.num(&n, true)?
            }
            Tok::Punct(b'!') => {
                let r = self.lx.next()?;
                if !matches!(r.kind, Tok::Reg | Tok::Word) {
                    return Err(unexpected(&r, "a predicate register after '!'"));
                }
                Operand::NotReg(r.text)
            }
            Tok::Punct(b'{') => Operand::Vector(self.list(b'}', depth)?),
            Tok::Punct(b'(') => Operand::List(self.list(b')', depth)?),
            Tok::Punct(b'[') => {
                let base = if self.lx.peek()?.is(b'+') || self.lx.peek()?.is(b'-') {
                    Operand::Int(0)
                } else {
                    self.operand_f(depth + 1, false)?
                };
                let mut offset = 0i64;
                loop {
                    let p = self.lx.peek()?;
                    let neg = if p.is(b'+') {
                        false
                    } else if p.is(b'-') {
                        true
                    } else {
                        break;
                    };
                    self.lx.next()?;
                    let v = match self.operand(depth + 1)? {
                        Operand::Int(v) => v,
                        _ => return Err(unexpected(&p, "an immediate offset")),
                    };
                    offset = if neg { offset.wrapping_sub(v) } else { offset.wrapping_add(v) };
                }
                let mut extra = Vec::new();
                while self.eat_punct(b',')? {
                    extra.push(self.operand(depth + 1)?);
                }
                self.expect_punct(b']')?;
                Operand::Addr(Box::new(Address { base, offset, extra }))
            }
            _ => return Err(unexpected(&t, "an operand")),
        };
        if self.lx.peek()?.is(b'|') {
            self.lx.next()?;
            let b = self.operand(depth + 1)?;
            return Ok(Operand::Pair(Box::new(op), Box::new(b)));
        }
        Ok(op)
    }

    /// True when `+` or `-` and a number come next.
    fn offset_follows(&mut self) -> Result<bool> {
        let p = self.lx.peek()?;
        if !(p.is(b'+') || p.is(b'-')) {
            return Ok(false);
        }
        // Look one token further without consuming: a cloned lexer is cheap (no allocation).
        let mut probe = self.lx.clone();
        probe.next()?;
        Ok(probe.next()?.kind == Tok::Num)
    }

    fn list(&mut self, close: u8, depth: usize) -> Result<Vec<Operand<'a>>> {
        let mut v = Vec::new();
        if self.eat_punct(close)? {
            return Ok(v);
        }
        loop {
            v.push(self.operand(depth + 1)?);
            if v.len() > MAX_PTX_OPERANDS {
                let t = self.lx.peek()?;
                return Err(error_at((&t).into(), ErrorKind::LimitExceeded, "too many operands"));
            }
            let t = self.lx.next()?;
            if t.is(close) {
                return Ok(v);
            }
            if !t.is(b',') {
                return Err(unexpected(&t, &format!("',' or '{}'", close as char)));
            }
        }
    }

    fn num(&mut self, t: &Token<'a>, neg: bool) -> Result<Operand<'a>> {
        let v =
            number(t.text).ok_or_else(|| error_at(t.into(), ErrorKind::Malformed, format!("bad number {}", t.text)))?;
        Ok(match v {
            Number::Int(x) => {
                let x = x as i64;
                Operand::Int(if neg { x.wrapping_neg() } else { x })
            }
            Number::F32(b) => Operand::Float(u64::from(if neg { b ^ 0x8000_0000 } else { b }), 32),
            Number::F64(b) => Operand::Float(if neg { b ^ (1 << 63) } else { b }, 64),
        })
    }
}

fn unquote(s: &str) -> String {
    s.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(s).to_string()
}

/// Parses PTX text into a module.
pub fn parse(text: &str) -> Result<PtxModule<'_>> {
    Parser { lx: Lexer::new(text), statements: 0, files: Vec::new() }.module()
}
