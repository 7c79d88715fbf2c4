//! The `hpa-webhook` binary.

fn main() {}
