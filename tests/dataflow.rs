//! Dataflow on hand-built IR: arithmetic chains, phis, selects, loops,
//! function-local memory, constant globals and spec constants.

#[path = "support/builder.rs"]
mod builder;

use builder::B;
use irlint::analysis::{analyze, AbsValue, AnalysisOptions, KnownBits};
use irlint::ir::*;

fn value(b: &B, v: Value) -> AbsValue {
    value_with(b, v, &AnalysisOptions { all_functions: true, ..Default::default() })
}

fn value_with(b: &B, v: Value, opts: &AnalysisOptions) -> AbsValue {
    let a = analyze(&b.m, opts);
    assert!(!a.budget_exceeded);
    a.value(&b.m, b.f, Operand::Value(v))
}

fn cong(rem: u64, modulus: u64) -> AbsValue {
    AbsValue::congruence(rem, modulus.trailing_zeros(), 32)
}

#[test]
fn tid_times_64_plus_12_is_12_mod_64() {
    let mut b = B::new(SourceKind::Dxil);
    let tid = b.unknown();
    let c64 = b.c32(64);
    let c12 = b.c32(12);
    let x = b.bin(BinOp::Mul, tid, c64);
    let y = b.bin(BinOp::Add, x, c12);
    // The DXIL spelling: shl 6 | 12.
    let c6 = b.c32(6);
    let s = b.bin(BinOp::Shl, tid, c6);
    let z = b.bin(BinOp::Or, s, c12);
    b.ret();
    assert_eq!(value(&b, y), cong(12, 64));
    assert_eq!(value(&b, z), cong(12, 64));
}

#[test]
fn select_and_phi_of_constants_are_sets() {
    let mut b = B::new(SourceKind::Dxil);
    let tid = b.unknown();
    let zero = b.c32(0);
    let cond = {
        let t = b.i1t;
        b.inst(t, InstKind::Cmp { pred: CmpPred(32), lhs: tid, rhs: zero })
    };
    let (c32, c48) = (b.c32(32), b.c32(48));
    let t = b.i32t;
    let sel = b.inst(t, InstKind::Select { cond, if_true: c48, if_false: c32 });
    let entry = b.cur;
    let then = b.new_block();
    let join = b.new_block();
    b.cond_br(cond, then, join);
    b.cur = then;
    b.br(join);
    b.cur = join;
    let phi = b.inst(t, InstKind::Phi { incoming: vec![(c32, entry), (c48, then)] });
    // A select on a known condition picks one side.
    let one = {
        let i1 = b.i1t;
        b.konst(i1, ConstKind::Int(1))
    };
    let picked = b.inst(t, InstKind::Select { cond: one, if_true: c48, if_false: c32 });
    b.ret();
    assert_eq!(value(&b, sel), AbsValue::Set(smallvec::smallvec![32, 48]));
    assert_eq!(value(&b, phi), AbsValue::Set(smallvec::smallvec![32, 48]));
    assert_eq!(value(&b, picked), AbsValue::Set(smallvec::smallvec![48]));
}

#[test]
fn loop_phi_widens_to_a_congruence() {
    // i = phi(0, i + 16); off = i | 8
    let mut b = B::new(SourceKind::Dxil);
    let entry = b.cur;
    let header = b.new_block();
    let exit = b.new_block();
    b.br(header);
    b.cur = header;
    let t = b.i32t;
    let zero = b.c32(0);
    let phi = b.inst(t, InstKind::Phi { incoming: vec![(zero, entry)] });
    let c16 = b.c32(16);
    let next = b.bin(BinOp::Add, phi, c16);
    let c8 = b.c32(8);
    let off = b.bin(BinOp::Or, phi, c8);
    let tid = b.unknown();
    let cond = {
        let i1 = b.i1t;
        b.inst(i1, InstKind::Cmp { pred: CmpPred(36), lhs: next, rhs: tid })
    };
    b.cond_br(cond, header, exit);
    if let InstKind::Phi { incoming } = &mut b.func().insts.get_mut(B::handle(phi)).kind {
        incoming.push((next, header));
    }
    b.cur = exit;
    b.ret();
    assert_eq!(value(&b, phi), cong(0, 16));
    assert_eq!(value(&b, off), cong(8, 16));
}

#[test]
fn counting_loop_times_64_plus_8() {
    // for (i = 0; ; ++i) off = (i << 6) | 8  → 8 mod 64 (lv_load_loop_misaligned)
    let mut b = B::new(SourceKind::Dxil);
    let entry = b.cur;
    let header = b.new_block();
    let exit = b.new_block();
    b.br(header);
    b.cur = header;
    let t = b.i32t;
    let zero = b.c32(0);
    let phi = b.inst(t, InstKind::Phi { incoming: vec![(zero, entry)] });
    let (c6, c8, c1) = (b.c32(6), b.c32(8), b.c32(1));
    let s = b.bin(BinOp::Shl, phi, c6);
    let off = b.bin(BinOp::Or, s, c8);
    let next = b.bin(BinOp::Add, phi, c1);
    let tid = b.unknown();
    let cond = {
        let i1 = b.i1t;
        b.inst(i1, InstKind::Cmp { pred: CmpPred(36), lhs: next, rhs: tid })
    };
    b.cond_br(cond, header, exit);
    if let InstKind::Phi { incoming } = &mut b.func().insts.get_mut(B::handle(phi)).kind {
        incoming.push((next, header));
    }
    b.cur = exit;
    b.ret();
    assert_eq!(value(&b, phi), AbsValue::Top);
    assert_eq!(value(&b, off), cong(8, 64));
}

#[test]
fn function_local_array_store_and_load() {
    // uint a[4] = {spec K*2+15 & ~15, 64, 96, 128}; load a[0], a[2], a[dyn]
    let mut b = B::new(SourceKind::Spirv);
    let k = b.spec32(1, 1, "K");
    let two = b.c32(2);
    let mul = b.expr32(ConstExpr::Binary(BinOp::Mul, k, two));
    let c15 = b.c32(15);
    let add = b.expr32(ConstExpr::Binary(BinOp::Add, mul, c15));
    let mask = b.c32(0xFFFF_FFF0);
    let stride = b.expr32(ConstExpr::Binary(BinOp::And, add, mask));
    let i32t = b.i32t;
    let arr = b.ty(Type::Array { elem: i32t, count: Some(4), stride: None });
    let parr = b.ty(Type::Pointer { pointee: arr, space: 7 });
    let alloca = b.inst(parr, InstKind::Alloca { ty: arr });
    let (c64, c96, c128) = (b.c32(64), b.c32(96), b.c32(128));
    let comp = b.inst(arr, InstKind::Composite { elements: vec![stride, c64, c96, c128] });
    let void = b.void;
    b.inst(void, InstKind::Store { ptr: alloca, value: comp });
    let (zero, c2) = (b.c32(0), b.c32(2));
    let p = b.ptr_i32;
    let g0 = b.inst(p, InstKind::Gep { base: alloca, indices: vec![zero, zero] });
    let l0 = b.inst(i32t, InstKind::Load { ptr: g0 });
    let g2 = b.inst(p, InstKind::Gep { base: alloca, indices: vec![zero, c2] });
    let l2 = b.inst(i32t, InstKind::Load { ptr: g2 });
    let tid = b.unknown();
    let gd = b.inst(p, InstKind::Gep { base: alloca, indices: vec![zero, tid] });
    let ld = b.inst(i32t, InstKind::Load { ptr: gd });
    b.ret();
    assert_eq!(value(&b, l0), AbsValue::Set(smallvec::smallvec![16]));
    assert_eq!(value(&b, l2), AbsValue::Set(smallvec::smallvec![96]));
    assert_eq!(value(&b, ld), AbsValue::Set(smallvec::smallvec![16, 64, 96, 128]));
    // Override K = 24 → (48 + 15) & ~15 = 48.
    let opts = AnalysisOptions { spec_constants: vec![(1, 24)], all_functions: true };
    assert_eq!(value_with(&b, l0, &opts), AbsValue::Set(smallvec::smallvec![48]));
    let a = analyze(&b.m, &AnalysisOptions { all_functions: true, ..Default::default() });
    assert_eq!(a.spec_deps(&b.m, b.f, Operand::Value(l0)), vec![(1, 1)]);
    assert_eq!(a.spec_deps(&b.m, b.f, Operand::Value(l2)), vec![]);
    let a = analyze(&b.m, &opts);
    assert_eq!(a.spec_deps(&b.m, b.f, Operand::Value(l0)), vec![(1, 24)]);
}

#[test]
fn element_stores_join_and_escapes_give_top() {
    let mut b = B::new(SourceKind::Dxil);
    let i32t = b.i32t;
    let arr = b.ty(Type::Array { elem: i32t, count: Some(2), stride: None });
    let parr = b.ty(Type::Pointer { pointee: arr, space: 0 });
    let a = b.inst(parr, InstKind::Alloca { ty: arr });
    let (zero, one) = (b.c32(0), b.c32(1));
    let p = b.ptr_i32;
    let g0 = b.inst(p, InstKind::Gep { base: a, indices: vec![zero, zero] });
    let g1 = b.inst(p, InstKind::Gep { base: a, indices: vec![zero, one] });
    let (c32, c48, c7) = (b.c32(32), b.c32(48), b.c32(7));
    let void = b.void;
    b.inst(void, InstKind::Store { ptr: g0, value: c32 });
    b.inst(void, InstKind::Store { ptr: g0, value: c48 });
    b.inst(void, InstKind::Store { ptr: g1, value: c7 });
    let l0 = b.inst(i32t, InstKind::Load { ptr: g0 });
    let l1 = b.inst(i32t, InstKind::Load { ptr: g1 });
    // A second variable whose address is passed to a call: unknown.
    let v = b.inst(b.ptr_i32, InstKind::Alloca { ty: i32t });
    b.inst(void, InstKind::Store { ptr: v, value: c32 });
    let callee = Value::Function(b.f);
    b.inst(void, InstKind::Call { callee, args: vec![v], dx_op: None });
    let lv = b.inst(i32t, InstKind::Load { ptr: v });
    b.ret();
    assert_eq!(value(&b, l0), AbsValue::Set(smallvec::smallvec![32, 48]));
    assert_eq!(value(&b, l1), AbsValue::Set(smallvec::smallvec![7]));
    assert_eq!(value(&b, lv), AbsValue::Top);
}

#[test]
fn loop_variable_in_memory_converges() {
    // i = 0; loop { off = i * 16 + 4; i = i + 16 }  (SPIR-V Function variable)
    let mut b = B::new(SourceKind::Spirv);
    let i32t = b.i32t;
    let p = b.ptr_i32;
    let var = b.inst(p, InstKind::Alloca { ty: i32t });
    let zero = b.c32(0);
    let void = b.void;
    b.inst(void, InstKind::Store { ptr: var, value: zero });
    let header = b.new_block();
    let exit = b.new_block();
    b.br(header);
    b.cur = header;
    let i = b.inst(i32t, InstKind::Load { ptr: var });
    let c4 = b.c32(4);
    let off = b.bin(BinOp::Add, i, c4);
    let c16 = b.c32(16);
    let next = b.bin(BinOp::Add, i, c16);
    b.inst(void, InstKind::Store { ptr: var, value: next });
    let tid = b.unknown();
    let cond = {
        let i1 = b.i1t;
        b.inst(i1, InstKind::Cmp { pred: CmpPred(36), lhs: next, rhs: tid })
    };
    b.cond_br(cond, header, exit);
    b.cur = exit;
    b.ret();
    assert_eq!(value(&b, i), cong(0, 16));
    assert_eq!(value(&b, off), cong(4, 16));
}

#[test]
fn constant_global_initializer_folds() {
    let mut b = B::new(SourceKind::Dxil);
    let i32t = b.i32t;
    let arr = b.ty(Type::Array { elem: i32t, count: Some(3), stride: None });
    let parr = b.ty(Type::Pointer { pointee: arr, space: 0 });
    let (c1, c2, c3) = (b.c32(10), b.c32(20), b.c32(30));
    let init = b.konst(arr, ConstKind::Aggregate(vec![c1, c2, c3]));
    let g = b.m.globals.append(Global {
        name: Some("lut".into()),
        ty: parr,
        value_ty: arr,
        space: 0,
        init: Some(init),
        is_const: true,
        span: Span::at(0),
    });
    let (zero, one) = (b.c32(0), b.c32(1));
    let p = b.ptr_i32;
    let gep = b.inst(p, InstKind::Gep { base: Value::Global(g), indices: vec![zero, one] });
    let l = b.inst(i32t, InstKind::Load { ptr: gep });
    let tid = b.unknown();
    let gd = b.inst(p, InstKind::Gep { base: Value::Global(g), indices: vec![zero, tid] });
    let ld = b.inst(i32t, InstKind::Load { ptr: gd });
    b.ret();
    assert_eq!(value(&b, l), AbsValue::Set(smallvec::smallvec![20]));
    assert_eq!(value(&b, ld), AbsValue::Set(smallvec::smallvec![10, 20, 30]));
}

#[test]
fn aggregates_extract_insert_and_casts() {
    let mut b = B::new(SourceKind::Dxil);
    let i32t = b.i32t;
    let st = b.ty(Type::Struct { name: None, members: vec![i32t, i32t] });
    let undef = b.konst(st, ConstKind::Undef);
    let tid = b.unknown();
    let c3 = b.c32(3);
    let c5 = b.c32(5);
    let x = b.bin(BinOp::Shl, tid, c3);
    let ins = b.inst(st, InstKind::InsertValue { agg: undef, value: x, indices: vec![1] });
    let ins2 = b.inst(st, InstKind::InsertValue { agg: ins, value: c5, indices: vec![0] });
    let e1 = b.inst(i32t, InstKind::ExtractValue { agg: ins2, indices: vec![1].into() });
    let e0 = b.inst(i32t, InstKind::ExtractValue { agg: ins2, indices: vec![0].into() });
    let i64t = b.i64t;
    let z = b.inst(i64t, InstKind::Cast { op: CastOp::ZExt, value: e1 });
    let i16t = b.ty(Type::Int { bits: 16 });
    let big = b.c32(0x1_0010);
    let tr = b.inst(i16t, InstKind::Cast { op: CastOp::Trunc, value: big });
    b.ret();
    assert_eq!(value(&b, e1), cong(0, 8));
    assert_eq!(value(&b, e0), AbsValue::Set(smallvec::smallvec![5]));
    // Zero extension: still 0 mod 8, and bits 32-63 are now known 0.
    assert_eq!(value(&b, z), AbsValue::Known(KnownBits { zero: 0xFFFF_FFFF_0000_0007, one: 0 }));
    assert_eq!(value(&b, z).to_congruence(64), Some((0, 3)));
    assert_eq!(value(&b, tr), AbsValue::Set(smallvec::smallvec![0x10]));
}

#[test]
fn spec_constant_default_and_override() {
    let mut b = B::new(SourceKind::Spirv);
    let k = b.spec32(3, 16, "layerSize");
    let c2 = b.c32(2);
    let x = b.bin(BinOp::Mul, k, c2);
    b.ret();
    assert_eq!(value(&b, x), AbsValue::Set(smallvec::smallvec![32]));
    let opts = AnalysisOptions { spec_constants: vec![(3, 40)], all_functions: true };
    assert_eq!(value_with(&b, x, &opts), AbsValue::Set(smallvec::smallvec![80]));
    let a = analyze(&b.m, &opts);
    assert_eq!(a.spec_deps(&b.m, b.f, Operand::Value(x)), vec![(3, 40)]);
}

#[test]
fn unreachable_code_stays_bottom() {
    let mut b = B::new(SourceKind::Dxil);
    b.ret();
    let dead = b.new_block();
    b.cur = dead;
    let c = b.c32(12);
    let c1 = b.c32(1);
    let x = b.bin(BinOp::Add, c, c1);
    b.ret();
    assert_eq!(value(&b, x), AbsValue::Bottom);
}

#[test]
fn long_chain_stays_within_budget() {
    // 20 000 dependent additions in a loop: converges, no budget hit.
    let mut b = B::new(SourceKind::Dxil);
    let entry = b.cur;
    let header = b.new_block();
    let exit = b.new_block();
    b.br(header);
    b.cur = header;
    let t = b.i32t;
    let zero = b.c32(0);
    let phi = b.inst(t, InstKind::Phi { incoming: vec![(zero, entry)] });
    let c64 = b.c32(64);
    let mut x = phi;
    for _ in 0..20_000 {
        x = b.bin(BinOp::Add, x, c64);
    }
    let tid = b.unknown();
    let cond = {
        let i1 = b.i1t;
        b.inst(i1, InstKind::Cmp { pred: CmpPred(36), lhs: x, rhs: tid })
    };
    b.cond_br(cond, header, exit);
    if let InstKind::Phi { incoming } = &mut b.func().insts.get_mut(B::handle(phi)).kind {
        incoming.push((x, header));
    }
    b.cur = exit;
    b.ret();
    let a = analyze(&b.m, &AnalysisOptions { all_functions: true, ..Default::default() });
    assert!(!a.budget_exceeded, "steps {}", a.steps);
    // 20 000 × 64 = 625 × 2^11.
    assert_eq!(a.value(&b.m, b.f, Operand::Value(x)), cong(0, 2048));
    assert!(a.steps < 1_000_000, "steps {}", a.steps);
}

#[test]
fn descriptor_fields_survive_the_dataflow() {
    // The Triton shared-memory descriptor, LLVM spelling:
    // desc = zext((addr >> 4) & 0x3FFF) | 0x4000404000000000
    let mut b = B::new(SourceKind::Dxil);
    let addr = b.unknown();
    let (c4, m14) = (b.c32(4), b.c32(0x3FFF));
    let sh = b.bin(BinOp::LShr, addr, c4);
    let start = b.bin(BinOp::And, sh, m14);
    let i64t = b.i64t;
    let wide = b.inst(i64t, InstKind::Cast { op: CastOp::ZExt, value: start });
    let fields = b.konst(i64t, ConstKind::Int(0x4000_4040_0000_0000));
    let desc = b.inst(i64t, InstKind::Binary { op: BinOp::Or, lhs: wide, rhs: fields });
    b.ret();
    let v = value(&b, desc);
    assert_eq!(v.known_bits(64).map(|k| k.unknown(64)), Some(0x3FFF), "every bit above 13 is known");
    assert_eq!(v.known_field(61, 3, 64), Some(2), "layout_type SWIZZLE_128B");
    assert_eq!(v.known_field(46, 3, 64), Some(1), "version");
    assert_eq!(v.known_field(32, 14, 64), Some(64), "SBO 1024 >> 4");
    assert_eq!(v.describe(), "bits 14-63 = 0x4000404000000000");
    assert_eq!(value(&b, sh).describe(), "bits 28-31 = 0");
}

#[test]
fn counting_loop_widens_but_masks_keep_their_high_bits() {
    // for (i = 0; ; ++i) f = (i & 0xFF) | 0x4000: the counter is unknown after a
    // few trips (widened, not one trip per bit: 154 steps without widening, 53
    // with), the masked field is not.
    let mut b = B::new(SourceKind::Dxil);
    let entry = b.cur;
    let header = b.new_block();
    let exit = b.new_block();
    b.br(header);
    b.cur = header;
    let t = b.i32t;
    let zero = b.c32(0);
    let phi = b.inst(t, InstKind::Phi { incoming: vec![(zero, entry)] });
    let (c1, cff, c4000) = (b.c32(1), b.c32(0xFF), b.c32(0x4000));
    let next = b.bin(BinOp::Add, phi, c1);
    let low = b.bin(BinOp::And, phi, cff);
    let f = b.bin(BinOp::Or, low, c4000);
    let tid = b.unknown();
    let cond = {
        let i1 = b.i1t;
        b.inst(i1, InstKind::Cmp { pred: CmpPred(36), lhs: next, rhs: tid })
    };
    b.cond_br(cond, header, exit);
    if let InstKind::Phi { incoming } = &mut b.func().insts.get_mut(B::handle(phi)).kind {
        incoming.push((next, header));
    }
    b.cur = exit;
    b.ret();
    assert_eq!(value(&b, phi), AbsValue::Top);
    assert_eq!(value(&b, f), AbsValue::Known(KnownBits { zero: 0xFFFF_BF00, one: 0x4000 }));
    let a = analyze(&b.m, &AnalysisOptions { all_functions: true, ..Default::default() });
    assert!(a.steps < 80, "the loop took {} steps", a.steps);
}

/// A global whose address the front end declared aligned (PTX `.shared .align
/// 16`) reads as `0 mod 16` in integer arithmetic, a phi or select joining it
/// (re-tagged to the phi's width), integer casts and an address-space cast
/// (which keeps at most 7 low bits); without a declared alignment it is ⊤.
#[test]
fn aligned_global_address_is_zero_mod_its_alignment() {
    let mut b = B::new(SourceKind::Ptx);
    let i8t = b.ty(Type::Int { bits: 8 });
    let arr = b.ty(Type::Array { elem: i8t, count: None, stride: None });
    let parr = b.ty(Type::Pointer { pointee: arr, space: 3 });
    let global = |b: &mut B, name: &str| {
        b.m.globals.append(Global {
            name: Some(name.into()),
            ty: parr,
            value_ty: arr,
            space: 3,
            init: None,
            is_const: false,
            span: Span::at(0),
        })
    };
    let smem = global(&mut b, "smem");
    let big = global(&mut b, "big");
    let plain = global(&mut b, "plain");
    b.m.global_align = vec![16, 1024, 1];
    let (smem, big, plain) = (Value::Global(smem), Value::Global(big), Value::Global(plain));
    let (c8, c24, c4) = (b.c32(8), b.c32(24), b.c32(4));
    let tid = b.unknown();
    let t16 = b.bin(BinOp::Shl, tid, c4);
    let aligned = b.bin(BinOp::Add, smem, t16);
    let off8 = b.bin(BinOp::Add, smem, c8);
    let off24 = b.bin(BinOp::Add, smem, c24);
    let unknown = b.bin(BinOp::Add, plain, c8);
    let entry = b.cur;
    let other = b.new_block();
    let join = b.new_block();
    let zero = b.c32(0);
    let cond = {
        let t = b.i1t;
        b.inst(t, InstKind::Cmp { pred: CmpPred(32), lhs: tid, rhs: zero })
    };
    b.cond_br(cond, other, join);
    b.cur = other;
    b.br(join);
    b.cur = join;
    let t = b.i32t;
    // A phi of the symbol itself (tagged 64 bits) and an i32 offset of it.
    let phi = b.inst(t, InstKind::Phi { incoming: vec![(smem, entry), (off24, other)] });
    let sel = b.inst(t, InstKind::Select { cond, if_true: off8, if_false: off24 });
    let i64t = b.i64t;
    let wide = b.inst(i64t, InstKind::Cast { op: CastOp::ZExt, value: off8 });
    let generic = b.inst(i64t, InstKind::Cast { op: CastOp::AddrSpaceCast, value: big });
    let generic8 = b.inst(i64t, InstKind::Cast { op: CastOp::AddrSpaceCast, value: wide });
    b.ret();
    assert_eq!(value(&b, smem), AbsValue::congruence(0, 4, 64));
    assert_eq!(value(&b, big), AbsValue::congruence(0, 10, 64));
    assert_eq!(value(&b, plain), AbsValue::Top);
    assert_eq!(value(&b, aligned), cong(0, 16));
    assert_eq!(value(&b, off8), cong(8, 16));
    assert_eq!(value(&b, unknown), AbsValue::Top);
    assert_eq!(value(&b, phi), cong(0, 8));
    assert_eq!(value(&b, sel), cong(8, 16));
    assert_eq!(value(&b, wide), AbsValue::from_known(KnownBits { zero: 0xFFFF_FFFF_0000_0007, one: 8 }, 64));
    assert_eq!(value(&b, generic), AbsValue::congruence(0, 7, 64), "cvta keeps 7 low bits");
    assert_eq!(value(&b, generic8), AbsValue::congruence(8, 4, 64));
}

/// Issue 25 class 10 on the IR every front end shares: a chain of 20,000 GEPs,
/// each on the previous one with 201 indices, made every resolved pointer copy
/// its whole path (64 levels × 200 indices each, ~4 GB). Paths longer than any
/// type can nest are unknown, so the analysis stays small and quick, and a
/// short chain still resolves.
#[test]
fn gep_chains_with_many_indices_stay_bounded() {
    let mut b = B::new(SourceKind::Dxil);
    let i32t = b.i32t;
    let ptr = b.ptr_i32;
    let a = b.inst(ptr, InstKind::Alloca { ty: i32t });
    let zero = b.c32(0);
    let seven = b.c32(7);
    b.inst(b.void, InstKind::Store { ptr: a, value: seven });
    let short = b.inst(ptr, InstKind::Gep { base: a, indices: vec![zero] });
    let load_short = b.inst(i32t, InstKind::Load { ptr: short });
    // The long chain on a second variable (an unknown path there makes that
    // variable's address escape, which must not touch the first one).
    let mut p = b.inst(ptr, InstKind::Alloca { ty: i32t });
    for _ in 0..20_000 {
        p = b.inst(ptr, InstKind::Gep { base: p, indices: vec![zero; 201] });
        b.inst(i32t, InstKind::Load { ptr: p });
    }
    b.ret();
    let t = std::time::Instant::now();
    let got = value(&b, load_short);
    assert!(t.elapsed() < std::time::Duration::from_secs(20), "{:?}", t.elapsed());
    assert_eq!(got, AbsValue::Set(smallvec::smallvec![7]));
}
