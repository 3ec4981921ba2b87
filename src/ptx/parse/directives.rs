//! Module scope: directives, declarations, function headers.

use super::{unexpected, unquote, Parser, Space, ATTRS, LINKAGE};
use super::{FuncDecl, LocDirective, PtxModule, VarDecl};
use crate::ptx::lex::{error_at, number, Number, Tok, Token};
use crate::read::limits::{MAX_PTX_FUNCTIONS, MAX_PTX_OPERANDS};
use crate::read::{ErrorKind, Result};

impl<'a> Parser<'a> {
    pub(super) fn module(mut self) -> Result<PtxModule<'a>> {
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

    pub(super) fn module_directive(&mut self, m: &mut PtxModule<'a>, t: Token<'a>) -> Result<()> {
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
                push_function(m, f)?;
            }
            d if LINKAGE.contains(&d) => {
                let next = self.lx.peek()?;
                if next.kind == Tok::Dir && (next.text == ".entry" || next.text == ".func") {
                    let w = self.lx.next()?;
                    let f = self.function(Some(d), w)?;
                    push_function(m, f)?;
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
    pub(super) fn file(&mut self) -> Result<()> {
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
    pub(super) fn loc_args(&mut self) -> Result<LocDirective> {
        if let Some(((file, line, col), inlined_at)) = self.lx.simple_loc() {
            return Ok(LocDirective { file, line, col, inlined_at });
        }
        let line_of_loc = self.lx.peek()?.line;
        let file = self.uint32()?;
        let line = self.uint32()?;
        let t = self.lx.peek()?;
        let col = if t.kind == Tok::Num && t.line == line_of_loc { self.uint32()? } else { 0 };
        let mut loc = LocDirective { file, line, col, inlined_at: None };
        // Trailing attributes stay on the directive's line.
        // The numbers after the last `inlined_at` (the first three count).
        let mut nums: Option<([u32; 3], usize)> = None;
        loop {
            let t = self.lx.peek()?;
            if t.kind == Tok::Eof || t.line != line_of_loc || t.is(b';') || t.is(b'}') || t.is(b'{') {
                break;
            }
            self.lx.next()?;
            if t.kind == Tok::Word && t.text == "inlined_at" {
                nums = Some(([0; 3], 0));
                continue;
            }
            if let Some((v, n)) = nums.as_mut() {
                if let (Tok::Num, Some(Number::Int(x))) = (t.kind, number(t.text)) {
                    if let Some(slot) = v.get_mut(*n) {
                        *slot = u32::try_from(x).unwrap_or(0);
                        *n += 1;
                    }
                }
                if *n == 3 {
                    loc.inlined_at = Some((v[0], v[1], v[2]));
                }
            }
        }
        Ok(loc)
    }

    /// A declaration starting at `first` (a state-space directive, or
    /// `.align`/type after the space). Returns one entry per declared name.
    pub(super) fn var_decl(
        &mut self,
        linkage: Option<&'a str>,
        first: Token<'a>,
        stmt: bool,
    ) -> Result<Vec<VarDecl<'a>>> {
        let Some(space) = Space::from_dir(first.text) else {
            return Err(unexpected(&first, "a state space (.reg, .global, .shared, .const, .local, .param)"));
        };
        let mut base = VarDecl {
            space,
            linkage,
            ty: None,
            vector: None,
            align: None,
            ptr_align: None,
            name: "",
            id: None,
            range: None,
            first_id: None,
            reserved_from: 0,
            reserved: 0,
            dims: Vec::new(),
            init: false,
            pos: (&first).into(),
        };
        // Attribute words before the name. After `.ptr`, `.align N` is the
        // alignment of the memory pointed to, not of the parameter.
        let mut ptr = false;
        loop {
            let t = self.lx.peek()?;
            if t.kind != Tok::Dir {
                break;
            }
            self.lx.next()?;
            match t.text {
                ".align" if ptr => base.ptr_align = Some(self.uint()?),
                ".align" => base.align = Some(self.uint()?),
                ".v2" => base.vector = Some(2),
                ".v4" => base.vector = Some(4),
                ".v8" => base.vector = Some(8),
                ".ptr" | ".global" | ".shared" | ".const" | ".local" | ".attribute" | ".managed" | ".unified"
                | ".texref" | ".samplerref" | ".surfref" => {
                    ptr |= t.text == ".ptr";
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
                // Skip the initializer up to the next ',' or ';' at depth 0:
                // byte by byte, or token by token where a byte would be a
                // token error (which the token skip then reports in place).
                self.lx.next()?;
                // After a byte skip the loop below meets the ',' or ';' at once.
                self.lx.skip_initializer();
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

    pub(super) fn skip_parens(&mut self) -> Result<()> {
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
    pub(super) fn param_list(&mut self) -> Result<Vec<VarDecl<'a>>> {
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

    pub(super) fn function(&mut self, linkage: Option<&'a str>, word: Token<'a>) -> Result<FuncDecl<'a>> {
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
}

/// Adds a function (definition or prototype), refusing more than
/// [`MAX_PTX_FUNCTIONS`] in one module: per-function state (signature, blocks,
/// entry point) costs far more than the 10 bytes `.entry e(){ret;}` takes.
fn push_function<'a>(m: &mut PtxModule<'a>, f: FuncDecl<'a>) -> Result<()> {
    if m.functions.len() >= MAX_PTX_FUNCTIONS {
        return Err(error_at(
            f.pos,
            ErrorKind::LimitExceeded,
            format!("too many functions in one module (more than {MAX_PTX_FUNCTIONS})"),
        ));
    }
    m.functions.push(f);
    Ok(())
}
