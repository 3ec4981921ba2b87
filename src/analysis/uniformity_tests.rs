//! Uniformity on the three front ends: small IR modules built here (DXIL
//! dx.op calls, SPIR-V globals and opcodes), PTX text through the PTX front
//! end, and the project's DXIL / SPIR-V fixtures compiled by DXC.

use super::*;
use crate::ir::{
    Binding, Block, CmpPred, ConstKind, Constant, Function, Global, Inst, InstKind, Module, Resource, ResourceKind,
    SourceKind, Span, Type, TypeH,
};

/// A one-function module under construction.
struct B {
    m: Module,
    f: Function,
    i32: TypeH,
    void: TypeH,
    ptr: TypeH,
}

impl B {
    fn new(source: SourceKind) -> B {
        let mut m = Module::new(source);
        let i32 = m.types.append(Type::Int { bits: 32 });
        let void = m.types.append(Type::Void);
        let ptr = m.types.append(Type::Pointer { pointee: i32, space: 0 });
        let mut f = Function { name: "main".into(), ..Default::default() };
        f.blocks.append(Block::default());
        B { m, f, i32, void, ptr }
    }

    fn block(&mut self) -> BlockH {
        self.f.blocks.append(Block::default())
    }

    fn c(&mut self, v: u64) -> Value {
        Value::Const(self.m.constants.append(Constant { ty: self.i32, kind: ConstKind::Int(v), spec_id: None }))
    }

    fn push(&mut self, b: BlockH, ty: TypeH, kind: InstKind) -> Value {
        let h = self.f.insts.append(Inst { ty, kind, span: Span::at(0) });
        self.f.blocks.get_mut(b).insts.push(h);
        Value::Inst(h)
    }

    fn entry(&self) -> BlockH {
        BlockH::from_index(0).unwrap()
    }

    /// `dx.op.NAME(op, args...)` (DXIL).
    fn dxop(&mut self, b: BlockH, op: u32, args: &[Value]) -> Value {
        let decl = self.m.functions.append(Function {
            name: format!("dx.op.f{op}.i32"),
            is_declaration: true,
            ..Default::default()
        });
        let mut all = vec![self.c(u64::from(op))];
        all.extend_from_slice(args);
        self.push(b, self.i32, InstKind::Call { callee: Value::Function(decl), args: all, dx_op: Some(op) })
    }

    fn add(&mut self, b: BlockH, x: Value, y: Value) -> Value {
        self.push(b, self.i32, InstKind::Binary { op: BinOp::Add, lhs: x, rhs: y })
    }

    fn lt(&mut self, b: BlockH, x: Value, y: Value) -> Value {
        self.push(b, self.i32, InstKind::Cmp { pred: CmpPred(36), lhs: x, rhs: y })
    }

    fn br(&mut self, b: BlockH, target: BlockH) {
        self.push(b, self.void, InstKind::Br { target });
    }

    fn cond(&mut self, b: BlockH, cond: Value, t: BlockH, e: BlockH) {
        self.push(b, self.void, InstKind::CondBr { cond, if_true: t, if_false: e });
    }

    fn ret(&mut self, b: BlockH) {
        self.push(b, self.void, InstKind::Ret { value: None });
    }

    fn other(&mut self, b: BlockH, opcode: u32, operands: Vec<Value>) -> Value {
        self.push(b, self.i32, InstKind::Other { opcode, operands: operands.into() })
    }

    /// A SPIR-V module-scope variable of `space` (with a BuiltIn when given).
    fn global(&mut self, space: u32, builtin: Option<u32>) -> Value {
        let id = 100 + self.m.globals.len() as u32;
        let g = self.m.globals.append(Global {
            name: None,
            ty: self.ptr,
            value_ty: self.i32,
            space,
            init: None,
            is_const: false,
            span: Span { offset: 0, id, loc: None },
        });
        if let Some(b) = builtin {
            self.m.builtins.push((g, b));
        }
        Value::Global(g)
    }

    fn load(&mut self, b: BlockH, ptr: Value) -> Value {
        self.push(b, self.i32, InstKind::Load { ptr })
    }

    fn finish(mut self) -> (Module, FuncUniformity) {
        let fh = self.m.functions.append(self.f);
        let u = analyze(&self.m, fh);
        (self.m, u)
    }
}

fn root(u: &FuncUniformity, v: Value) -> Option<Cause> {
    u.root_cause(v, None).map(|(_, c)| c)
}

// ---------------------------------------------------------------- DXIL

#[test]
fn dxil_thread_ids_diverge_group_ids_and_constants_do_not() {
    let mut b = B::new(SourceKind::Dxil);
    let e = b.entry();
    let zero = b.c(0);
    let tid = b.dxop(e, 93, &[zero]);
    let tig = b.dxop(e, 95, &[zero]);
    let flat = b.dxop(e, 96, &[]);
    let gid = b.dxop(e, 94, &[zero]);
    let k = b.c(7);
    let gk = b.add(e, gid, k);
    let mixed = b.add(e, gk, tid);
    b.ret(e);
    let (_, u) = b.finish();
    for v in [tid, tig, flat, mixed] {
        assert!(!u.is_uniform(v), "{v:?}");
    }
    for v in [gid, k, gk] {
        assert!(u.is_uniform(v), "{v:?}");
    }
    assert_eq!(root(&u, mixed), Some(Cause::Source("thread id (dx.op.threadId, SV_DispatchThreadID)")));
    let (chain, _) = u.root_cause(mixed, None).unwrap();
    assert_eq!(chain, vec![mixed, tid]);
}

#[test]
fn dxil_wave_broadcasts_and_reductions_are_uniform() {
    let mut b = B::new(SourceKind::Dxil);
    let e = b.entry();
    let zero = b.c(0);
    let tid = b.dxop(e, 93, &[zero]);
    let first = b.dxop(e, 118, &[tid]);
    let sum = b.dxop(e, 119, &[tid, zero, zero]);
    let ballot = b.dxop(e, 116, &[tid]);
    let at_const = b.dxop(e, 117, &[tid, zero]);
    let at_tid = b.dxop(e, 117, &[tid, tid]);
    let lane = b.dxop(e, 111, &[]);
    let prefix = b.dxop(e, 121, &[tid, zero, zero]);
    let count = b.dxop(e, 112, &[]);
    b.ret(e);
    let (_, u) = b.finish();
    for v in [first, sum, ballot, at_const, count] {
        assert!(u.is_uniform(v), "{v:?}");
    }
    for v in [at_tid, lane, prefix] {
        assert!(!u.is_uniform(v), "{v:?}");
    }
    assert_eq!(root(&u, lane), Some(Cause::Source("lane id (dx.op.waveGetLaneIndex)")));
}

#[test]
fn dxil_cbuffer_and_read_only_loads_are_uniform_writable_loads_and_atomics_are_not() {
    let mut b = B::new(SourceKind::Dxil);
    let e = b.entry();
    let (zero, one, two) = (b.c(0), b.c(1), b.c(2));
    let cb = b.dxop(e, 57, &[two, zero, zero, zero]);
    let srv = b.dxop(e, 57, &[zero, zero, zero, zero]);
    let uav = b.dxop(e, 57, &[one, zero, zero, zero]);
    let cbl = b.dxop(e, 59, &[cb, one]);
    let srv_load = b.dxop(e, 139, &[srv, cbl, zero, one, one]);
    let uav_load = b.dxop(e, 139, &[uav, cbl, zero, one, one]);
    let tid = b.dxop(e, 93, &[zero]);
    let srv_tid = b.dxop(e, 139, &[srv, tid, zero, one, one]);
    let atomic = b.dxop(e, 78, &[uav, zero, zero, zero, zero, one]);
    b.ret(e);
    let (_, u) = b.finish();
    for v in [cb, srv, uav, cbl, srv_load] {
        assert!(u.is_uniform(v), "{v:?}");
    }
    assert_eq!(root(&u, uav_load), Some(Cause::Source("load from a writable buffer (per-lane load)")));
    assert!(!u.is_uniform(srv_tid));
    assert_eq!(root(&u, atomic), Some(Cause::Source("atomic result")));
}

/// `if (c) x = 1; else x = 2;` then `x`.
fn diamond(source: SourceKind, divergent: bool) -> (FuncUniformity, Value, Value) {
    let mut b = B::new(source);
    let e = b.entry();
    let (t, f, j) = (b.block(), b.block(), b.block());
    let zero = b.c(0);
    let id = b.dxop(e, if divergent { 93 } else { 94 }, &[zero]);
    let sixteen = b.c(16);
    let c = b.lt(e, id, sixteen);
    b.cond(e, c, t, f);
    b.br(t, j);
    b.br(f, j);
    let (one, two) = (b.c(1), b.c(2));
    let x = b.push(j, b.i32, InstKind::Phi { incoming: vec![(one, t), (two, f)] });
    let same = b.push(j, b.i32, InstKind::Phi { incoming: vec![(one, t), (one, f)] });
    b.ret(j);
    let (_, u) = b.finish();
    (u, x, same)
}

#[test]
fn dxil_join_after_a_divergent_branch_is_divergent() {
    let (u, x, same) = diamond(SourceKind::Dxil, true);
    assert!(matches!(u.divergence(x), Some(Cause::Join(_))), "{:?}", u.divergence(x));
    assert!(u.is_uniform(same), "the same value on every path stays uniform");
    assert!(u.region_of(BlockH::from_index(1).unwrap()).is_some());
    assert!(u.region_of(BlockH::from_index(3).unwrap()).is_none(), "the join itself is reconverged");
    let (u, x, _) = diamond(SourceKind::Dxil, false);
    assert!(u.is_uniform(x), "a join after a uniform branch is uniform");
}

/// `i = 0; do { i++; } while (i < bound); use(i)` with the bound a thread id
/// (divergent exit) or a group id (uniform exit).
fn counted_loop(source: SourceKind, divergent: bool) -> (FuncUniformity, Value, Value, InstH) {
    let mut b = B::new(source);
    let e = b.entry();
    let (h, x) = (b.block(), b.block());
    let zero = b.c(0);
    let bound = b.dxop(e, if divergent { 93 } else { 94 }, &[zero]);
    b.br(e, h);
    let one = b.c(1);
    let phi = b.push(h, b.i32, InstKind::Phi { incoming: vec![(zero, e)] });
    let next = b.add(h, phi, one);
    if let Value::Inst(p) = phi {
        if let InstKind::Phi { incoming } = &mut b.f.insts.get_mut(p).kind {
            incoming.push((next, h));
        }
    }
    let c = b.lt(h, next, bound);
    b.cond(h, c, h, x);
    let after = b.add(x, next, zero);
    b.ret(x);
    let Value::Inst(user) = after else { unreachable!() };
    let (_, u) = b.finish();
    (u, next, after, user)
}

#[test]
fn dxil_values_leaving_a_loop_with_a_divergent_exit_are_divergent() {
    let (u, next, after, user) = counted_loop(SourceKind::Dxil, true);
    assert!(u.is_uniform(next), "the counter is uniform inside the loop");
    assert!(matches!(u.divergence_at(next, user), Some(Cause::LoopExit(_))));
    assert!(matches!(u.divergence(after), Some(Cause::LoopExit(_))), "{:?}", u.divergence(after));
    let (u, next, after, user) = counted_loop(SourceKind::Dxil, false);
    assert!(u.is_uniform(next) && u.is_uniform(after) && u.divergence_at(next, user).is_none());
}

#[test]
fn function_local_memory_is_uniform_only_when_every_store_is() {
    for divergent_store in [false, true] {
        let mut b = B::new(SourceKind::Dxil);
        let e = b.entry();
        let (t, j) = (b.block(), b.block());
        let var = b.push(e, b.ptr, InstKind::Alloca { ty: b.i32 });
        let zero = b.c(0);
        let five = b.c(5);
        b.push(e, b.void, InstKind::Store { ptr: var, value: zero });
        let gid = b.dxop(e, 94, &[zero]);
        let tid = b.dxop(e, 93, &[zero]);
        let c = b.lt(e, if divergent_store { tid } else { gid }, five);
        b.cond(e, c, t, j);
        b.push(t, b.void, InstKind::Store { ptr: var, value: five });
        b.br(t, j);
        let x = b.load(j, var);
        b.ret(j);
        let (_, u) = b.finish();
        assert_eq!(u.is_uniform(x), !divergent_store, "divergent store: {divergent_store}");
        if divergent_store {
            assert!(matches!(u.divergence(x), Some(Cause::Store(_))));
        }
    }
}

#[test]
fn irreducible_control_flow_makes_everything_divergent() {
    let mut b = B::new(SourceKind::Dxil);
    let e = b.entry();
    let (x, y, z) = (b.block(), b.block(), b.block());
    let zero = b.c(0);
    let gid = b.dxop(e, 94, &[zero]);
    let c = b.lt(e, gid, zero);
    b.cond(e, c, x, y);
    b.cond(x, c, y, z);
    b.cond(y, c, x, z);
    b.ret(z);
    let (_, u) = b.finish();
    assert!(u.whole_function().is_some());
    assert!(!u.is_uniform(gid), "when in doubt, divergent");
    assert!(u.is_uniform(zero), "constants stay uniform");
}

// ---------------------------------------------------------------- SPIR-V

#[test]
fn spirv_builtins_and_memory_classes() {
    let mut b = B::new(SourceKind::Spirv);
    let e = b.entry();
    let wg = b.global(1, Some(26));
    let num = b.global(1, Some(24));
    let gid = b.global(1, Some(28));
    let lid = b.global(1, Some(27));
    let lane = b.global(1, Some(41));
    let input = b.global(1, None);
    let push = b.global(9, None);
    let ssbo = b.global(12, None);
    let shared = b.global(4, None);
    let loads: Vec<Value> =
        [wg, num, gid, lid, lane, input, push, ssbo, shared].into_iter().map(|g| b.load(e, g)).collect();
    b.ret(e);
    let (_, u) = b.finish();
    let uniform: Vec<bool> = loads.iter().map(|v| u.is_uniform(*v)).collect();
    assert_eq!(uniform, [true, true, false, false, false, false, true, false, false]);
    assert_eq!(root(&u, loads[2]), Some(Cause::Source("thread id (GlobalInvocationId)")));
    assert_eq!(root(&u, loads[4]), Some(Cause::Source("lane id (SubgroupLocalInvocationId)")));
}

#[test]
fn spirv_read_only_storage_buffers_and_uniform_buffers_are_uniform() {
    let mut b = B::new(SourceKind::Spirv);
    let e = b.entry();
    let ro = b.global(12, None);
    let rw = b.global(12, None);
    let ubo = b.global(2, None);
    for (g, class) in [(ro, ResourceClass::Srv), (rw, ResourceClass::Uav), (ubo, ResourceClass::CBuffer)] {
        let Value::Global(gh) = g else { unreachable!() };
        let id = b.m.globals.try_get(gh).unwrap().span.id;
        b.m.resources.append(Resource {
            class,
            kind: ResourceKind::STRUCTURED_BUFFER,
            name: None,
            binding: Binding::Descriptor { set: Some(0), binding: Some(0) },
            stride: Some(4),
            id,
            span: Span::at(0),
        });
    }
    let (a, c, d) = (b.load(e, ro), b.load(e, rw), b.load(e, ubo));
    b.ret(e);
    let (_, u) = b.finish();
    assert!(u.is_uniform(a));
    assert!(!u.is_uniform(c));
    assert!(u.is_uniform(d));
}

#[test]
fn spirv_subgroup_broadcasts() {
    let mut b = B::new(SourceKind::Spirv);
    let e = b.entry();
    let gid = b.global(1, Some(28));
    let tid = b.load(e, gid);
    let scope = b.c(3);
    let zero = b.c(0);
    let first = b.other(e, 338, vec![scope, tid]);
    let bcast_const = b.other(e, 337, vec![scope, tid, zero]);
    let bcast_tid = b.other(e, 337, vec![scope, tid, tid]);
    let elect = b.other(e, 333, vec![scope]);
    let any = b.other(e, 335, vec![scope, tid]);
    let scan = b.other(e, 349, vec![scope, tid]);
    let unknown = b.other(e, 9999, vec![]);
    b.ret(e);
    let (_, u) = b.finish();
    for v in [first, bcast_const, any] {
        assert!(u.is_uniform(v), "{v:?}");
    }
    for v in [bcast_tid, elect, scan, unknown] {
        assert!(!u.is_uniform(v), "{v:?}");
    }
}

#[test]
fn spirv_join_and_loop_exit() {
    // The CFG rules do not depend on the front end; the thread id here is a SPIR-V built-in.
    let mut b = B::new(SourceKind::Spirv);
    let e = b.entry();
    let (t, j) = (b.block(), b.block());
    let gid = b.global(1, Some(28));
    let tid = b.load(e, gid);
    let four = b.c(4);
    let c = b.lt(e, tid, four);
    b.cond(e, c, t, j);
    b.br(t, j);
    let one = b.c(1);
    let x = b.push(j, b.i32, InstKind::Phi { incoming: vec![(one, t), (four, e)] });
    b.ret(j);
    let (_, u) = b.finish();
    assert!(matches!(u.divergence(x), Some(Cause::Join(h)) if h.index() == 0), "{:?}", u.divergence(x));
}

/// The element index of every `OpAccessChain` on a storage buffer of a
/// fixture, with its divergence.
fn spirv_fixture_indices(name: &str) -> Vec<(String, Option<Cause>)> {
    let path = format!("{}/tests/fixtures/spirv/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).expect("fixture");
    let m = crate::spirv::lower(&bytes, 0).expect("lower");
    let mut out = Vec::new();
    for (fh, f) in m.functions.iter() {
        if f.is_declaration {
            continue;
        }
        let u = analyze(&m, fh);
        for (ih, inst) in f.insts.iter() {
            let InstKind::Gep { base: Value::Global(g), indices } = &inst.kind else { continue };
            let Some(r) = m.resources.values().find(|r| r.id == m.globals.try_get(*g).unwrap().span.id) else {
                continue;
            };
            if let Some(idx) = indices.get(2) {
                out.push((r.name.clone().unwrap_or_default(), u.root_cause(*idx, Some(ih)).map(|x| x.1)));
            }
        }
    }
    out
}

#[test]
fn spirv_fixture_thread_id_indices_are_divergent() {
    let got = spirv_fixture_indices("sb_stride_mixed.spv");
    assert!(got.len() >= 4, "{got:?}");
    for (name, cause) in &got {
        assert_eq!(*cause, Some(Cause::Source("thread id (GlobalInvocationId)")), "{name}");
    }
}

// ---------------------------------------------------------------- PTX

const PTX: &str = include_str!("../../tests/data/uniformity.ptx");

/// The stored value of every `st` of the first kernel, in order, with its divergence.
fn ptx_stores() -> Vec<Option<Cause>> {
    let m = crate::ptx::lower(PTX.as_bytes(), 0).expect("lower");
    let fh = m.entry_points.first().and_then(|e| e.function).expect("kernel");
    let u = analyze(&m, fh);
    let f = m.functions.try_get(fh).unwrap();
    let mut out = Vec::new();
    for (_, b) in f.blocks.iter() {
        for ih in &b.insts {
            if let InstKind::Store { value, .. } = f.insts.try_get(*ih).unwrap().kind {
                out.push(u.root_cause(value, Some(*ih)).map(|x| x.1));
            }
        }
    }
    out
}

#[test]
fn ptx_sources_of_uniformity_and_divergence() {
    let s = ptx_stores();
    assert_eq!(s.len(), 14, "{s:?}");
    let src = |x: &'static str| Some(Cause::Source(x));
    // param, %ctaid.x, %tid.x, ctaid*ntid+param, +tid, shfl from lane 0, shfl from lane tid,
    // ld.global, atom.
    assert_eq!(s[0], None);
    assert_eq!(s[1], None);
    assert_eq!(s[2], src("thread id (%tid)"));
    assert_eq!(s[3], None);
    assert_eq!(s[4], src("thread id (%tid)"));
    assert_eq!(s[5], None, "shfl.sync.idx from a uniform lane broadcasts");
    assert_eq!(s[6], src("thread id (%tid)"));
    assert_eq!(s[7], src("load from memory lanes may write (per-lane load)"));
    assert_eq!(s[8], src("atomic result"));
    // The join after `@%p bra` on a thread id, then on a block id.
    assert!(matches!(s[9], Some(Cause::Join(_))), "{:?}", s[9]);
    assert_eq!(s[10], None);
    // A loop exiting on `i < tid`: the counter after the loop.
    assert!(matches!(s[11], Some(Cause::LoopExit(_))), "{:?}", s[11]);
    // A loop exiting on `i < param`: uniform inside and after.
    assert_eq!(s[12], None);
    assert_eq!(s[13], None);
}

/// A glslang-style loop whose counter lives in a `Function` variable:
/// `i = 0; while (i < bound) { if (tid < 5) return; i = i + 1; } use(i)`.
/// Returns (uniformity, load of i in the header, load in the latch, load after the loop).
fn memory_loop(bound_divergent: bool) -> (FuncUniformity, Value, Value, Value) {
    let mut b = B::new(SourceKind::Spirv);
    let e = b.entry();
    let (h, body, ret, latch, exit) = (b.block(), b.block(), b.block(), b.block(), b.block());
    let var = b.push(e, b.ptr, InstKind::Alloca { ty: b.i32 });
    let zero = b.c(0);
    b.push(e, b.void, InstKind::Store { ptr: var, value: zero });
    let gid = b.global(1, Some(28));
    let tid = b.load(e, gid);
    let ten = b.c(10);
    let bound = if bound_divergent { tid } else { ten };
    b.br(e, h);
    let x = b.load(h, var);
    let c = b.lt(h, x, bound);
    b.cond(h, c, body, exit);
    let five = b.c(5);
    let t = b.lt(body, tid, five);
    b.cond(body, t, ret, latch);
    b.ret(ret);
    let y = b.load(latch, var);
    let one = b.c(1);
    let y1 = b.add(latch, y, one);
    b.push(latch, b.void, InstKind::Store { ptr: var, value: y1 });
    b.br(latch, h);
    let z = b.load(exit, var);
    b.ret(exit);
    let (_, u) = b.finish();
    (u, x, y, z)
}

#[test]
fn a_counter_in_memory_stays_uniform_inside_a_loop_that_lanes_leave_early() {
    let (u, x, y, z) = memory_loop(false);
    assert!(u.is_uniform(x), "{:?}", u.divergence(x));
    assert!(u.is_uniform(y), "{:?}", u.divergence(y));
    // After a loop with a divergent exit (the early return), the analysis
    // gives up on the counter: sound, if not precise.
    assert!(matches!(u.divergence(z), Some(Cause::Store(_))), "{:?}", u.divergence(z));
    // Bounded by a thread id, the header's own exit is divergent: the counter is
    // still the same for the lanes that stay, but not after the loop.
    let (u, x, _, z) = memory_loop(true);
    assert!(u.is_uniform(x), "{:?}", u.divergence(x));
    assert!(!u.is_uniform(z));
}
