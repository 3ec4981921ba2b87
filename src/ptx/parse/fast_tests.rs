//! The one-line fast path of the lexer (`Lexer::fast_line`) against the
//! token path: where it reads a statement, the token path reads the same one
//! and stops at the same place; where it declines, the token path reads the
//! text as it would have from the start (same statement or same error).

use super::{Addr, Items, LocDirective, NameId, Operand, Parser};
use crate::ptx::lex::{Line, Pos, Tok};
use crate::read::Result;

fn parser(s: &str) -> Parser<'_> {
    Parser::new(s)
}

/// A statement as read: a label, or an instruction with its operands and
/// their item slots.
#[derive(Debug, PartialEq)]
enum Read<'a> {
    Label(&'a str, Pos),
    Inst(Option<(NameId, bool)>, &'a str, Vec<Operand>, Vec<Operand>, Pos),
    Loc(LocDirective, Pos),
}

/// One statement by the token path, as `Parser::body` reads it (`None` for
/// what the fast path never takes: other statements, labelled directives).
fn by_tokens<'a>(p: &mut Parser<'a>) -> Result<Option<Read<'a>>> {
    let t = p.lx.next()?;
    if t.kind == Tok::Dir && t.text == ".loc" {
        return Ok(Some(Read::Loc(p.loc_args()?, (&t).into())));
    }
    if t.kind == Tok::Word && p.lx.peek()?.is(b':') {
        p.lx.next()?;
        let n = p.lx.peek()?;
        return Ok((n.kind != Tok::Dir).then(|| Read::Label(t.text, (&t).into())));
    }
    if t.kind == Tok::Word || t.is(b'@') {
        let (guard, op, pos) = p.instruction(t)?;
        return Ok(Some(Read::Inst(guard, op, std::mem::take(&mut p.scratch), std::mem::take(&mut p.items), pos)));
    }
    Ok(None)
}

fn by_bytes<'a>(p: &mut Parser<'a>) -> Option<Read<'a>> {
    let (mut ops, mut items) = (Vec::new(), Vec::new());
    Some(match p.lx.fast_line(&mut ops, &mut items, &mut p.names)? {
        Line::Inst { guard, op, pos } => Read::Inst(guard, op, ops, items, pos),
        Line::Label(name, pos) => {
            assert!(ops.is_empty() && items.is_empty());
            Read::Label(name, pos)
        }
        Line::Loc(loc, pos) => {
            assert!(ops.is_empty() && items.is_empty());
            Read::Loc(loc, pos)
        }
    })
}

/// Checks `s`; true when the fast path read it. The names' ids agree and
/// name the same names, with and without body ranges whose elements have
/// reserved ids.
fn agree(s: &str) -> bool {
    let plain = agree_in(s, false);
    assert_eq!(agree_in(s, true), plain, "{s:?}: the same path with ranges");
    plain
}

fn agree_in(s: &str, ranges: bool) -> bool {
    let mut fast = parser(s);
    let mut slow = parser(s);
    if ranges {
        // (A budget past what these short texts give.)
        fast.names = super::Interner::for_text(1 << 16);
        slow.names = super::Interner::for_text(1 << 16);
        for p in [&mut fast, &mut slow] {
            p.names.reserve_for_body_bytes(1000);
            for (prefix, n) in [("%r", 100), ("%rd", 10), ("%p", 3), ("%f", 5), ("%fd", 2), ("%tid.", 3)] {
                assert!(p.names.register_range(prefix, n).is_some(), "{prefix}");
            }
        }
    }
    let want = by_tokens(&mut slow);
    let fast_read = match by_bytes(&mut fast) {
        Some(got) => {
            assert_eq!(Ok(Some(got)), want, "{s:?}");
            assert_eq!(fast.lx.next(), slow.lx.next(), "{s:?}: the next token");
            true
        }
        None => {
            assert_eq!(by_tokens(&mut fast), want, "{s:?}: after declining");
            false
        }
    };
    if want.is_ok() {
        assert_eq!(fast.names.names(), slow.names.names(), "{s:?}: the names by id");
    }
    fast_read
}

#[test]
fn fast_lines_read_as_the_tokens_do() {
    for s in [
        "\tadd.s32 \t%r2, %r1, 1;\n\tret;",
        "  \n\t// c\n@%p1 bra $L__BB0_2;",
        "@!%p2 st.global.v2.u32 [%rd1+8], {%r1, %r2};",
        "ld.global.u32 %r2, [%rd1+-8];",
        "ld.param.u64 %rd1, [k_param_0];",
        "mov.b64 %rd2, {%r1, _};",
        "setp.ne.s32 %p1, %r1, -1;",
        "mov.f32 %f1, 0f3F800000;",
        "mov.f64 %fd1, -0d3FF0000000000000;",
        "selp.b32 %r1, 1, 0, !%p3;",
        "ret;",
        "$L__BB0_2:\n\tret;",
        "$L__BB0_2 :  // c\n",
        "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2;",
        "add.s32%r1,%r2,0x10;",
        "setp.eq.s32 %p1|%p2, %r1, 0;",
        "elect.sync %r1 | %p1, -1;",
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {%r1, %r2}], [%r3];",
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile [%r1], [%rd2+8 , {%r3, -1, _}], [%r4], %rd5;",
        "tensormap.replace [%rd1, %r2, 7, sym, !%p1];",
        "\t.loc\t1 74 35                         // triton_ws.py:74:35\n\tret;",
        "  .loc 1 22 7, function_name $L__info_string3, inlined_at 2 310 9\n}",
        ".loc 3 9\n",
        "add.s32 %r99, %r100, %r01;",
        "mov.b64 %rd12345678, %rd9;",
        "st.v4.f32 [%rd9+4], {%f0, %f4, %f5, %fd1, %fd12, %r0};",
        "@%p2 mov.u32 %tid.1, %tid.x;",
        "@!%p3 mov.u32 %r1x, %r1234567;",
        "ld.u32 %r5, [%r5];",
        // Over several lines (CuTe DSL's `mma.sync`): the lines are counted.
        "add.s32 %r1, %r2,\n 3;\nret;",
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32\n\t\t{%r1, %r2},\n\t\t{%r3, %r4},\r\n\t\t{%r5};\n\tret;",
        "add.s32\n\n%r1,\n%r2, 3;  \n  $L__x:",
    ] {
        assert!(agree(s), "{s:?} takes the fast path");
    }
    for s in [
        "add.s32 %r1, %r2, 3 // c\n;",
        "mov.u64 %rd1, sym+8;",
        "ld.u32 %r1, [%rd1-8];",
        "ld.u32 %r1, [%rd1+2*4];",
        "ld.u32 %r1, [8];",
        "call (%r1), f, (%r2);",
        "setp.eq.s32 %p1|%p2|%p3, %r1, 0;",
        "setp.eq.s32 %p1|%p2+1, %r1, 0;",
        "setp.eq.s32 %p1|{%p2}, %r1, 0;",
        "mov.b32 {%r1|%r2}, %r1;",
        "st.u32 [%rd1]|%p1, %r1;",
        "ld.u32 %r1, [%rd1, %r2+4];",
        "ld.u32 %r1, [%rd1, {%r2}|%p1];",
        "ld.u32 %r1, [%rd1, [%rd2]];",
        "ld.u32 %r1, [%rd1,];",
        "ld.u32 %r1, [%rd1, {%r2, {%r3}}];",
        "ld.u32 %r1, [%rd1|%p1, %r2];",
        "add.s32 %r1, %r2, 0xZZ;",
        "add.s32 %r1, %r2, # ;",
        "$L__x: .branchtargets $L__a, $L__b;",
        "$L__x:\n .callprototype ()_ (.param .b32 _);",
        "/* c */ ret;",
        "mov.b32 %r1, {};",
        "ld.u32 %r1, [%rd1+1.5];",
        "add.s32 %r1, %r2, 1",
        ".loc\n1 2 3\nret;",
        ".loc 1 2 3 /* c */\nret;",
        ".loc 1 02 3\nret;",
        ".loc 1 2 3 4\nret;",
        ".locx 1 2 3\nret;",
        ".loc.x 1 2 3\nret;",
        "add.s32 %r1, %r2, 3\n ret;",
        "ret\n;",
        "$L__x\n: ret;",
        "mov.b32 {%r1,\n %r2}, %r3;",
    ] {
        assert!(!agree(s), "{s:?} declines");
    }
}

/// On random lines over the bytes that matter, the fast path agrees with
/// the token path (reads the same statement, stopping at the same place) or
/// declines and leaves the same statement or error to the token path.
#[test]
fn fast_lines_agree_on_random_text() {
    const OPERANDS: &[&str] = &[
        "%r1",
        "_",
        "sym",
        "8",
        "-3",
        "!%p1",
        "[%rd1]",
        "[%rd1+8]",
        "[x + -4]",
        "{%r1, %r2}",
        "0f3F800000",
        "%tid.x",
        "%r1|%p1",
        "[%rd1, {%r1, %r2}]",
        "[%rd1+8, %r2, {_}]",
    ];
    const NOISE: &[&str] = &[
        "@",
        "!",
        "%p1",
        ":",
        ",",
        ";",
        " ",
        "\t",
        "\n",
        "[",
        "]",
        "+",
        "-",
        "{",
        "}",
        "|",
        "// c",
        "1.5",
        "#",
        "(",
        ")",
        ".reg",
        ".loc 1 2",
        "%",
        "::",
        "0xZZ",
        "/*",
        "*/",
        "99999999999999999999999",
        "\"s\"",
        "ret",
        "\0",
    ];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut fast = 0;
    for _ in 0..30_000 {
        let mut pieces: Vec<&str> =
            vec![["", "@%p1 ", "@!%p2 ", "$L__BB0_1:\n", ".loc 1 2 3 // c\n"][next() as usize % 5], "mov.b32 "];
        let n = next() as usize % 5;
        for k in 0..n {
            if k > 0 {
                pieces.push(", ");
            }
            pieces.push(OPERANDS[next() as usize % OPERANDS.len()]);
        }
        pieces.push(";");
        for _ in 0..next() % 3 {
            let at = next() as usize % (pieces.len() + 1);
            pieces.insert(at, NOISE[next() as usize % NOISE.len()]);
        }
        if agree(&pieces.concat()) {
            fast += 1;
        }
    }
    assert!(fast > 10_000, "{fast} lines took the fast path");
}

#[test]
fn operands_keep_their_values() {
    let mut p = parser("@!%p1 ld.global.v2.u32 {%r1, _}, [%rd2+-16], 4294967296, -7, sym;");
    let Some(Read::Inst(guard, op, ops, items, pos)) = by_bytes(&mut p) else { panic!("fast path declined") };
    // Ids in order of first appearance.
    assert_eq!(p.names.names(), ["%p1", "%r1", "%rd2", "sym"]);
    let id = NameId::new;
    assert_eq!(guard, Some((id(0), true)));
    assert_eq!(op, "ld.global.v2.u32");
    assert_eq!((pos.line, pos.col), (1, 1));
    assert_eq!(ops[0], Operand::Vector(Items::new(0, 2).unwrap()));
    assert_eq!(items, [Operand::Reg(id(1)), Operand::Sink]);
    // Inline: no allocation for a register base with a 32-bit offset.
    assert_eq!(ops[1], Operand::Addr(Addr::Reg(id(2), -16)));
    assert_eq!(ops[2], Operand::Int(1 << 32));
    assert_eq!(ops[3], Operand::Int(-7));
    assert_eq!(ops[4], Operand::Sym(id(3)));
}
