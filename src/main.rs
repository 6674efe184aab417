//! The `tmbot` engine binary.

fn main() {
    println!("tmbot {}", env!("CARGO_PKG_VERSION"));
}
