//! A tiny IR builder for hand-made test modules.
#![allow(dead_code)]

use irlint::ir::*;

pub struct B {
    pub m: Module,
    pub f: FuncH,
    pub cur: BlockH,
    pub i32t: TypeH,
    pub i1t: TypeH,
    pub i64t: TypeH,
    pub f32t: TypeH,
    pub void: TypeH,
    pub ptr_i32: TypeH,
}

impl B {
    /// A module with one function `main(i32 %arg0)` and an entry block.
    pub fn new(source: SourceKind) -> B {
        let mut m = Module::new(source);
        let void = m.types.append(Type::Void);
        let i32t = m.types.append(Type::Int { bits: 32 });
        let i1t = m.types.append(Type::Int { bits: 1 });
        let i64t = m.types.append(Type::Int { bits: 64 });
        let f32t = m.types.append(Type::Float { bits: 32 });
        let ptr_i32 = m.types.append(Type::Pointer { pointee: i32t, space: 0 });
        let mut func = Function { name: "main".into(), params: vec![i32t], ret: Some(void), ..Default::default() };
        let cur = func.blocks.append(Block::default());
        let f = m.functions.append(func);
        m.entry_points.push(EntryPoint { name: "main".into(), function: Some(f), stage: "compute".into() });
        B { m, f, cur, i32t, i1t, i64t, f32t, void, ptr_i32 }
    }

    pub fn ty(&mut self, t: Type) -> TypeH {
        self.m.types.append(t)
    }

    pub fn konst(&mut self, ty: TypeH, kind: ConstKind) -> Value {
        Value::Const(self.m.constants.append(Constant { ty, kind, spec_id: None }))
    }

    pub fn c32(&mut self, v: u64) -> Value {
        let t = self.i32t;
        self.konst(t, ConstKind::Int(v & 0xFFFF_FFFF))
    }

    pub fn spec32(&mut self, id: u32, default: u64, name: &str) -> Value {
        let t = self.i32t;
        let c = self.m.constants.append(Constant { ty: t, kind: ConstKind::Int(default), spec_id: Some(id) });
        if !name.is_empty() {
            self.m.spec_names.push((id, name.to_string()));
        }
        Value::Const(c)
    }

    pub fn expr32(&mut self, e: ConstExpr) -> Value {
        let t = self.i32t;
        self.konst(t, ConstKind::Expr(Box::new(e)))
    }

    pub fn func(&mut self) -> &mut Function {
        self.m.functions.get_mut(self.f)
    }

    pub fn inst(&mut self, ty: TypeH, kind: InstKind) -> Value {
        let cur = self.cur;
        let f = self.func();
        let h = f.insts.append(Inst { ty, kind, span: Span::at(0) });
        f.blocks.get_mut(cur).insts.push(h);
        Value::Inst(h)
    }

    pub fn handle(v: Value) -> InstH {
        match v {
            Value::Inst(h) => h,
            _ => panic!("not an instruction"),
        }
    }

    pub fn bin(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let t = self.i32t;
        self.inst(t, InstKind::Binary { op, lhs: a, rhs: b })
    }

    pub fn new_block(&mut self) -> BlockH {
        self.func().blocks.append(Block::default())
    }

    pub fn br(&mut self, target: BlockH) {
        let v = self.void;
        self.inst(v, InstKind::Br { target });
    }

    pub fn cond_br(&mut self, cond: Value, if_true: BlockH, if_false: BlockH) {
        let v = self.void;
        self.inst(v, InstKind::CondBr { cond, if_true, if_false });
    }

    pub fn ret(&mut self) {
        let v = self.void;
        self.inst(v, InstKind::Ret { value: None });
    }

    /// An unknown i32 (the function argument).
    pub fn unknown(&self) -> Value {
        Value::Arg(0)
    }

    pub fn resource(
        &mut self,
        class: ResourceClass,
        kind: ResourceKind,
        name: &str,
        reg: u32,
        stride: Option<u32>,
    ) -> ResourceH {
        self.m.resources.append(Resource {
            class,
            kind,
            name: if name.is_empty() { None } else { Some(name.to_string()) },
            binding: Binding::Register { space: 0, lower_bound: reg, range: 1 },
            stride,
            id: reg,
            span: Span::at(0),
        })
    }

    /// A placeholder call instruction that a fact points at.
    pub fn op_call(&mut self, args: Vec<Value>) -> InstH {
        let t = self.void;
        let callee = Value::Function(self.f);
        Self::handle(self.inst(t, InstKind::Call { callee, args, dx_op: None }))
    }

    pub fn fact(&mut self, inst: InstH, kind: FactKind) {
        let f = self.f;
        self.m.facts.push(Fact { function: f, inst, kind });
    }

    pub fn raw_vector(
        &mut self,
        store: bool,
        res: ResourceH,
        index: Value,
        count: u32,
        bytes: u32,
        float: bool,
    ) -> InstH {
        let inst = self.op_call(vec![index]);
        self.fact(
            inst,
            FactKind::RawVector(RawVectorAccess {
                store,
                resource: Some(res),
                kind: None,
                index: Operand::Value(index),
                element_offset: None,
                count,
                component_bytes: bytes,
                float,
                alignment: Some(u64::from(bytes)),
            }),
        );
        inst
    }
}

/// A matrix fact with everything unset.
pub fn matrix(op: MatrixOpKind, encoding: MatrixEncoding, opcode: u32) -> MatrixMemOp {
    MatrixMemOp::new(op, encoding, opcode)
}
