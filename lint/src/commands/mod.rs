//! The subcommands, one module each: each reads its input, takes every HPA through hpa-core's
//! front door (`hpa::check`, or the linter for `lint`) and renders the result. They depend on
//! `cli` for their arguments; `cli` depends on none of them.

pub mod convert;
pub mod default;
pub mod explain;
pub mod lint;
pub mod rules;
pub mod simulate;
pub mod validate;
