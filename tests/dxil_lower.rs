//! DXIL semantics (resources, handle resolution, facts) on hand-built
//! `LlvmModule`s, and on the real fixtures and corpus once bitcode decodes.

mod common_dxil {
    use irlint::dxil::llvm::{LlvmModule, MdId, Metadata};
    use irlint::ir::*;

    /// Builds small LLVM modules by hand.
    pub struct B {
        pub m: Module,
        pub md: Vec<Metadata>,
        pub named: Vec<(String, Vec<MdId>)>,
    }

    /// A function body under construction.
    pub struct F {
        pub f: Function,
        pub block: BlockH,
    }

    impl B {
        pub fn new() -> Self {
            B { m: Module::new(SourceKind::Dxil), md: Vec::new(), named: Vec::new() }
        }
        pub fn ty(&mut self, t: Type) -> TypeH {
            if let Some((h, _)) = self.m.types.iter().find(|(_, x)| **x == t) {
                return h;
            }
            self.m.types.append(t)
        }
        pub fn i(&mut self, bits: u16) -> TypeH {
            self.ty(Type::Int { bits })
        }
        pub fn handle_ty(&mut self) -> TypeH {
            let i8 = self.i(8);
            let p = self.ty(Type::Pointer { pointee: i8, space: 0 });
            self.ty(Type::Struct { name: Some("dx.types.Handle".into()), members: vec![p] })
        }
        pub fn cint(&mut self, bits: u16, v: u64) -> Value {
            let ty = self.i(bits);
            Value::Const(self.m.constants.append(Constant { ty, kind: ConstKind::Int(v), spec_id: None }))
        }
        pub fn cundef(&mut self, ty: TypeH) -> Value {
            Value::Const(self.m.constants.append(Constant { ty, kind: ConstKind::Undef, spec_id: None }))
        }
        pub fn cagg(&mut self, ty: TypeH, vals: Vec<Value>) -> Value {
            Value::Const(self.m.constants.append(Constant { ty, kind: ConstKind::Aggregate(vals), spec_id: None }))
        }
        pub fn cnull(&mut self, ty: TypeH) -> Value {
            Value::Const(self.m.constants.append(Constant { ty, kind: ConstKind::Null, spec_id: None }))
        }
        pub fn md(&mut self, x: Metadata) -> MdId {
            self.md.push(x);
            (self.md.len() - 1) as MdId
        }
        pub fn mi(&mut self, bits: u16, v: u64) -> MdId {
            let value = self.cint(bits, v);
            let ty = self.i(bits);
            self.md(Metadata::Value { ty, value })
        }
        pub fn ms(&mut self, s: &str) -> MdId {
            self.md(Metadata::String(s.as_bytes().to_vec()))
        }
        pub fn mv(&mut self, ty: TypeH, value: Value) -> MdId {
            self.md(Metadata::Value { ty, value })
        }
        pub fn node(&mut self, ops: Vec<Option<MdId>>) -> MdId {
            self.md(Metadata::Node { distinct: false, ops })
        }
        pub fn named(&mut self, name: &str, ops: Vec<MdId>) {
            self.named.push((name.into(), ops));
        }
        pub fn declare(&mut self, name: &str, ret: TypeH, params: Vec<TypeH>) -> Value {
            let f = Function {
                name: name.into(),
                params,
                ret: Some(ret),
                is_declaration: true,
                span: Span::at(0),
                ..Function::default()
            };
            Value::Function(self.m.functions.append(f))
        }
        pub fn body(&mut self, name: &str) -> F {
            let void = self.ty(Type::Void);
            let mut f = Function { name: name.into(), ret: Some(void), span: Span::at(0), ..Function::default() };
            let block = f.blocks.append(Block::default());
            F { f, block }
        }
        pub fn finish(&mut self, mut fb: F) -> FuncH {
            let void = self.ty(Type::Void);
            fb.push(void, InstKind::Ret { value: None });
            self.m.functions.append(fb.f)
        }
        pub fn build(self) -> LlvmModule {
            LlvmModule { module: self.m, metadata: self.md, named: self.named, triple: Some("dxil-ms-dx".into()) }
        }
    }

    impl F {
        pub fn push(&mut self, ty: TypeH, kind: InstKind) -> Value {
            let h = self.f.insts.append(Inst { ty, kind, span: Span::at(0) });
            self.f.blocks[self.block].insts.push(h);
            Value::Inst(h)
        }
        pub fn call(&mut self, ty: TypeH, callee: Value, op: u32, b: &mut B, rest: Vec<Value>) -> Value {
            let mut args = vec![b.cint(32, u64::from(op))];
            args.extend(rest);
            self.push(ty, InstKind::Call { callee, args, dx_op: Some(op) })
        }
    }
}

use common_dxil::B;
use irlint::dxil::llvm::LlvmModule;
use irlint::dxil::lower::lower_llvm;
use irlint::ir::*;

/// `!{i32 id, undef, !"name", space, lower, range, kind, ...}` for an SRV (9 fields).
fn srv_record(b: &mut B, id: u64, name: &str, lower: u64, kind: u64, stride: Option<u64>) -> u32 {
    let i32t = b.i(32);
    let undef = b.cundef(i32t);
    let ops = [b.mi(32, id), b.mv(i32t, undef), b.ms(name), b.mi(32, 0), b.mi(32, lower), b.mi(32, 1), b.mi(32, kind)];
    let mut ops: Vec<Option<u32>> = ops.into_iter().map(Some).collect();
    ops.push(Some(b.mi(32, 0)));
    let ext = stride.map(|s| {
        let t = b.mi(32, 1);
        let v = b.mi(32, s);
        b.node(vec![Some(t), Some(v)])
    });
    ops.push(ext);
    b.node(ops)
}

fn resources_md(b: &mut B, srvs: Vec<u32>) {
    let list = b.node(srvs.into_iter().map(Some).collect());
    let r = b.node(vec![Some(list), None, None, None]);
    b.named("dx.resources", vec![r]);
}

#[test]
fn structured_buffer_stride_and_createhandle() {
    let mut b = B::new();
    let r0 = srv_record(&mut b, 0, "g_Verts", 0, 12, Some(20));
    let r1 = srv_record(&mut b, 1, "", 3, 11, None);
    resources_md(&mut b, vec![r0, r1]);
    let ident = b.ms("dxc(private) 1.9.0.15466 (main, 9a3e225da)");
    let ident = b.node(vec![Some(ident)]);
    b.named("llvm.ident", vec![ident]);
    let cs = b.ms("cs");
    let (six, zero) = (b.mi(32, 6), b.mi(32, 0));
    let sm = b.node(vec![Some(cs), Some(six), Some(zero)]);
    b.named("dx.shaderModel", vec![sm]);

    let h = b.handle_ty();
    let (i8t, i32t, i1t) = (b.i(8), b.i(32), b.i(1));
    let ch = b.declare("dx.op.createHandle", h, vec![i32t, i8t, i32t, i32t, i1t]);
    let mut f = b.body("main");
    let (c0, id1, idx3, nu) = (b.cint(8, 0), b.cint(32, 1), b.cint(32, 3), b.cint(1, 0));
    let h1 = f.call(h, ch, 57, &mut b, vec![c0, id1, idx3, nu]);
    let _ = h1;
    let main = b.finish(f);
    let void = b.ty(Type::Void);
    let fnty = b.ty(Type::Function { ret: void, params: vec![] });
    let fp = b.ty(Type::Pointer { pointee: fnty, space: 0 });
    let mainv = b.mv(fp, Value::Function(main));
    let name = b.ms("main");
    let ep = b.node(vec![Some(mainv), Some(name), None, None, None]);
    b.named("dx.entryPoints", vec![ep]);

    let m = lower_llvm(b.build(), None);
    assert_eq!(m.target.as_deref(), Some("cs_6_0"));
    assert_eq!(m.producer.as_deref(), Some("dxc(private) 1.9.0.15466 (main, 9a3e225da)"));
    assert_eq!(m.entry_points, vec![EntryPoint { name: "main".into(), function: Some(main), stage: "compute".into() }]);
    assert_eq!(m.resources.len(), 2);
    let sb = m.resources.values().next().unwrap();
    assert_eq!(sb.class, ResourceClass::Srv);
    assert_eq!(sb.kind, ResourceKind::STRUCTURED_BUFFER);
    assert_eq!(sb.stride, Some(20));
    assert_eq!(sb.name.as_deref(), Some("g_Verts"));
    assert_eq!(sb.binding, Binding::Register { space: 0, lower_bound: 0, range: 1 });
    let raw = m.resources.values().nth(1).unwrap();
    assert_eq!(raw.name, None);
    assert_eq!(raw.stride, None);
    assert_eq!(raw.id, 1);
    assert_eq!(irlint::dxil::resources::binding_text(raw.class, &raw.binding), "t3 space0");
}

/// ByteAddressBuffer t0 via createHandleFromBinding + annotateHandle, then an
/// 8 x f32 rawBufferVectorLoad at byte offset 12 and a LinAlg descriptor load.
fn sm610_module(phi_other: bool) -> (LlvmModule, FuncH) {
    let mut b = B::new();
    let r0 = srv_record(&mut b, 0, "", 0, 11, None);
    let r1 = srv_record(&mut b, 1, "", 1, 11, None);
    resources_md(&mut b, vec![r0, r1]);
    let h = b.handle_ty();
    let (i8t, i32t, i1t) = (b.i(8), b.i(32), b.i(1));
    let f32t = b.ty(Type::Float { bits: 32 });
    let v8 = b.ty(Type::Vector { elem: f32t, count: 8 });
    let resret = b.ty(Type::Struct { name: Some("dx.types.ResRet.v8f32".into()), members: vec![v8, i32t] });
    let resbind = b.ty(Type::Struct { name: Some("dx.types.ResBind".into()), members: vec![i32t, i32t, i32t, i8t] });
    let props = b.ty(Type::Struct { name: Some("dx.types.ResourceProperties".into()), members: vec![i32t, i32t] });
    let i8p = b.ty(Type::Pointer { pointee: i8t, space: 0 });
    let mat = b.ty(Type::Struct { name: Some("dx.types.LinAlgMatrixC8M16N16U0S0".into()), members: vec![i8p] });
    let mat2 = b.ty(Type::Struct { name: Some("dx.types.LinAlgMatrixC9M8N32U2S1".into()), members: vec![i8p] });
    let void = b.ty(Type::Void);
    // !dx.targetTypes for the first matrix type only (the second falls back to its name).
    let mu = b.cundef(mat);
    let mv = b.mv(mat, mu);
    let ints: Vec<u32> = [8u64, 16, 16, 0, 0].iter().map(|v| b.mi(32, *v)).collect();
    let mut ops = vec![Some(mv)];
    ops.extend(ints.into_iter().map(Some));
    let tt = b.node(ops);
    b.named("dx.targetTypes", vec![tt]);

    let bind = b.declare("dx.op.createHandleFromBinding", h, vec![i32t, resbind, i32t, i1t]);
    let ann = b.declare("dx.op.annotateHandle", h, vec![i32t, h, props]);
    let vload = b.declare("dx.op.rawBufferVectorLoad.v8f32", resret, vec![i32t, h, i32t, i32t, i32t]);
    let vstore = b.declare("dx.op.rawBufferVectorStore.v8f32", void, vec![i32t, h, i32t, i32t, v8, i32t]);
    let lload =
        b.declare("dx.op.linAlgMatrixLoadFromDescriptor.mC8M16N16U0S0", mat, vec![i32t, h, i32t, i32t, i32t, i32t]);
    let lstore = b.declare(
        "dx.op.linAlgMatrixStoreToDescriptor.mC9M8N32U2S1",
        void,
        vec![i32t, mat2, h, i32t, i32t, i32t, i32t],
    );
    let heap = b.declare("dx.op.createHandleFromHeap", h, vec![i32t, i1t, i1t]);

    let mut f = b.body("main");
    let zb = b.cnull(resbind);
    let (z, f0) = (b.cint(32, 0), b.cint(1, 0));
    let hb = f.call(h, bind, 217, &mut b, vec![zb, z, f0]);
    let p11 = {
        let (a, c) = (b.cint(32, 11), b.cint(32, 0));
        b.cagg(props, vec![a, c])
    };
    let ha = f.call(h, ann, 216, &mut b, vec![hb, p11]);
    let handle = if phi_other {
        // select(cond, t0 handle, t1 handle): disagreeing inputs → unresolved.
        let rb1 = {
            let (l, u, s, c) = (b.cint(32, 1), b.cint(32, 1), b.cint(32, 0), b.cint(8, 0));
            b.cagg(resbind, vec![l, u, s, c])
        };
        let one = b.cint(32, 1);
        let hb1 = f.call(h, bind, 217, &mut b, vec![rb1, one, f0]);
        let ha1 = f.call(h, ann, 216, &mut b, vec![hb1, p11]);
        let t = b.cint(1, 1);
        f.push(h, InstKind::Select { cond: t, if_true: ha, if_false: ha1 })
    } else {
        let t = b.cint(1, 1);
        f.push(h, InstKind::Select { cond: t, if_true: ha, if_false: ha })
    };
    let (i12, u, a4) = (b.cint(32, 12), b.cundef(i32t), b.cint(32, 4));
    let ld = f.call(resret, vload, 303, &mut b, vec![handle, i12, u, a4]);
    let vec = f.push(v8, InstKind::ExtractValue { agg: ld, indices: vec![0] });
    let (i64c, e8) = (b.cint(32, 64), b.cint(32, 8));
    f.call(void, vstore, 304, &mut b, vec![handle, i64c, e8, vec, a4]);
    let (s16, l0, a128) = (b.cint(32, 16), b.cint(32, 0), b.cint(32, 128));
    let m1 = f.call(mat, lload, 0x8000_000E, &mut b, vec![ha, l0, s16, l0, a128]);
    let _ = m1;
    let mu2 = b.cundef(mat2);
    let (s64, l1) = (b.cint(32, 64), b.cint(32, 1));
    f.call(void, lstore, 0x8000_0014, &mut b, vec![mu2, ha, a128, s64, l1, a128]);
    // Heap: createHandleFromHeap → annotateHandle {RWStructuredBuffer, stride 24}.
    let hh = f.call(h, heap, 218, &mut b, vec![i12, f0, f0]);
    let p_sb = {
        let (a, c) = (b.cint(32, 4108), b.cint(32, 24));
        b.cagg(props, vec![a, c])
    };
    f.call(h, ann, 216, &mut b, vec![hh, p_sb]);
    let main = b.finish(f);
    (b.build(), main)
}

fn imm(m: &Module, op: Option<Operand>) -> Option<u64> {
    match op? {
        Operand::Imm(v) => Some(v),
        Operand::Value(v) => m.const_int(v),
    }
}

#[test]
fn raw_vector_and_linalg_facts() {
    let (llvm, main) = sm610_module(false);
    let m = lower_llvm(llvm, None);
    assert_eq!(m.facts.len(), 4, "{:#?}", m.facts);
    let t0 = ResourceH::from_index(0);
    let FactKind::RawVector(ld) = &m.facts[0].kind else { panic!("{:?}", m.facts[0]) };
    assert_eq!(m.facts[0].function, main);
    assert!(!ld.store);
    assert_eq!((ld.count, ld.component_bytes, ld.float), (8, 4, true));
    assert_eq!(imm(&m, Some(ld.index)), Some(12));
    assert_eq!(ld.element_offset, None);
    assert_eq!(ld.alignment, Some(4));
    assert_eq!(ld.kind, Some(ResourceKind::RAW_BUFFER));
    assert_eq!(ld.resource, t0);

    let FactKind::RawVector(st) = &m.facts[1].kind else { panic!() };
    assert!(st.store);
    assert_eq!((st.count, st.component_bytes), (8, 4));
    assert_eq!(imm(&m, Some(st.index)), Some(64));
    assert_eq!(imm(&m, st.element_offset), Some(8));

    let FactKind::Matrix(l) = &m.facts[2].kind else { panic!() };
    assert_eq!(l.op, MatrixOpKind::Load);
    assert_eq!(l.encoding, MatrixEncoding::DxilLinAlg);
    assert_eq!(l.opcode, 0x8000_000E);
    assert_eq!((l.rows, l.cols, l.element), (Some(Operand::Imm(16)), Some(Operand::Imm(16)), Some(Operand::Imm(8))));
    assert_eq!((l.matrix_use, l.scope), (Some(0), Some(0)));
    assert_eq!(imm(&m, l.stride), Some(16));
    assert_eq!(imm(&m, l.layout), Some(0));
    assert_eq!(imm(&m, l.offset), Some(0));
    assert_eq!(imm(&m, l.align), Some(128));
    assert_eq!(l.layout_numbering, LayoutNumbering::DxilLinAlg);
    assert_eq!(l.element_numbering, ComponentNumbering::Dxil);
    assert_eq!(l.resource, t0);

    let FactKind::Matrix(s) = &m.facts[3].kind else { panic!() };
    assert_eq!(s.op, MatrixOpKind::Store);
    assert_eq!((imm(&m, s.rows), imm(&m, s.cols), imm(&m, s.element)), (Some(8), Some(32), Some(9)));
    assert_eq!((s.matrix_use, s.scope), (Some(2), Some(1)));
    assert_eq!((imm(&m, s.offset), imm(&m, s.stride), imm(&m, s.layout)), (Some(128), Some(64), Some(1)));

    // Heap structured buffer: one resource per annotateHandle site.
    assert_eq!(m.resources.len(), 3);
    let heap = m.resources.values().nth(2).unwrap();
    assert_eq!((heap.class, heap.kind, heap.stride), (ResourceClass::Uav, ResourceKind::STRUCTURED_BUFFER, Some(24)));
    assert!(matches!(heap.binding, Binding::Heap { function, .. } if function == main));
}

#[test]
fn disagreeing_select_leaves_handle_unresolved() {
    let (llvm, _) = sm610_module(true);
    let m = lower_llvm(llvm, None);
    let FactKind::RawVector(ld) = &m.facts[0].kind else { panic!() };
    assert_eq!(ld.resource, None);
    // Both inputs are raw buffers: the kind still agrees.
    assert_eq!(ld.kind, Some(ResourceKind::RAW_BUFFER));
}
