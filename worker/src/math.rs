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
            let evaluation = mathlib::evaluate(&name, &ops, &build)?;
            // On stderr, before the result: stdout keeps the evaluation alone.
            for note in range_notes(&ops, &evaluation.arg_types) {
                eprintln!("note: {note}");
            }
            println!("{evaluation}");
        }
    }
    Ok(())
}

/// The decimal operands that rounding to the function's argument type took to an infinity or
/// a zero (`sinf 1e-50` is `sinf(0)`: the result line alone would look like the function's
/// answer for 1e-50), as `ptxfuzz eval` notes them (`ptx::value::range_notes`): the operand,
/// and the value it reads as in hex and decimal.
fn range_notes(operands: &[&str], types: &[mathlib::Ty]) -> Vec<ptx::value::RangeNote> {
    operands
        .iter()
        .zip(types)
        .flat_map(|(text, ty)| match ty {
            mathlib::Ty::F32 => ptx::value::range_notes(ptx::isa::Type::F32, text),
            mathlib::Ty::F64 => ptx::value::range_notes(ptx::isa::Type::F64, text),
            mathlib::Ty::Int | mathlib::Ty::Long => Vec::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mathlib::Ty;

    #[test]
    fn a_decimal_argument_that_rounds_to_zero_or_infinity_in_its_type_is_noted_with_what_it_reads_as() {
        let notes: Vec<String> = range_notes(&["1e-50", "1e39", "1e-50"], &[Ty::F32, Ty::F32, Ty::F64]).iter().map(|n| n.to_string()).collect();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].contains("operand '1e-50' is nearer zero than half the smallest subnormal .f32 value: it reads as 0x00000000 (0)"), "{notes:?}");
        assert!(notes[1].contains("operand '1e39' is beyond the largest finite .f32 value: it reads as 0x7f800000 (inf)"), "{notes:?}");
        // Hex bits, names, in-range decimals and integers get none.
        assert!(range_notes(&["0x0", "inf", "1.5", "0", "7"], &[Ty::F32, Ty::F32, Ty::F32, Ty::F64, Ty::Int]).is_empty());
    }
}
