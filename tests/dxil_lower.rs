//! DXIL semantics (resources, handle resolution, facts) on hand-built
//! `LlvmModule`s, and on the real fixtures and corpus once bitcode decodes.

mod common;

use common::shared_dir;
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
            LlvmModule {
                module: self.m,
                metadata: self.md,
                named: self.named,
                triple: Some("dxil-ms-dx".into()),
                attachments: Vec::new(),
                kinds: Vec::new(),
                kind_text: String::new(),
            }
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
    // An opcode the table does not know is kept as a call, with a remark.
    let mystery = b.declare("dx.op.mystery", i32t, vec![i32t]);
    f.call(i32t, mystery, 999, &mut b, vec![]);
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
    assert_eq!(m.remarks, vec!["dx.op opcodes not in the opcode table (kept as calls): unknown dx.op 999".to_string()]);
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
    let vec = f.push(v8, InstKind::ExtractValue { agg: ld, indices: vec![0].into() });
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

// ---------------------------------------------------------------------------
// Real fixtures and corpus, checked against DXC's disassembly (`dis/*.ll`).

mod ll {
    //! Just enough of the `.ll` text to compare: dx.op calls and their
    //! scalar constant operands, and the `!dx.resources` records.

    use std::collections::BTreeMap;

    /// An argument of a dx.op call as the disassembly shows it.
    #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
    pub enum Arg {
        Int(u64),
        Undef,
        Other,
    }

    /// One `call ... @dx.op.<class>[.<ovl>](args)` line.
    #[derive(Debug, Clone)]
    pub struct Call {
        pub callee: String,
        pub opcode: u32,
        pub args: Vec<Arg>,
        pub raw_args: Vec<String>,
    }

    /// Splits at top-level commas (outside quotes, braces, brackets, parens and `<>`).
    pub fn split_top(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let (mut depth, mut quote, mut cur) = (0i32, false, String::new());
        for c in s.chars() {
            match c {
                '"' => quote = !quote,
                '{' | '(' | '[' | '<' if !quote => depth += 1,
                '}' | ')' | ']' | '>' if !quote => depth -= 1,
                ',' if !quote && depth == 0 => {
                    out.push(cur.trim().to_string());
                    cur.clear();
                    continue;
                }
                _ => {}
            }
            cur.push(c);
        }
        if !cur.trim().is_empty() {
            out.push(cur.trim().to_string());
        }
        out
    }

    fn arg(a: &str) -> Arg {
        let Some((ty, v)) = a.rsplit_once(' ') else { return Arg::Other };
        let bits = match ty.trim() {
            "i1" => 1,
            "i8" => 8,
            "i16" => 16,
            "i32" => 32,
            "i64" => 64,
            _ => return if v == "undef" { Arg::Undef } else { Arg::Other },
        };
        match v {
            "undef" => Arg::Undef,
            "true" => Arg::Int(1),
            "false" => Arg::Int(0),
            v => match v.parse::<i64>() {
                Ok(x) => Arg::Int(if bits == 64 { x as u64 } else { (x as u64) & ((1u64 << bits) - 1) }),
                Err(_) => Arg::Other,
            },
        }
    }

    pub fn calls(text: &str) -> Vec<Call> {
        let mut out = Vec::new();
        for line in text.lines() {
            let line = line.split("  ;").next().unwrap_or(line);
            if !line.trim_start().starts_with('%') && !line.trim_start().starts_with("call") {
                continue;
            }
            if !line.contains("call ") {
                continue;
            }
            // `@dx.op.x.y(` or, when the overload names need quoting, `@"dx.op.x.y"(`.
            let (rest, callee_end) = if let Some(at) = line.find("@\"dx.op.") {
                let rest = &line[at + 2..];
                let Some(q) = rest.find('"') else { continue };
                (rest, q)
            } else if let Some(at) = line.find("@dx.op.") {
                let rest = &line[at + 1..];
                let Some(open) = rest.find('(') else { continue };
                (rest, open)
            } else {
                continue;
            };
            let callee = rest[..callee_end].to_string();
            let Some(open) = rest[callee_end..].find('(').map(|o| o + callee_end) else { continue };
            let Some(close) = rest.rfind(')') else { continue };
            let raw_args = split_top(&rest[open + 1..close]);
            let args: Vec<Arg> = raw_args.iter().map(|a| arg(a)).collect();
            let Some(Arg::Int(op)) = args.first().cloned() else { continue };
            out.push(Call { callee, opcode: op as u32, args, raw_args });
        }
        out
    }

    /// `!N = !{...}` → N → operands.
    pub fn metadata(text: &str) -> BTreeMap<u32, Vec<String>> {
        let mut md = BTreeMap::new();
        for line in text.lines() {
            let Some(rest) = line.strip_prefix('!') else { continue };
            let Some((id, body)) = rest.split_once(" = ") else { continue };
            let Ok(id) = id.parse::<u32>() else { continue };
            let body = body.trim_start_matches("distinct ");
            let Some(inner) = body.strip_prefix("!{").and_then(|b| b.strip_suffix('}')) else { continue };
            md.insert(id, split_top(inner));
        }
        md
    }

    pub fn named(text: &str, name: &str) -> Vec<u32> {
        let prefix = format!("!{name} = !{{");
        text.lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .map(|r| {
                r.trim_end_matches('}').split(", ").filter_map(|x| x.trim_start_matches('!').parse().ok()).collect()
            })
            .unwrap_or_default()
    }

    fn ref_id(s: &str) -> Option<u32> {
        s.strip_prefix('!').and_then(|x| x.parse().ok())
    }

    fn int(s: &str) -> Option<u64> {
        match arg(s) {
            Arg::Int(v) => Some(v),
            _ => None,
        }
    }

    /// `(class, id, space, lower, range, kind, stride)` of a resource record.
    pub type Record = (u32, u32, u32, u32, u32, u32, Option<u32>);

    /// Every `!dx.resources` record.
    pub fn resources(text: &str) -> Vec<Record> {
        let md = metadata(text);
        let mut out = Vec::new();
        for top in named(text, "dx.resources") {
            let Some(classes) = md.get(&top) else { continue };
            for (class, list) in classes.iter().enumerate() {
                let Some(list) = ref_id(list).and_then(|l| md.get(&l)) else { continue };
                for rec in list.iter().filter_map(|r| ref_id(r)).filter_map(|r| md.get(&r)) {
                    let f = |i: usize| rec.get(i).and_then(|s| int(s)).map(|v| v as u32);
                    let kind = match class {
                        0 | 1 => f(6).unwrap_or(0),
                        2 => 13,
                        _ => 14,
                    };
                    let ext_idx = match class {
                        0 => 8,
                        1 => 10,
                        _ => 7,
                    };
                    let stride = rec.get(ext_idx).and_then(|e| ref_id(e)).and_then(|e| md.get(&e)).and_then(|pairs| {
                        pairs.chunks(2).find_map(|p| match p {
                            [t, v] if int(t) == Some(1) => int(v).map(|v| v as u32),
                            _ => None,
                        })
                    });
                    out.push((
                        class as u32,
                        f(0).unwrap_or(0),
                        f(3).unwrap_or(0),
                        f(4).unwrap_or(0),
                        f(5).unwrap_or(0),
                        kind,
                        stride,
                    ));
                }
            }
        }
        out
    }
}

fn lower_file(path: &std::path::Path) -> Module {
    let bytes = std::fs::read(path).unwrap();
    let c = irlint::read::dxbc::parse(&bytes, 0).unwrap();
    irlint::dxil::lower_container(&c).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn opcode_counts(m: &Module) -> std::collections::BTreeMap<u32, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for f in m.functions.values() {
        for i in f.insts.values() {
            if let InstKind::Call { callee, args, dx_op } = &i.kind {
                if let Some(op) = dx_op.or_else(|| irlint::dxil::resources::call_opcode(m, *callee, args)) {
                    *counts.entry(op).or_insert(0) += 1;
                }
            }
        }
    }
    counts
}

fn arg_of(m: &Module, op: Option<Operand>) -> ll::Arg {
    match op {
        None => ll::Arg::Undef,
        Some(Operand::Imm(v)) => ll::Arg::Int(v),
        Some(Operand::Value(v)) => match m.const_int(v) {
            Some(x) => ll::Arg::Int(x),
            None if irlint::dxil::facts::is_undef(m, v) => ll::Arg::Undef,
            None => ll::Arg::Other,
        },
    }
}

/// The facts of a module as (opcode, [reported operands]) in the order the
/// `.ll` positions give them (formats.md §C.2–C.4).
fn reported(m: &Module) -> Vec<(u32, Vec<ll::Arg>)> {
    use irlint::dxil::dxop::linalg as la;
    let mut out = Vec::new();
    for fact in &m.facts {
        let f = &m.functions[fact.function];
        let InstKind::Call { dx_op: Some(op), .. } = f.insts[fact.inst].kind else { panic!("fact on a non-dx.op") };
        let a = |o: Option<Operand>| arg_of(m, o);
        let v = match &fact.kind {
            // Byte-address-buffer access facts (issue 26): tests/access_align.rs.
            FactKind::Access(_) => continue,
            FactKind::RawVector(r) => {
                vec![a(Some(r.index)), a(r.element_offset), r.alignment.map(ll::Arg::Int).unwrap_or(ll::Arg::Other)]
            }
            FactKind::Matrix(x) => match op {
                305 | 306 => {
                    let mut v =
                        vec![a(x.offset), a(x.element), a(x.rows), a(x.cols), a(x.layout), a(x.transpose), a(x.stride)];
                    if op == 306 {
                        v.push(a(x.bias_offset));
                    }
                    v
                }
                307 => vec![a(x.offset), a(x.element), a(x.layout), a(x.stride)],
                308 => vec![a(x.offset)],
                la::LOAD_FROM_DESCRIPTOR | la::STORE_TO_DESCRIPTOR | la::ACCUMULATE_TO_DESCRIPTOR => {
                    vec![a(x.offset), a(x.stride), a(x.layout), a(x.align), a(x.element), a(x.rows), a(x.cols)]
                }
                la::VECTOR_ACCUMULATE_TO_DESCRIPTOR => vec![a(x.offset), a(x.align)],
                _ => continue,
            },
            FactKind::Ptx(_) => continue,
        };
        out.push((op, v));
    }
    out
}

/// The same from the disassembly: operands at the documented positions.
fn expected(calls: &[ll::Call]) -> Vec<(u32, Vec<ll::Arg>)> {
    use irlint::dxil::dxop::linalg as la;
    let mut out = Vec::new();
    for c in calls {
        let g = |i: usize| c.args.get(i).cloned().unwrap_or(ll::Arg::Other);
        let v = match c.opcode {
            303 => vec![g(2), g(3), g(4)],
            304 => vec![g(2), g(3), g(5)],
            305 => vec![g(5), g(6), g(7), g(8), g(9), g(10), g(11)],
            306 => vec![g(5), g(6), g(7), g(8), g(9), g(10), g(11), g(13)],
            307 => vec![g(4), g(5), g(6), g(7)],
            308 => vec![g(3)],
            la::LOAD_FROM_DESCRIPTOR | la::STORE_TO_DESCRIPTOR | la::ACCUMULATE_TO_DESCRIPTOR => {
                let base = if c.opcode == la::LOAD_FROM_DESCRIPTOR { 2 } else { 3 };
                let mangling = c.callee.rsplit('.').next().unwrap();
                let t = irlint::dxil::linalg::parse_mangling(mangling).expect("matrix overload");
                let mut v = vec![g(base), g(base + 1), g(base + 2), g(base + 3)];
                v.extend([t.component, t.m, t.n].map(|x| ll::Arg::Int(u64::from(x))));
                v
            }
            la::VECTOR_ACCUMULATE_TO_DESCRIPTOR => vec![g(2), g(3)],
            _ => continue,
        };
        out.push((c.opcode, v));
    }
    out
}

/// Checks one lowered module against its disassembly; returns a description of
/// the first disagreement.
fn compare(m: &Module, text: &str) -> Result<(), String> {
    let calls = ll::calls(text);
    let mut want = std::collections::BTreeMap::new();
    for c in &calls {
        *want.entry(c.opcode).or_insert(0usize) += 1;
    }
    let got = opcode_counts(m);
    if got != want {
        return Err(format!("dx.op counts differ: got {got:?}, .ll has {want:?}"));
    }
    let (mut r, mut e) = (reported(m), expected(&calls));
    r.sort();
    e.sort();
    if r != e {
        return Err(format!("facts differ:\n got {r:?}\n .ll {e:?}"));
    }
    // Raw-vector shapes from the overload suffix.
    let mut shapes_ll: Vec<(u32, u32, bool)> = calls
        .iter()
        .filter(|c| c.opcode == 303 || c.opcode == 304)
        .filter_map(|c| c.callee.rsplit('.').next().and_then(irlint::dxil::dxop::parse_vector_overload))
        .collect();
    let mut shapes: Vec<(u32, u32, bool)> = m
        .facts
        .iter()
        .filter_map(|f| match &f.kind {
            FactKind::RawVector(r) => Some((r.count, r.component_bytes, r.float)),
            _ => None,
        })
        .collect();
    shapes_ll.sort();
    shapes.sort();
    if shapes != shapes_ll {
        return Err(format!("vector shapes differ: got {shapes:?}, .ll {shapes_ll:?}"));
    }
    // Resource records.
    let mut recs_ll = ll::resources(text);
    let mut recs: Vec<_> = m
        .resources
        .values()
        .filter_map(|r| match r.binding {
            Binding::Register { space, lower_bound, range } => {
                let class = match r.class {
                    ResourceClass::Srv => 0,
                    ResourceClass::Uav => 1,
                    ResourceClass::CBuffer => 2,
                    ResourceClass::Sampler => 3,
                };
                Some((class, r.id, space, lower_bound, range, r.kind.0, r.stride))
            }
            _ => None,
        })
        .collect();
    recs_ll.sort();
    recs.sort();
    if recs != recs_ll {
        return Err(format!("resources differ:\n got {recs:?}\n .ll {recs_ll:?}"));
    }
    // Every structured-buffer annotateHandle stride is a stride of some resource.
    let sb_strides: std::collections::BTreeSet<u32> =
        m.resources.values().filter(|r| r.kind == ResourceKind::STRUCTURED_BUFFER).filter_map(|r| r.stride).collect();
    for c in calls.iter().filter(|c| c.opcode == 216) {
        let props = c.raw_args.get(2).cloned().unwrap_or_default();
        let inner = props.split_once('{').map(|x| x.1.trim_end_matches('}')).unwrap_or("");
        let ints: Vec<u64> = ll::split_top(inner)
            .iter()
            .filter_map(|a| a.rsplit_once(' ').and_then(|(_, v)| v.parse::<i64>().ok()).map(|v| v as u64 & 0xFFFF_FFFF))
            .collect();
        if let [d0, d1] = ints[..] {
            if d0 & 0xFF == 12 && !sb_strides.contains(&(d1 as u32)) {
                return Err(format!("annotateHandle stride {d1} matches no structured buffer ({sb_strides:?})"));
            }
        }
    }
    Ok(())
}

#[test]
fn fixtures_agree_with_disassembly() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found");
        return;
    };
    let fx = shared.join("fixtures");
    let mut names: Vec<String> = std::fs::read_dir(fx.join("dis"))
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".ll")).map(String::from))
        .collect();
    names.sort();
    // Every fixture of our manifest with a disassembly has it here (the shared
    // set may grow: its size is not pinned).
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(common::fixtures().join("expected.json")).unwrap()).unwrap();
    for fx in manifest["fixtures"].as_array().unwrap() {
        if fx["artifacts"]["disassembly"].is_string() {
            let name = fx["name"].as_str().unwrap();
            assert!(names.iter().any(|n| n == name), "no disassembly for fixture {name}");
        }
    }
    let mut failures = Vec::new();
    for name in &names {
        let text = std::fs::read_to_string(fx.join("dis").join(format!("{name}.ll"))).unwrap();
        for file in [format!("{name}.dxil"), format!("{name}.g.dxil")] {
            let m = lower_file(&fx.join("dxil").join(&file));
            if let Err(e) = compare(&m, &text) {
                failures.push(format!("{file}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fixture_values() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found");
        return;
    };
    let fx = shared.join("fixtures/dxil");
    for suffix in ["dxil", "g.dxil"] {
        let m = lower_file(&fx.join(format!("sb_stride20_pos_uv.{suffix}")));
        let sb = m
            .resources
            .values()
            .find(|r| {
                r.kind == ResourceKind::STRUCTURED_BUFFER && r.stride == Some(20) && r.class == ResourceClass::Srv
            })
            .expect("SB stride 20");
        // The debug build locates the resource at its declaration (line 7) through
        // its DIGlobalVariable; the stripped one has no location.
        let loc = sb.span.loc.map(|l| &m.locs[l]);
        if suffix == "g.dxil" {
            let loc = loc.expect("resource location from debug info");
            assert_eq!(loc.line, 7);
            assert!(m.source_files[loc.file as usize].name.ends_with("sb_stride20_pos_uv.hlsl"));
            assert_eq!(sb.name.as_deref(), Some("Vertices"));
        } else {
            assert_eq!(loc, None);
        }

        let m = lower_file(&fx.join(format!("la_load_stride_mismatch.{suffix}")));
        assert_eq!(m.target.as_deref(), Some("cs_6_10"));
        assert_eq!(m.entry_points.len(), 1);
        assert_eq!(m.entry_points[0].name, "main");
        assert_eq!(m.entry_points[0].stage, "compute");
        let load = m
            .facts
            .iter()
            .find_map(|f| match &f.kind {
                FactKind::Matrix(x) if x.op == MatrixOpKind::Load => Some(x),
                _ => None,
            })
            .expect("LinAlg load fact");
        assert_eq!(load.encoding, MatrixEncoding::DxilLinAlg);
        assert_eq!(imm(&m, load.stride), Some(16));
        assert_eq!(imm(&m, load.layout), Some(0));
        assert_eq!((load.rows, load.cols), (Some(Operand::Imm(16)), Some(Operand::Imm(16))));
        assert_eq!(load.element, Some(Operand::Imm(8)));
        let res = &m.resources[load.resource.expect("resolved buffer")];
        assert_eq!((res.class, res.kind), (ResourceClass::Srv, ResourceKind::RAW_BUFFER));

        let m = lower_file(&fx.join(format!("lv_load_misaligned_const.{suffix}")));
        let ld = m
            .facts
            .iter()
            .find_map(|f| match &f.kind {
                FactKind::RawVector(r) if !r.store => Some(r),
                _ => None,
            })
            .expect("vector load");
        assert_eq!((ld.count, ld.component_bytes, ld.float), (8, 4, true));
        assert_eq!(imm(&m, Some(ld.index)), Some(12));
        assert_eq!(ld.element_offset, None);
        assert_eq!(ld.kind, Some(ResourceKind::RAW_BUFFER));
        let res = &m.resources[ld.resource.expect("resolved buffer")];
        assert_eq!(res.kind, ResourceKind::RAW_BUFFER);

        // Preview op: matVecMulAdd operands (pv_muladd_stride_mismatch.ll).
        let m = lower_file(&fx.join(format!("pv_muladd_stride_mismatch.{suffix}")));
        let mm = m
            .facts
            .iter()
            .find_map(|f| match &f.kind {
                FactKind::Matrix(x) if x.op == MatrixOpKind::MatVecMulAdd => Some(x),
                _ => None,
            })
            .expect("matVecMulAdd");
        assert_eq!(mm.encoding, MatrixEncoding::DxilPreview);
        assert_eq!(mm.layout_numbering, LayoutNumbering::DxilPreview);
        assert_eq!(
            [mm.rows, mm.cols, mm.element, mm.layout, mm.stride, mm.offset, mm.bias_offset].map(|o| imm(&m, o)),
            [Some(32), Some(16), Some(8), Some(0), Some(64), Some(0), Some(4096)]
        );
    }
}

#[test]
fn corpus_lowers_and_agrees_with_disassembly() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found");
        return;
    };
    let dir = shared.join("corpus/dxil/vkd3d-proton");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    assert_eq!(files.len(), 334);
    let mut failures = Vec::new();
    for p in &files {
        let m = lower_file(p);
        let ll = shared.join("corpus-dis/vkd3d-proton").join(p.with_extension("ll").file_name().unwrap());
        if let Ok(text) = std::fs::read_to_string(&ll) {
            if let Err(e) = compare(&m, &text) {
                failures.push(format!("{}: {e}", p.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), files.len(), failures.join("\n"));
}

/// The `.ll` reader used above, on known disassembly.
#[test]
fn ll_reader_reads_disassembly() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found");
        return;
    };
    let text = std::fs::read_to_string(shared.join("fixtures/dis/sb_stride_mixed.ll")).unwrap();
    let recs = ll::resources(&text);
    assert_eq!(
        recs,
        vec![
            (0, 0, 0, 0, 1, 12, Some(24)),
            (0, 1, 0, 1, 1, 12, Some(36)),
            (0, 2, 0, 2, 1, 12, Some(16)),
            (1, 0, 0, 0, 1, 12, Some(16)),
        ]
    );
    let calls = ll::calls(&text);
    assert_eq!(calls.iter().filter(|c| c.opcode == 57).count(), 4);
    assert_eq!(calls.iter().filter(|c| c.opcode == 68).count(), 3);
    assert_eq!(calls.len(), 4 + 1 + 3 + 1);

    let text = std::fs::read_to_string(shared.join("fixtures/dis/pv_muladd_stride_mismatch.ll")).unwrap();
    let e = expected(&ll::calls(&text));
    let i = |v: u64| ll::Arg::Int(v);
    assert!(e.contains(&(306, vec![i(0), i(8), i(32), i(16), i(0), i(0), i(64), i(4096)])), "{e:?}");
    assert!(e.contains(&(303, vec![ll::Arg::Other, ll::Arg::Undef, i(2)])), "{e:?}");

    let text = std::fs::read_to_string(shared.join("fixtures/dis/la_load_stride_mismatch.ll")).unwrap();
    let e = expected(&ll::calls(&text));
    assert!(e.contains(&(0x8000_000E, vec![i(0), i(16), i(0), i(128), i(8), i(16), i(16)])), "{e:?}");
}

/// Library: resource global → load → createHandleForLib, a phi of two such
/// handles, and a ShaderKind property on the entry.
#[test]
fn library_handles_phi_and_entry_stage() {
    let mut b = B::new();
    let h = b.handle_ty();
    let (i32t, i1t) = (b.i(32), b.i(1));
    let f32t = b.ty(Type::Float { bits: 32 });
    let v6 = b.ty(Type::Vector { elem: f32t, count: 6 });
    let void = b.ty(Type::Void);
    let hp = b.ty(Type::Pointer { pointee: h, space: 0 });
    let g = b.m.globals.append(Global {
        name: Some("g_Buf".into()),
        ty: hp,
        value_ty: h,
        space: 0,
        init: None,
        is_const: true,
        span: Span::at(1234),
    });
    // UAV record (11 fields) naming the global through a bitcast.
    let cast = Value::Const(b.m.constants.append(Constant {
        ty: hp,
        kind: ConstKind::Expr(Box::new(ConstExpr::Cast(CastOp::Bitcast, Value::Global(g)))),
        spec_id: None,
    }));
    let ops = [b.mi(32, 0), b.mv(hp, cast), b.ms("g_Buf"), b.mi(32, 2), b.mi(32, 5), b.mi(32, 1), b.mi(32, 12)];
    let mut ops: Vec<Option<u32>> = ops.into_iter().map(Some).collect();
    for _ in 0..3 {
        ops.push(Some(b.mi(1, 0)));
    }
    let (t, v) = (b.mi(32, 1), b.mi(32, 24));
    ops.push(Some(b.node(vec![Some(t), Some(v)])));
    let rec = b.node(ops);
    let list = b.node(vec![Some(rec)]);
    let top = b.node(vec![None, Some(list), None, None]);
    b.named("dx.resources", vec![top]);

    let forlib = b.declare("dx.op.createHandleForLib.dx.types.Handle", h, vec![i32t, h]);
    let store = b.declare("dx.op.rawBufferVectorStore.v6f32", void, vec![i32t, h, i32t, i32t, v6, i32t]);
    let mut f = b.body("raygen");
    let entry = f.block;
    let other = f.f.blocks.append(Block::default());
    let join = f.f.blocks.append(Block::default());
    let l1 = f.push(h, InstKind::Load { ptr: Value::Global(g) });
    let h1 = f.call(h, forlib, 160, &mut b, vec![l1]);
    let c = b.cint(1, 1);
    f.push(void, InstKind::CondBr { cond: c, if_true: other, if_false: join });
    f.block = other;
    let l2 = f.push(h, InstKind::Load { ptr: Value::Global(g) });
    let h2 = f.call(h, forlib, 160, &mut b, vec![l2]);
    f.push(void, InstKind::Br { target: join });
    f.block = join;
    let phi = f.push(h, InstKind::Phi { incoming: vec![(h1, entry), (h2, other)] });
    let vu = b.cundef(v6);
    let (i3, o4, a4) = (b.cint(32, 3), b.cint(32, 4), b.cint(32, 4));
    f.call(void, store, 304, &mut b, vec![phi, i3, o4, vu, a4]);
    let _ = i1t;
    let func = b.finish(f);

    let fnty = b.ty(Type::Function { ret: void, params: vec![] });
    let fp = b.ty(Type::Pointer { pointee: fnty, space: 0 });
    let fv = b.mv(fp, Value::Function(func));
    let name = b.ms("raygen");
    let (k, rg) = (b.mi(32, 8), b.mi(32, 7));
    let props = b.node(vec![Some(k), Some(rg)]);
    let empty = b.ms("");
    let lib_entry = b.node(vec![None, Some(empty), None, Some(top), None]);
    let ep = b.node(vec![Some(fv), Some(name), None, None, Some(props)]);
    b.named("dx.entryPoints", vec![lib_entry, ep]);
    let lib = b.ms("lib");
    let (six, three) = (b.mi(32, 6), b.mi(32, 3));
    let sm = b.node(vec![Some(lib), Some(six), Some(three)]);
    b.named("dx.shaderModel", vec![sm]);

    let m = lower_llvm(b.build(), None);
    assert_eq!(m.target.as_deref(), Some("lib_6_3"));
    assert_eq!(m.entry_points.len(), 1);
    assert_eq!(m.entry_points[0].stage, "raygeneration");
    assert_eq!(m.resources.len(), 1);
    let r = &m.resources[ResourceH::from_index(0).unwrap()];
    assert_eq!(
        (r.class, r.kind, r.stride, r.span.offset),
        (ResourceClass::Uav, ResourceKind::STRUCTURED_BUFFER, Some(24), 1234)
    );
    assert_eq!(irlint::dxil::resources::binding_text(r.class, &r.binding), "u5 space2");
    let FactKind::RawVector(st) = &m.facts[0].kind else { panic!() };
    assert_eq!(st.resource, ResourceH::from_index(0));
    assert_eq!(st.kind, Some(ResourceKind::STRUCTURED_BUFFER));
    assert_eq!((st.count, st.component_bytes, st.float), (6, 4, true));
    assert_eq!(imm(&m, st.element_offset), Some(4));
    irlint::ir::verify::verify(&m).unwrap();
}

/// Damaged bitcode never panics the lowering (errors or a module, nothing else).
#[test]
fn damaged_fixtures_never_panic() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found");
        return;
    };
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut lowered = 0;
    for name in [
        "la_load_branch_stride.dxil",
        "pv_mul_stride_ok.dxil",
        "sb_stride_mixed.dxil",
        "lv_load_loop_misaligned.g.dxil",
    ] {
        let orig = std::fs::read(shared.join("fixtures/dxil").join(name)).unwrap();
        let c = irlint::read::dxbc::parse(&orig, 0).unwrap();
        let part = c.part(irlint::read::dxbc::FourCc::DXIL).unwrap();
        let (start, len) = (part.offset as usize + 24, part.data.len() - 24);
        for _ in 0..150 {
            let mut bytes = orig.clone();
            for _ in 0..1 + next() % 4 {
                let at = start + (next() as usize) % len;
                bytes[at] ^= 1 << (next() % 8);
            }
            let r = std::panic::catch_unwind(|| {
                let c = irlint::read::dxbc::parse(&bytes, 0).unwrap();
                let c = irlint::read::dxbc::Container {
                    parts: c.parts.into_iter().filter(|p| p.fourcc != irlint::read::dxbc::FourCc::ILDB).collect(),
                    ..c
                };
                irlint::dxil::lower_container(&c).map(|m| m.facts.len())
            });
            match r {
                Ok(Ok(_)) => lowered += 1,
                Ok(Err(_)) => {}
                Err(_) => panic!("{name}: lowering panicked on damaged input"),
            }
        }
    }
    eprintln!("{lowered} of 600 damaged modules still lowered");
}
