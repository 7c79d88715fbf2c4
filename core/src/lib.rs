//! `hpa-core`: the Kubernetes HorizontalPodAutoscaler, as kube-apiserver and the HPA
//! controller see it.
//!
//! It owns the API model of every HPA version ([`api`]), validation exactly as kube-apiserver
//! performs it ([`validation`]), defaulting ([`defaults`]), conversion between versions
//! ([`convert`]) and the request pipeline that ties them together ([`admission`]).
//!
//! It deliberately does no IO, no logging and no async, reads no clock and knows nothing of
//! YAML, HTTP or terminals: callers pass values in and get values out. Time, where needed,
//! is an argument.
#![warn(missing_docs)]

// `#[derive(Decode)]` names this crate `::hpa_core`, inside it as well as outside.
extern crate self as hpa_core;

pub mod admission;
pub mod api;
pub mod check;
pub mod convert;
pub mod defaults;
pub mod effective;
pub mod evaluator;
pub mod features;
pub mod field;
pub mod go;
pub mod resources;
pub mod rules;
pub mod validation;

#[cfg(test)]
mod test_support;
