//! Engines (what runs programs) apart from the judging of their results (`crate::compare`),
//! in the style of wasmtime's crates/fuzzing: `engine` is the trait and `open`, each
//! `diff_*` module one engine.

pub mod columns;
pub mod diff_cuda;
pub mod diff_exec;
pub mod diff_host;
pub mod diff_interp;
pub mod engine;
pub mod exec_protocol;
pub mod host_fpu;
pub mod smoke;

pub use engine::{open, open_spec, Engine, EngineFault, EngineInfo, EngineOptions, EngineSpec, Job, Output};
