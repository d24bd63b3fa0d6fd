//! math-check's GPU side: NVRTC, one module, launches over batches (cudarc's safe driver API).
//! NOT RUN in this project's CI (no GPU there): compiled only; scripts/gpu-check runs it.

use std::sync::Arc;

use anyhow::{anyhow, bail, Result};
use mathlib::{Cc, Flags};

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions};

pub struct Gpu {
    pub name: String,
    pub cc: Cc,
    _ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    f: CudaFunction,
}

/// NVRTC's `--gpu-architecture` for a compute capability.
fn arch(cc: Cc) -> Result<&'static str> {
    Ok(match (cc.major, cc.minor) {
        (7, 5) => "compute_75",
        (8, 0) => "compute_80",
        (8, 6) => "compute_86",
        (8, 7) => "compute_87",
        (8, 9) => "compute_89",
        (9, 0) => "compute_90",
        (10, 0) => "compute_100",
        (10, 3) => "compute_103",
        (11, 0) => "compute_110",
        (12, 0) => "compute_120",
        (12, 1) => "compute_121",
        _ => bail!("compute capability {cc} is not one math-check knows"),
    })
}

fn guarded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(anyhow!("the CUDA driver or NVRTC lacks a function cudarc needs (CUDA 12.8 or later required)")))
}

impl Gpu {
    pub fn open(ordinal: u32, src: &str, flags: &Flags) -> Result<Gpu> {
        guarded(|| {
            let ctx = CudaContext::new(ordinal as usize).map_err(|e| anyhow!("GPU {ordinal}: {e}"))?;
            let name = ctx.name().map_err(|e| anyhow!("{e}"))?;
            let (major, minor) = ctx.compute_capability().map_err(|e| anyhow!("{e}"))?;
            let cc = Cc::new(major as u8, minor as u8);
            let opts = CompileOptions {
                arch: Some(arch(cc)?),
                prec_div: Some(flags.prec_div),
                prec_sqrt: Some(flags.prec_sqrt),
                use_fast_math: Some(flags.fast_math),
                ..Default::default()
            };
            let ptx = compile_ptx_with_opts(src, opts).map_err(|e| anyhow!("NVRTC: {e}"))?;
            let module = ctx.load_module(ptx).map_err(|e| anyhow!("loading the module: {e}"))?;
            let f = module.load_function("check").map_err(|e| anyhow!("{e}"))?;
            let stream = ctx.default_stream();
            Ok(Gpu { name: format!("{name} (sm_{}{})", cc.major, cc.minor), cc, _ctx: ctx, stream, f })
        })
    }

    /// Run the kernel on `inputs` (K per case); M results per case.
    pub fn run(&mut self, inputs: &[u64], k: usize, m: usize) -> Result<Vec<u64>> {
        let n = inputs.len() / k;
        guarded(|| {
            let d_in = self.stream.clone_htod(inputs).map_err(|e| anyhow!("{e}"))?;
            let mut d_out = self.stream.alloc_zeros::<u64>(n * m).map_err(|e| anyhow!("{e}"))?;
            let count = n as u32;
            let mut b = self.stream.launch_builder(&self.f);
            b.arg(&d_in).arg(&mut d_out).arg(&count);
            // SAFETY: the kernel reads K and writes M slots per thread below `count`,
            // exactly the buffers' sizes.
            unsafe { b.launch(LaunchConfig::for_num_elems(count)) }.map_err(|e| anyhow!("launch: {e}"))?;
            self.stream.clone_dtoh(&d_out).map_err(|e| anyhow!("{e}"))
        })
    }
}
