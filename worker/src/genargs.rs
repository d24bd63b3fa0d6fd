//! Command-line knobs of the program generator (`ptx::gen::GenConfig`), shared by `gen` and campaigns.

use anyhow::{bail, Context, Result};
use clap::Args;
use ptx::gen::GenConfig;
use ptx::isa::{Arch, PtxVersion};

/// Generator options; each default is `GenConfig::default()`'s (documented there).
#[derive(Args, Debug, Clone, Default)]
pub struct GenArgs {
    /// Read the whole generator config from a JSON file (GenConfig's serde form); the flags
    /// below override its fields.
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
    /// Target architecture: 90 for sm_90 (75 to 121); 100a or 100f for the architecture-specific
    /// sm_100a/sm_100f, which add the f6/ue8m0 conversions (kernels then load on that GPU
    /// (family) only).
    #[arg(long)]
    pub sm: Option<Arch>,
    /// PTX ISA version of the module, e.g. 8.7 (default: the config's).
    #[arg(long)]
    pub ptx: Option<String>,
    /// Opcodes to draw from, comma-separated (e.g. add,fma,min; cvt: the conversions (float-float, float-integer, tf32, fp8); setp, set, selp: float comparisons and selection (selp also between integers a cvt or set wrote), a setp defining the predicate selp and .and/.or/.xor read); default all.
    #[arg(long, value_delimiter = ',')]
    pub families: Vec<String>,
    /// Instruction types to draw from, comma-separated (e.g. f32,f16x2); default all.
    #[arg(long, value_delimiter = ',')]
    pub types: Vec<String>,
    /// Fewest instructions in a multi-instruction program.
    #[arg(long)]
    pub min_len: Option<usize>,
    /// Most instructions in a program.
    #[arg(long)]
    pub max_len: Option<usize>,
    /// Share of single-instruction programs (0..1).
    #[arg(long)]
    pub single_share: Option<f64>,
    /// Share of instructions given `.ftz` where the form has it (0..1).
    #[arg(long)]
    pub ftz_share: Option<f64>,
    /// Share of instructions given `.sat`/`.relu` where the form has it (0..1).
    #[arg(long)]
    pub sat_share: Option<f64>,
    /// Share of special operand values (zeros, subnormals, NaNs, halfway points...) (0..1).
    /// A campaign's program of one input gets each special it draws once, the rest ordinary
    /// values: a repeated case would test nothing.
    #[arg(long)]
    pub special_share: Option<f64>,
    /// Also emit unrounded mul+add pairs that ptxas may contract into fma.
    #[arg(long)]
    pub contraction: bool,
    /// Also emit approximate forms (.approx, .full, sin, cos, lg2, ex2, tanh, rsqrt).
    #[arg(long)]
    pub approximate: bool,
    /// Leave out forms ptxas accepts but the PTX ISA does not document (fma.rz.bf16, ...).
    #[arg(long)]
    pub documented_only: bool,
}

impl GenArgs {
    pub fn to_config(&self) -> Result<GenConfig> {
        self.to_config_over(GenConfig::default())
    }

    /// The flags applied over `base`, or over the `--config` file where one is given.
    pub fn to_config_over(&self, base: GenConfig) -> Result<GenConfig> {
        let mut cfg = match &self.config {
            Some(path) => {
                let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
                serde_json::from_str(&text).with_context(|| format!("{} is not a generator config", path.display()))?
            }
            None => base,
        };
        if let Some(arch) = self.sm {
            (cfg.sm, cfg.variant) = (arch.sm, arch.variant);
            // A module must be at least the PTX version that knows the target.
            match ptx::kernel::min_ptx_for_arch(arch) {
                Ok(v) => cfg.ptx = cfg.ptx.max(v),
                Err(e @ ptx::kernel::KernelError::UnknownVariant(_)) => bail!("{e}"),
                Err(_) => bail!("{arch} is not a target ptxas 13.5 knows; use one of 75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121 (with a or f: 100a)"),
            }
        }
        if let Some(v) = &self.ptx {
            cfg.ptx = parse_ptx(v)?;
        }
        if !self.families.is_empty() {
            cfg.opcodes = self
                .families
                .iter()
                .map(|f| worker::cli_values::family(f).map_err(anyhow::Error::msg))
                .collect::<Result<_>>()?;
        }
        if !self.types.is_empty() {
            cfg.types = self
                .types
                .iter()
                .map(|t| worker::cli_values::register_type(t).map_err(anyhow::Error::msg))
                .collect::<Result<_>>()?;
        }
        macro_rules! set {
            ($($f:ident),*) => { $( if let Some(v) = self.$f { cfg.$f = v; } )* };
        }
        set!(min_len, max_len, single_share, ftz_share, sat_share, special_share);
        cfg.contraction |= self.contraction;
        cfg.approximate |= self.approximate;
        if self.documented_only {
            cfg.undocumented = false;
        }
        Ok(cfg)
    }
}

fn parse_ptx(v: &str) -> Result<PtxVersion> {
    let (a, b) = v.split_once('.').with_context(|| format!("PTX version '{v}' must look like 8.7"))?;
    Ok(PtxVersion::new(a.parse().context("PTX major version")?, b.parse().context("PTX minor version")?))
}
