//! Prints the decoded IR of a DXIL container's program part (debugging aid):
//! `cargo run --example dxil_print FILE [ILDB]`.

use irlint::read::dxbc::{self, FourCc};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: dxil_print FILE [ILDB]");
    let cc = if args.next().is_some_and(|a| a == "ILDB") { FourCc::ILDB } else { FourCc::DXIL };
    let bytes = std::fs::read(&path).expect("read");
    let c = dxbc::parse(&bytes, 0).expect("container");
    let (_, bc, base) = dxbc::program(c.part(cc).expect("part")).expect("program");
    match irlint::dxil::llvm::decode(bc, base) {
        Ok(m) => print!("{}", irlint::ir::print::module(&m.module)),
        Err(e) => eprintln!("error: {e}"),
    }
}
