//! Sizes and chunking of the syntax tree: statements and operands in
//! chunks, released with the lowering; addresses inline where they fit.

use super::*;

/// The syntax tree of a function body is in memory while it is lowered:
/// keep its nodes small. An instruction's operands are in the body's
/// arena and a declaration is boxed, so a statement is 72 bytes (it was
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
        s.push_inst(None, "add.s32", ops(i), Pos { offset: i as u32, line: 1, col: 1 });
    }
    fn read<'a>(s: &Stmts<'a>, i: usize) -> Vec<Operand<'a>> {
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

/// `take_tail` moves the items from `at` on into a vector of exactly
/// their number, and the source keeps its items before `at` and its
/// capacity (at 0 too, where `Vec::split_off` would hand its buffer over).
#[test]
fn take_tail_moves_the_tail_only() {
    for at in [0, 1, 3, 5, 9] {
        let mut v: Vec<u32> = Vec::with_capacity(64);
        v.extend(0..5);
        let t = take_tail(&mut v, at);
        let at = at.min(5);
        assert_eq!(t, (at as u32..5).collect::<Vec<_>>(), "{at}");
        assert_eq!(t.capacity(), 5 - at, "{at}");
        assert_eq!(v, (0..at as u32).collect::<Vec<_>>(), "{at}");
        assert_eq!(v.capacity(), 64, "{at}");
    }
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
        s.push_inst(None, "add.s32", [Operand::Int(i as i64)].into_iter(), Pos::default());
    }
    assert_eq!(s.len(), n);
    for i in [0, 7, Stmts::CHUNK - 1, Stmts::CHUNK, n - 1] {
        let Some(Stmt::Inst(ins)) = s.get(i) else { panic!("{i}") };
        assert_eq!(s.inst(ins).operands, &[Operand::Int(i as i64)][..], "{i}");
    }
}

#[test]
fn nodes_stay_small() {
    assert_eq!(std::mem::size_of::<Operand<'_>>(), 24);
    assert!(std::mem::size_of::<Stmt<'_>>() <= 72, "{}", std::mem::size_of::<Stmt<'_>>());
}

#[test]
fn addresses_inline_where_they_fit() {
    // A register or symbol base with a 32-bit offset and no extra operand: inline.
    assert_eq!(Addr::new(Operand::Reg("%rd1"), -8, Vec::new()), Addr::Reg("%rd1", -8));
    assert_eq!(Addr::new(Operand::Sym("smem"), i64::from(i32::MAX), Vec::new()), Addr::Sym("smem", i32::MAX));
    // Anything else boxed, and read back the same through the accessors.
    let cases = [
        (Operand::Reg("%rd1"), i64::from(i32::MAX) + 1, Vec::new()),
        (Operand::Sym("smem"), i64::from(i32::MIN) - 1, Vec::new()),
        (Operand::Int(4096), 0, Vec::new()),
        (Operand::Sink, 4, Vec::new()),
        (Operand::Reg("%rd1"), 0, vec![Operand::Vector(vec![Operand::Reg("%r1"), Operand::Reg("%r2")].into())]),
    ];
    for (base, offset, extra) in cases {
        let a = Addr::new(base.clone(), offset, extra.clone());
        assert!(matches!(a, Addr::Full(_)), "{a:?}");
        assert_eq!((a.base(), a.offset(), a.extra()), (base, offset, &extra[..]));
    }
    let a = Addr::new(Operand::Reg("%rd1"), -8, Vec::new());
    assert_eq!((a.base(), a.offset(), a.extra()), (Operand::Reg("%rd1"), -8, &[][..]));
}
