//! Builders for hostile inputs: a SPIR-V word assembler and an LLVM bitstream
//! writer (LSB-first bit packing, blocks with back-patched lengths,
//! abbreviation definitions), and a DXBC container around bitcode. Nothing is
//! validated: the point is to write what a compiler never would.
#![allow(dead_code)]

pub const SPIRV_MAGIC: u32 = 0x0723_0203;

pub mod op {
    pub const CAPABILITY: u32 = 17;
    pub const MEMORY_MODEL: u32 = 14;
    pub const TYPE_VOID: u32 = 19;
    pub const TYPE_INT: u32 = 21;
    pub const TYPE_FLOAT: u32 = 22;
    pub const TYPE_VECTOR: u32 = 23;
    pub const TYPE_ARRAY: u32 = 28;
    pub const TYPE_RUNTIME_ARRAY: u32 = 29;
    pub const TYPE_STRUCT: u32 = 30;
    pub const TYPE_POINTER: u32 = 32;
    pub const TYPE_FUNCTION: u32 = 33;
    pub const TYPE_FORWARD_POINTER: u32 = 39;
    pub const CONSTANT: u32 = 43;
    pub const CONSTANT_COMPOSITE: u32 = 44;
    pub const CONSTANT_NULL: u32 = 46;
    pub const FUNCTION: u32 = 54;
    pub const FUNCTION_PARAMETER: u32 = 55;
    pub const FUNCTION_END: u32 = 56;
    pub const VARIABLE: u32 = 59;
    pub const COMPOSITE_EXTRACT: u32 = 81;
    pub const UCONVERT: u32 = 113;
    pub const FCONVERT: u32 = 115;
    pub const LABEL: u32 = 248;
    pub const RETURN: u32 = 253;
    pub const COOP_VEC_LOAD_NV: u32 = 5302;
}

pub const CAP_SHADER: u32 = 1;
pub const CAP_ADDRESSES: u32 = 4;
pub const CAP_PHYSICAL_STORAGE_BUFFER: u32 = 5347;
pub const CAP_COOP_VEC_NV: u32 = 5394;

/// A tiny SPIR-V assembler: ids are handed out in order.
pub struct Spv {
    pub words: Vec<u32>,
    next: u32,
}

impl Default for Spv {
    fn default() -> Self {
        Self::new()
    }
}

impl Spv {
    pub fn new() -> Self {
        Spv { words: Vec::new(), next: 1 }
    }

    pub fn id(&mut self) -> u32 {
        let i = self.next;
        self.next += 1;
        i
    }

    pub fn op(&mut self, opcode: u32, operands: &[u32]) {
        self.words.push(((operands.len() as u32 + 1) << 16) | opcode);
        self.words.extend_from_slice(operands);
    }

    pub fn preamble(&mut self, caps: &[u32]) {
        for &c in caps {
            self.op(op::CAPABILITY, &[c]);
        }
        self.op(op::MEMORY_MODEL, &[0, 1]);
    }

    /// `void f(params) { body; return; }`; types and constants come first.
    pub fn function(&mut self, params: &[u32], body: impl FnOnce(&mut Spv, &[u32])) {
        let void = self.id();
        self.op(op::TYPE_VOID, &[void]);
        let fty = self.id();
        let mut ops = vec![fty, void];
        ops.extend_from_slice(params);
        self.op(op::TYPE_FUNCTION, &ops);
        let f = self.id();
        self.op(op::FUNCTION, &[void, f, 0, fty]);
        let mut pids = Vec::new();
        for &p in params {
            let pid = self.id();
            self.op(op::FUNCTION_PARAMETER, &[p, pid]);
            pids.push(pid);
        }
        let l = self.id();
        self.op(op::LABEL, &[l]);
        body(self, &pids);
        self.op(op::RETURN, &[]);
        self.op(op::FUNCTION_END, &[]);
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut w = vec![SPIRV_MAGIC, 0x0001_0300, 0, self.next, 0];
        w.extend_from_slice(&self.words);
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
}

/// One operand of an abbreviation definition.
#[derive(Clone, Copy)]
pub enum Ab {
    Lit(u64),
    Fixed(u32),
    Vbr(u32),
    Array,
    Char6,
}

/// LLVM bitstream writer.
pub struct BitWriter {
    pub buf: Vec<u8>,
    acc: u128,
    n: u32,
    stack: Vec<(usize, u32)>,
    pub width: u32,
}

impl Default for BitWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl BitWriter {
    pub fn new() -> Self {
        BitWriter { buf: Vec::new(), acc: 0, n: 0, stack: Vec::new(), width: 2 }
    }

    pub fn write(&mut self, v: u64, w: u32) {
        if w == 0 {
            return;
        }
        self.acc |= u128::from(v) << self.n;
        self.n += w;
        while self.n >= 8 {
            self.buf.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    pub fn vbr(&mut self, mut v: u64, w: u32) {
        let hi = 1u64 << (w - 1);
        while v >= hi {
            self.write((v & (hi - 1)) | hi, w);
            v >>= w - 1;
        }
        self.write(v, w);
    }

    pub fn bitpos(&self) -> u64 {
        self.buf.len() as u64 * 8 + u64::from(self.n)
    }

    pub fn align32(&mut self) {
        let pad = ((32 - self.bitpos() % 32) % 32) as u32;
        self.write(0, pad);
    }

    pub fn magic(&mut self) {
        for b in [0x42u64, 0x43, 0xC0, 0xDE] {
            self.write(b, 8);
        }
    }

    pub fn enter(&mut self, block_id: u64, width: u32) {
        self.write(1, self.width);
        self.vbr(block_id, 8);
        self.vbr(u64::from(width), 4);
        self.align32();
        self.stack.push((self.buf.len(), self.width));
        self.write(0, 32);
        self.width = width;
    }

    pub fn end(&mut self) {
        self.write(0, self.width);
        self.align32();
        let (off, outer) = self.stack.pop().expect("end without enter");
        let words = ((self.buf.len() - off - 4) / 4) as u32;
        self.buf[off..off + 4].copy_from_slice(&words.to_le_bytes());
        self.width = outer;
    }

    pub fn record(&mut self, code: u64, ops: &[u64]) {
        self.write(3, self.width);
        self.vbr(code, 6);
        self.vbr(ops.len() as u64, 6);
        for &o in ops {
            self.vbr(o, 6);
        }
    }

    pub fn define_abbrev(&mut self, ops: &[Ab]) {
        self.write(2, self.width);
        self.vbr(ops.len() as u64, 5);
        for o in ops {
            match *o {
                Ab::Lit(v) => {
                    self.write(1, 1);
                    self.vbr(v, 8);
                }
                Ab::Fixed(w) => {
                    self.write(0, 1);
                    self.write(1, 3);
                    self.vbr(u64::from(w), 5);
                }
                Ab::Vbr(w) => {
                    self.write(0, 1);
                    self.write(2, 3);
                    self.vbr(u64::from(w), 5);
                }
                Ab::Array => {
                    self.write(0, 1);
                    self.write(3, 3);
                }
                Ab::Char6 => {
                    self.write(0, 1);
                    self.write(4, 3);
                }
            }
        }
    }

    pub fn finish(mut self) -> Vec<u8> {
        assert!(self.stack.is_empty());
        self.align32();
        self.buf
    }
}

pub const BLOCKINFO: u64 = 0;
pub const MODULE_BLOCK: u64 = 8;
pub const METADATA_BLOCK: u64 = 15;

/// A DXBC container (unsigned digest) with one DXIL part around `bitcode`.
pub fn dxil_container(bitcode: &[u8]) -> Vec<u8> {
    let mut bc = bitcode.to_vec();
    bc.resize(bc.len().div_ceil(4) * 4, 0);
    let mut prog = Vec::new();
    prog.extend_from_slice(&((5u32 << 16) | (6 << 4)).to_le_bytes());
    prog.extend_from_slice(&((24 + bc.len() as u32) / 4).to_le_bytes());
    prog.extend_from_slice(b"DXIL");
    for x in [0x0100u32, 16, bc.len() as u32] {
        prog.extend_from_slice(&x.to_le_bytes());
    }
    prog.extend_from_slice(&bc);
    let mut part = b"DXIL".to_vec();
    part.extend_from_slice(&(prog.len() as u32).to_le_bytes());
    part.extend_from_slice(&prog);
    let header_len = 32 + 4;
    let total = (header_len + part.len()) as u32;
    let mut out = b"DXBC".to_vec();
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&total.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&(header_len as u32).to_le_bytes());
    out.extend_from_slice(&part);
    out
}
