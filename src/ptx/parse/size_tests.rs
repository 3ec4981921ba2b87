//! Sizes and chunking of the syntax tree: statements and operands in
//! chunks, released with the lowering; addresses inline where they fit.

use super::*;

/// The syntax tree of a function body is in memory while it is lowered:
/// keep its nodes small. An instruction's operands and their items are in
/// the body's arena and its declarations beside the statements, so a
/// statement is 48 bytes with no heap part (it was
/// 168 with four operands inline, and half the statements of a
/// `-lineinfo` build are `.loc` lines of 28 bytes).
#[test]
fn statements_are_chunked_and_released() {
    let c = Stmts::CHUNK as u32;
    let n = 4 * c + c / 2;
    let open = |i: u32| Stmt::Open(Pos { offset: i, line: i, col: 1 });
    let mut s = Stmts::default();
    for i in 0..n {
        s.push(open(i));
    }
    assert_eq!(s.len(), n as usize);
    assert_eq!(s.iter().count(), n as usize);
    assert_eq!(s.get(2 * c as usize + 1), Some(&open(2 * c + 1)));
    s.release_before(2 * c as usize + 1);
    // Chunks 0 and 1 (statements 0..2c) are gone, chunk 2 stays whole.
    assert_eq!(s.get(2 * c as usize - 1), None);
    assert_eq!(s.get(2 * c as usize), Some(&open(2 * c)));
    assert_eq!(s.iter().count(), (n - 2 * c) as usize);
    assert_eq!(s.len(), n as usize);
    // Released chunks stay released; an earlier index frees nothing more.
    s.release_before(c as usize);
    assert_eq!(s.iter().count(), (n - 2 * c) as usize);
}

/// An instruction's operands are read back from the arena until its
/// statement chunk is released; the operand chunks only earlier
/// statements used are freed with them, the ones later statements use stay.
#[test]
fn operands_are_chunked_and_released_with_their_statements() {
    let n = 3 * Stmts::CHUNK;
    let ops = |i: usize| (0..5).map(move |k| Operand::Int((5 * i + k) as i64));
    let mut s = Stmts::default();
    for i in 0..n {
        s.push_inst(None, "add.s32", ops(i), &[], Pos { offset: i as u32, line: 1, col: 1 });
    }
    fn read<'a>(s: &Stmts<'a>, i: usize) -> Vec<Operand> {
        match s.get(i) {
            Some(Stmt::Inst(ins)) => s.inst(ins).operands.to_vec(),
            _ => Vec::new(),
        }
    }
    for i in 0..n {
        assert_eq!(read(&s, i), ops(i).collect::<Vec<_>>(), "{i}");
    }
    // 5 operands of 3 x 2048 instructions: 30720 operands in 4 chunks.
    assert_eq!(s.operands.len(), 4);
    s.release_before(2 * Stmts::CHUNK);
    let freed = s.operands.iter().filter(|c| c.capacity() == 0).count();
    assert_eq!(freed, 2, "chunks 0 and 1 hold only operands of statements 0..4096");
    for i in 2 * Stmts::CHUNK..n {
        assert_eq!(read(&s, i), ops(i).collect::<Vec<_>>(), "{i}");
    }
    s.release_before(n);
    assert!(s.operands.iter().all(|c| c.capacity() == 0));
}

/// A body's first chunks are sized from its byte length (bounded by
/// a chunk) and filled as ever: statements and operands read back.
#[test]
fn chunks_sized_for_the_body() {
    let s = Stmts::for_body_bytes(3200);
    assert_eq!((s.chunks[0].capacity(), s.operands[0].capacity()), (100, 200));
    let s = Stmts::for_body_bytes(1 << 30);
    assert_eq!((s.chunks[0].capacity(), s.operands[0].capacity()), (Stmts::CHUNK, Stmts::OPERAND_CHUNK / 2));
    let s = Stmts::for_body_bytes(0);
    assert!(s.chunks.is_empty() && s.operands.is_empty(), "nothing reserved without a hint");
    let mut s = Stmts::for_body_bytes(20);
    let n = Stmts::CHUNK + 10;
    for i in 0..n {
        s.push_inst(None, "add.s32", [Operand::Int(i as i64)].into_iter(), &[], Pos::default());
    }
    assert_eq!(s.len(), n);
    for i in [0, 7, Stmts::CHUNK - 1, Stmts::CHUNK, n - 1] {
        let Some(Stmt::Inst(ins)) = s.get(i) else { panic!("{i}") };
        assert_eq!(s.inst(ins).operands, &[Operand::Int(i as i64)][..], "{i}");
    }
}

#[test]
fn nodes_stay_small() {
    assert_eq!(std::mem::size_of::<Operand>(), 16);
    assert_eq!(std::mem::size_of::<Stmt<'_>>(), 48);
}

#[test]
fn addresses_inline_where_they_fit() {
    let (rd1, smem) = (NameId::new(0), NameId::new(1));
    // A register or symbol base with a 32-bit offset: inline.
    assert_eq!(Addr::inline(Operand::Reg(rd1), -8), Some(Addr::Reg(rd1, -8)));
    assert_eq!(Addr::inline(Operand::Sym(smem), i64::from(i32::MAX)), Some(Addr::Sym(smem, i32::MAX)));
    // Anything else is not.
    assert_eq!(Addr::inline(Operand::Reg(rd1), i64::from(i32::MAX) + 1), None);
    assert_eq!(Addr::inline(Operand::Sym(smem), i64::from(i32::MIN) - 1), None);
    assert_eq!(Addr::inline(Operand::Int(4096), 0), None);
    assert_eq!(Addr::inline(Operand::Sink, 4), None);
    let a = Addr::Reg(rd1, -8);
    assert_eq!((a.base(&[]), a.offset(&[]), a.extra(&[]), a.has_extra()), (Operand::Reg(rd1), -8, &[][..], false));
}

/// Vectors, pairs and full addresses keep their items in the instruction's
/// item slots after its operands: a vector's own items before the address
/// that holds it, the base first. Names have dense ids in order of first
/// appearance in the body (declared names included), but for the elements
/// of the body scope's ranges, whose ids are reserved at the declaration
/// (`""` in the table until read); the body's table names them.
#[test]
fn lists_read_into_the_item_slots() {
    let m = super::parse(
        ".version 8.0\n.target sm_90\n.address_size 64\n.entry k() {\n\
         .reg .b32 %r<8>;\n\
         cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {%r1, %r2}], [%r3];\n\
         call.uni (%r4), f, (%r5, {%r6, _});\n\
         { .reg .pred p; @!p setp.eq.s32 %p1|%p2, %r1, 0; }\n\
         ld.u32 %r1, [4096];\n\
         }",
    )
    .unwrap();
    let body = m.functions[0].body.as_ref().unwrap();
    assert_eq!(body.names(), ["%r", "", "%r1", "%r2", "%r3", "%r4", "%r5", "%r6", "", "%rd1", "f", "p", "%p1", "%p2"]);
    let id = |n: &str| NameId::new(body.names().iter().position(|x| *x == n).unwrap() as u32);
    assert_eq!(body.name(id("%r6")), "%r6");
    let decls: Vec<_> = body.iter().filter_map(|s| if let Stmt::Decl(d) = s { body.decl(*d) } else { None }).collect();
    assert_eq!(
        decls.iter().map(|d| (d.name, d.id, d.first_id)).collect::<Vec<_>>(),
        [("%r", Some(id("%r")), Some(NameId::new(1))), ("p", Some(id("p")), None)]
    );
    let insts: Vec<_> =
        body.iter().filter_map(|s| if let Stmt::Inst(i) = s { Some(body.inst(i)) } else { None }).collect();
    let r = |s, e| Items::new(s, e).unwrap();
    let reg = |n| Operand::Reg(id(n));
    let [tma, call, setp, ld] = &insts[..] else { panic!("{insts:?}") };
    assert_eq!(tma.items, [reg("%r1"), reg("%r2"), reg("%rd1"), Operand::Vector(r(0, 2)), Operand::Int(0)]);
    let Operand::Addr(a) = tma.operands[0] else { panic!("{tma:?}") };
    assert_eq!(a, Addr::Full(r(2, 5)));
    assert_eq!((a.offset(tma.items), a.extra_range()), (0, 3..4));
    assert_eq!((a.base(tma.items), a.extra(tma.items)), (reg("%rd1"), &[Operand::Vector(r(0, 2))][..]));
    assert!(a.has_extra());
    assert_eq!(tma.operands[1], Operand::Addr(Addr::Reg(id("%r3"), 0)));
    // A list holding a vector: the inner items first.
    assert_eq!(call.operands, [Operand::List(r(0, 1)), Operand::Sym(id("f")), Operand::List(r(3, 5))]);
    assert_eq!(call.list(r(3, 5)), [reg("%r5"), Operand::Vector(r(1, 3))]);
    assert_eq!(call.list(r(1, 3)), [reg("%r6"), Operand::Sink]);
    assert_eq!(setp.guard, Some((id("p"), true)));
    assert_eq!(setp.operands[0], Operand::Pair(r(0, 2)));
    assert_eq!(setp.items, [reg("%p1"), reg("%p2")]);
    let Operand::Addr(a) = ld.operands[1] else { panic!("{ld:?}") };
    assert_eq!((a.base(ld.items), a.offset(ld.items), a.has_extra()), (Operand::Int(4096), 0, false));
    // An out-of-range item range reads as empty, never a panic.
    assert_eq!(ld.list(r(5, 9)), &[][..]);
}

/// Declarations are kept beside the statements (no allocation each) and
/// released with the chunk their statement is in.
#[test]
fn declarations_are_read_back_and_released_with_their_chunk() {
    let decl = |i: usize| VarDecl {
        space: Space::Reg,
        linkage: None,
        ty: Some(".b32"),
        vector: None,
        align: None,
        ptr_align: None,
        name: "%r",
        id: None,
        range: Some(i as u32),
        first_id: None,
        reserved_from: 0,
        reserved: 0,
        dims: Vec::new(),
        init: false,
        pos: Pos { offset: i as u32, line: 1, col: 1 },
    };
    let n = 2 * Stmts::CHUNK + 5;
    let mut s = Stmts::default();
    for i in 0..n {
        if i % 3 == 0 {
            s.push_decl(decl(i));
        } else {
            s.push(Stmt::Close(Pos::default()));
        }
    }
    let ids: Vec<(usize, u32)> =
        (0..n).filter_map(|i| if let Some(Stmt::Decl(d)) = s.get(i) { Some((i, *d)) } else { None }).collect();
    assert_eq!(ids.len(), n.div_ceil(3));
    for &(i, d) in &ids {
        assert_eq!(s.decl(d), Some(&decl(i)), "{i}");
    }
    s.release_before(Stmts::CHUNK);
    for &(i, d) in &ids {
        assert_eq!(s.decl(d).is_some(), i >= Stmts::CHUNK, "{i}");
    }
}

/// The ids of a range the body scope declares: `%rK` is `first_id + K`
/// wherever it is read (by the one-line reader or the token path), and every
/// name keeps one id in the body; a range of an inner scope, one whose
/// names were read before it, one read past its end, and `.local` arrays
/// reserve nothing.
#[test]
fn body_ranges_reserve_their_ids() {
    let m = super::parse(
        ".version 8.0\n.target sm_90\n.address_size 64\n.entry k(.param .u32 k_param) {\n\
         ld.param.u32 %rd1, [k_param];\n\
         .reg .b32 %r<8>;\n.reg .b64 %rd<4>, %f<3>;\n.local .b32 %l<4>;\n\
         mov.u32 %r1, %f2;\n\
         { .reg .b32 %q<4>; mov.u32 %q1, %r2; add.s32 %r3, %q1, %r7; }\n\
         add.s32 %r1, /* c */ %r1, 1;\n\
         mov.u32 %r8, %r5;\n\
         st.u32 [%rd1+4], %rd2;\n\
         }",
    )
    .unwrap();
    let body = m.functions[0].body.as_ref().unwrap();
    let decls: Vec<_> = body.iter().filter_map(|s| if let Stmt::Decl(d) = s { body.decl(*d) } else { None }).collect();
    let first = |n: &str| decls.iter().find(|d| d.name == n).unwrap().first_id;
    // `%rd1` was read before `%rd<4>`: its range reserves nothing.
    assert_eq!(first("%rd"), None);
    assert_eq!(first("%q"), None, "an inner scope");
    assert_eq!(first("%l"), None, "not registers");
    let (r, f) = (first("%r").unwrap().index(), first("%f").unwrap().index());
    let reserved = |n: &str| decls.iter().find(|d| d.name == n).unwrap().reserved;
    assert_eq!((reserved("%r"), reserved("%f"), reserved("%rd"), reserved("%q")), (8, 3, 0, 0));
    let names = body.names();
    assert_eq!(&names[r..r + 8], ["", "%r1", "%r2", "%r3", "", "%r5", "", "%r7"]);
    assert_eq!(&names[f..f + 3], ["", "", "%f2"]);
    // Every name read is in the table once.
    let mut read: Vec<&str> = names.iter().copied().filter(|n| !n.is_empty()).collect();
    read.sort_unstable();
    let len = read.len();
    read.dedup();
    assert_eq!(read.len(), len, "{names:?}");
    for n in ["%r8", "%q1", "%rd2", "%rd1", "%l"] {
        assert!(names.iter().position(|x| *x == n).is_some_and(|i| i < r || i >= r + 8), "{n}");
    }
    let insts: Vec<_> =
        body.iter().filter_map(|s| if let Stmt::Inst(i) = s { Some(body.inst(i)) } else { None }).collect();
    let reg = |i: usize| Operand::Reg(NameId::new(i as u32));
    assert_eq!(insts[1].operands, [reg(r + 1), reg(f + 2)]);
    assert_eq!(insts[3].operands[2], reg(r + 7));
    // A comment inside declines the one-line reader: the token path gives the same ids.
    assert_eq!(insts[4].operands[..2], [reg(r + 1), reg(r + 1)]);
    assert_eq!(insts[5].operands[1], reg(r + 5));
    assert_eq!(body.name(NameId::new((r + 5) as u32)), "%r5");
}
