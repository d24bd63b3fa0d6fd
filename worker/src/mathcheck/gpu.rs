//! math-check's GPU side: NVRTC, one module, launches over batches (cudarc's safe driver API),
//! and the pre-filtered exhaustive kernel's launches (`kernel::filtered_kernel_source`).
//! NOT RUN in this project's CI (no GPU there): compiled only; scripts/gpu-check runs it. The
//! pre-filtered path ran on an H200: `expf --exhaustive` in 1.3 s, 0 of 4,194,304 audited
//! decisions failed (docs/hardware/nvidia-h200-2026-11-29/).

use std::sync::Arc;

use anyhow::{anyhow, bail, Result};
use mathlib::{Cc, Flags};

use super::prefilter::{Tallies, BINS};

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions};

pub struct Gpu {
    pub name: String,
    pub cc: Cc,
    _ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    f: CudaFunction,
    /// `check_filtered`, when the module has it.
    filtered: Option<CudaFunction>,
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
    /// Open GPU `ordinal` and compile `source(its compute capability)`, which defines `check`
    /// and, when `filtered`, `check_filtered`.
    pub fn open(ordinal: u32, flags: &Flags, source: impl FnOnce(Cc) -> String, filtered: bool) -> Result<Gpu> {
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
            let ptx = compile_ptx_with_opts(source(cc), opts).map_err(|e| anyhow!("NVRTC: {e}"))?;
            let module = ctx.load_module(ptx).map_err(|e| anyhow!("loading the module: {e}"))?;
            let f = module.load_function("check").map_err(|e| anyhow!("{e}"))?;
            let filtered = if filtered { Some(module.load_function("check_filtered").map_err(|e| anyhow!("{e}"))?) } else { None };
            let stream = ctx.default_stream();
            Ok(Gpu { name: format!("{name} (sm_{}{})", cc.major, cc.minor), cc, _ctx: ctx, stream, f, filtered })
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

    /// Run `check_filtered` over inputs `start .. start + n` (f32 bits) with the filter's
    /// `rel` and `bound`: the GPU's bins and what it kept.
    pub fn run_filtered(&mut self, start: u64, n: u64, rel: f64, bound: u32) -> Result<Tallies> {
        let f = self.filtered.as_ref().ok_or_else(|| anyhow!("the module has no check_filtered kernel"))?;
        guarded(|| {
            let s = &self.stream;
            let err = |e: cudarc::driver::DriverError| anyhow!("{e}");
            // Each input is kept at most once: 3 words each.
            let mut kept = s.alloc_zeros::<u32>(3 * n as usize).map_err(err)?;
            let mut nkept = s.alloc_zeros::<u64>(1).map_err(err)?;
            let mut bins = s.alloc_zeros::<u64>(BINS).map_err(err)?;
            let mut bin_input = s.alloc_zeros::<u32>(BINS).map_err(err)?;
            // Enough blocks to fill any GPU; each thread then strides over the range.
            let blocks = n.div_ceil(256).min(1 << 16) as u32;
            let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
            let mut b = s.launch_builder(f);
            b.arg(&start).arg(&n).arg(&mut kept).arg(&mut nkept).arg(&mut bins).arg(&mut bin_input).arg(&rel).arg(&bound);
            // SAFETY: the kernel reads no memory of ours, writes at most 3n words of `kept`
            // (one record per input, indices from `nkept`), and BINS entries of the bins.
            unsafe { b.launch(cfg) }.map_err(|e| anyhow!("launch: {e}"))?;
            let count = s.clone_dtoh(&nkept).map_err(err)?[0] as usize;
            let words = if count > 0 { s.clone_dtoh(&kept.slice(0..3 * count)).map_err(err)? } else { Vec::new() };
            let mut t = Tallies::new();
            t.bins.copy_from_slice(&s.clone_dtoh(&bins).map_err(err)?);
            t.bin_input.copy_from_slice(&s.clone_dtoh(&bin_input).map_err(err)?);
            t.kept = words.chunks_exact(3).map(|w| [w[0], w[1], w[2]]).collect();
            Ok(t)
        })
    }
}
