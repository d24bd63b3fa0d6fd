//! Opening an engine by its spec (`interp`, `host`, `cuda:N`, `exec:COMMAND`, `replay:PATH`) and the default
//! target. Apart from `engine` (the trait and its types) so that the engines, which use those
//! types, and this module, which names every engine, do not import each other.

use super::engine::{Engine, EngineFault, EngineOptions, EngineSpec};

/// Open the engine `spec` names (see [`EngineSpec`]).
pub fn open(spec: &str, opts: &EngineOptions) -> Result<Box<dyn Engine>, EngineFault> {
    open_spec(&spec.parse()?, opts)
}

/// Open a parsed spec.
pub fn open_spec(spec: &EngineSpec, opts: &EngineOptions) -> Result<Box<dyn Engine>, EngineFault> {
    Ok(match spec {
        EngineSpec::Interp => Box::new(super::diff_interp::InterpEngine::new()),
        EngineSpec::Host => Box::new(super::diff_host::HostEngine::new()?),
        EngineSpec::Cuda { gpu } => Box::new(super::diff_cuda::CudaEngine::new(*gpu, opts)?),
        EngineSpec::Exec { command } => Box::new(super::diff_exec::ExecEngine::new(command, opts)?),
        EngineSpec::Replay { path } => Box::new(super::diff_replay::ReplayEngine::open(path, opts.sm)?),
    })
}

/// The target to test when none is given: the first GPU if a driver and a device are there,
/// else the host FPU (real hardware that every machine has).
pub fn default_target() -> EngineSpec {
    if super::diff_cuda::device_count().unwrap_or(0) > 0 {
        EngineSpec::Cuda { gpu: 0 }
    } else {
        EngineSpec::Host
    }
}
