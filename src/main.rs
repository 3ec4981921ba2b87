//! The `irlint` command line (stub).
fn main() {
    println!("irlint {}", irlint::VERSION);
}
