//! Serde helpers that give Go's `encoding/json` output (`omitempty`) to our types.

/// Go's `omitempty` for integers.
pub fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

/// Go's `omitempty` for integers.
pub fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}
