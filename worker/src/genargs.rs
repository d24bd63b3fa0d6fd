//! Command-line knobs of the program generator (`ptx::gen::GenConfig`), shared by `gen` and campaigns.

use anyhow::{bail, Context, Result};
use clap::Args;
use ptx::gen::GenConfig;
use ptx::isa::{Arch, PtxVersion};

/// The bound of `--min-len`/`--max-len`: the generator's (`ptx::gen::MAX_LEN`).
const MAX_LEN: u64 = ptx::gen::MAX_LEN as u64;
const MAX_LEN_WHY: &str = "the generator's longest program (register numbers stay far below 2^15)";

/// Generator options; each default is `GenConfig::default()`'s (documented there; the help
/// repeats it, checked by a test).
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
    /// The newest PTX ISA version a generated form may need, e.g. 8.7 (default: the config's);
    /// at least the version that knows --sm (7.8 for sm_90). Each module's `.version` is the
    /// lowest its programs and target need.
    #[arg(long)]
    pub ptx: Option<String>,
    /// Opcodes to draw from, comma-separated (e.g. add,fma,min; cvt: the conversions (float-float, float-integer, tf32, fp8); setp, set, selp: float comparisons and selection (selp also between integers a cvt or set wrote), a setp defining the predicate selp and .and/.or/.xor read); default all.
    #[arg(long, value_delimiter = ',')]
    pub families: Vec<String>,
    /// Instruction types to draw from, comma-separated (e.g. f32,f16x2); default all.
    #[arg(long, value_delimiter = ',')]
    pub types: Vec<String>,
    /// Fewest instructions in a multi-instruction program, 1 to 4096 [default: 2].
    #[arg(long, value_parser = worker::cli_values::count_in::<usize>(1, MAX_LEN, MAX_LEN_WHY))]
    pub min_len: Option<usize>,
    /// Most instructions in a program, 1 to 4096 [default: 8].
    #[arg(long, value_parser = worker::cli_values::count_in::<usize>(1, MAX_LEN, MAX_LEN_WHY))]
    pub max_len: Option<usize>,
    /// Share of single-instruction programs, 0 to 1 [default: 0.5].
    #[arg(long, value_parser = worker::cli_values::share)]
    pub single_share: Option<f64>,
    /// Share of instructions given `.ftz` where the form has it, 0 to 1 [default: 0.3].
    #[arg(long, value_parser = worker::cli_values::share)]
    pub ftz_share: Option<f64>,
    /// Share of instructions given `.sat`/`.relu` where the form has it, 0 to 1 [default: 0.2].
    #[arg(long, value_parser = worker::cli_values::share)]
    pub sat_share: Option<f64>,
    /// Share of special operand values (zeros, subnormals, NaNs, halfway points...), 0 to 1
    /// [default: 0.5]. A campaign's program of one input gets each special it draws once, the
    /// rest ordinary values: a repeated case would test nothing.
    #[arg(long, value_parser = worker::cli_values::share)]
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
                let text = worker::input_file::read_text(path, worker::input_file::JSON_CAP, "a generator config")?;
                serde_json::from_str(&text).with_context(|| format!("{} is not a generator config", path.display()))?
            }
            None => base,
        };
        if let Some(arch) = self.sm {
            (cfg.sm, cfg.variant) = (arch.sm, arch.variant);
            // A module must be at least the PTX version that knows the target (a config's
            // default is raised to it; an explicit --ptx is checked below). The emitter's
            // message, as `campaign --sm` gives it.
            let need = ptx::kernel::min_ptx_for_arch(arch).map_err(|e| anyhow::anyhow!("{e}"))?;
            cfg.ptx = cfg.ptx.max(need);
        }
        if let Some(v) = &self.ptx {
            cfg.ptx = parse_ptx(v)?;
            // Below the target's own version the modules would say the target's anyway, and
            // --ptx would change nothing the user can see: refused rather than raised.
            if let Ok(need) = ptx::kernel::min_ptx_for_arch(cfg.arch()) {
                if cfg.ptx < need {
                    bail!("--ptx {v} is below PTX ISA {need}, the lowest that knows {}: give --ptx {need} or later, or leave --ptx out", cfg.arch());
                }
            }
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
        // Named as the flags (and the file) the user wrote, not as GenConfig's fields.
        if cfg.min_len > cfg.max_len {
            let from = |flag: Option<usize>| if flag.is_some() { "" } else if self.config.is_some() { " (from --config)" } else { " (the default)" };
            bail!(
                "--min-len {}{} is above --max-len {}{}: give --min-len at most --max-len",
                cfg.min_len,
                from(self.min_len),
                cfg.max_len,
                from(self.max_len)
            );
        }
        cfg.contraction |= self.contraction;
        cfg.approximate |= self.approximate;
        if self.documented_only {
            cfg.undocumented = false;
        }
        Ok(cfg)
    }
}

fn parse_ptx(v: &str) -> Result<PtxVersion> {
    let bad = || anyhow::anyhow!("--ptx {v}: give a PTX ISA version such as 8.7");
    let (a, b) = v.trim().split_once('.').ok_or_else(bad)?;
    Ok(PtxVersion::new(a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(sm: Option<&str>, ptx: &str) -> Result<GenConfig> {
        GenArgs { sm: sm.map(|s| s.parse().unwrap()), ptx: Some(ptx.into()), ..GenArgs::default() }.to_config()
    }

    #[test]
    fn a_ptx_version_below_the_target_s_is_refused_naming_the_minimum_not_raised() {
        let e = config(Some("90"), "1.0").unwrap_err().to_string();
        assert!(e.contains("--ptx 1.0 is below PTX ISA 7.8, the lowest that knows sm_90: give --ptx 7.8 or later"), "{e}");
        let e = config(Some("100f"), "8.7").unwrap_err().to_string();
        assert!(e.contains("below PTX ISA 8.8, the lowest that knows sm_100f"), "{e}");
        assert_eq!(config(Some("90"), "7.8").unwrap().ptx, PtxVersion::new(7, 8));
        // Without --sm, the config's own target (sm_90).
        assert!(config(None, "7.0").is_err());
        assert_eq!(config(None, "9.0").unwrap().ptx, PtxVersion::new(9, 0));
    }

    #[test]
    fn the_help_s_defaults_are_the_generator_s() {
        let d = GenConfig::default();
        let help = {
            use clap::CommandFactory;
            #[derive(clap::Parser)]
            struct Cli {
                #[command(flatten)]
                gen: GenArgs,
            }
            Cli::command().render_long_help().to_string()
        };
        for (flag, value) in [
            ("--min-len", d.min_len.to_string()),
            ("--max-len", d.max_len.to_string()),
            ("--single-share", d.single_share.to_string()),
            ("--ftz-share", d.ftz_share.to_string()),
            ("--sat-share", d.sat_share.to_string()),
            ("--special-share", d.special_share.to_string()),
        ] {
            let at = help.find(&format!("{flag} <")).unwrap_or_else(|| panic!("{flag} not in {help}"));
            let text: String = help[at..].split("\n\n").next().unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(text.contains(&format!("[default: {value}]")), "{flag}: {text}");
        }
    }

    #[test]
    fn lengths_the_wrong_way_round_are_named_by_their_flags() {
        let e = GenArgs { min_len: Some(9), ..GenArgs::default() }.to_config().unwrap_err().to_string();
        assert_eq!(e, "--min-len 9 is above --max-len 8 (the default): give --min-len at most --max-len");
    }

    #[test]
    fn an_unparseable_ptx_version_is_refused_with_what_to_give() {
        for v in ["8", "eight.7", "8.7.1", "-1.0"] {
            let e = config(None, v).unwrap_err().to_string();
            assert!(e.contains(&format!("--ptx {v}: give a PTX ISA version such as 8.7")), "{v}: {e}");
        }
    }
}
