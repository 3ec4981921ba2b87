//! Operand signatures of the core SPIR-V instructions.
//!
//! Legend, one byte per logical operand: `T` result type, `R` result id, `i` id,
//! `j` optional id, `k` ids to the end, `l` one literal or enum word, `m` optional
//! literal/enum word, `n` literal words to the end, `s` string, `t` optional string,
//! `c` context-dependent literal number (rest of the instruction), `I` image operands
//! (mask, then ids), `M` memory access (mask, then its parameters), `p` (literal, id)
//! pairs, `q` (id, literal) pairs, `r` (id, id) pairs, `?` an operand with parameters
//! this reader does not decode (decoding stops there).

#[path = "grammar_table.rs"]
mod table;

/// The signature of a core opcode, or `None` for an opcode the grammar does not know.
pub fn signature(opcode: u32) -> Option<&'static [u8]> {
    table::entry(opcode).map(|e| e.0)
}

/// The name of a core opcode (`OpIAdd`), without the `Op` prefix.
pub fn name(opcode: u32) -> Option<&'static str> {
    table::entry(opcode).map(|e| e.1)
}
