//! The `irlint` binary: the command line lives in the library
//! ([`irlint::cli::main_with_args`]), which `python -m irlint` runs too.

use std::process::ExitCode;

fn main() -> ExitCode {
    let code = irlint::cli::main_with_args(std::env::args_os());
    ExitCode::from(u8::try_from(code).unwrap_or(2))
}
