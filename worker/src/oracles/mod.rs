//! Engines (what runs programs) apart from the judging of their results (`crate::compare`),
//! in the style of wasmtime's crates/fuzzing: `engine` is the trait and `open`, each
//! `diff_*` module one engine, `open` names them all. The judge (`crate::compare`) sits above
//! the engines and `crate::smoke` above both; nothing here imports either.

pub mod columns;
pub mod diff_cuda;
pub mod diff_exec;
pub mod diff_host;
pub mod diff_interp;
pub mod diff_replay;
pub mod engine;
pub mod exec_protocol;
pub mod host_fpu;
pub mod open;
pub mod stages;

pub use engine::{Engine, EngineFault, EngineInfo, EngineOptions, EngineSpec, Exec, Job, Output, PerJob, SweepChunk};
pub use open::{default_target, open, open_spec};
pub use stages::{Stage, StageTimes};
