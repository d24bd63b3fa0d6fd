//! `ptxfuzz math`: the CUDA math library's documented error bounds and their correctly rounded reference.

use anyhow::Result;
use clap::{Args, Subcommand};
use mathlib::{Build, Cc, Flags};

/// The CUDA math-library bounds (CUDA C++ Programming Guide, appendix "Mathematical Functions").
#[derive(Args, Debug)]
pub struct MathCmd {
    #[command(subcommand)]
    command: MathSub,
}

#[derive(Subcommand, Debug)]
enum MathSub {
    /// Print every function of the appendix tables with its bound and conditions.
    List,
    /// The correctly rounded reference of one call and the range the bound allows, e.g.
    /// `ptxfuzz math eval sinf 0x3f800000` or `ptxfuzz math eval powf 2 0.5`.
    Eval {
        /// Function name as CUDA spells it (sinf, sin, __expf, __fdividef, normcdfinv, ...).
        name: String,
        /// Arguments: hex bits (0x3f800000) or decimals (1.5, -inf, nan); integers in decimal.
        #[arg(allow_hyphen_values = true)]
        operands: Vec<String>,
        /// Compiled with -prec-div=false.
        #[arg(long)]
        no_prec_div: bool,
        /// Compiled with -prec-sqrt=false.
        #[arg(long)]
        no_prec_sqrt: bool,
        /// Compiled with -use_fast_math (Table 9's functions become intrinsics).
        #[arg(long)]
        fast_math: bool,
        /// Compute capability, e.g. 9.0.
        #[arg(long, default_value = "7.5")]
        cc: String,
    },
}

pub fn run(args: MathCmd) -> Result<()> {
    match args.command {
        MathSub::List => print!("{}", mathlib::format_table()),
        MathSub::Eval { name, operands, no_prec_div, no_prec_sqrt, fast_math, cc } => {
            let (major, minor) = cc
                .split_once('.')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                .ok_or_else(|| anyhow::anyhow!("--cc {cc}: give a compute capability such as 9.0"))?;
            let build = Build {
                flags: Flags { prec_div: !no_prec_div, prec_sqrt: !no_prec_sqrt, fast_math },
                cc: Cc::new(major, minor),
            };
            let ops: Vec<&str> = operands.iter().map(String::as_str).collect();
            println!("{}", mathlib::evaluate(&name, &ops, &build)?);
        }
    }
    Ok(())
}
