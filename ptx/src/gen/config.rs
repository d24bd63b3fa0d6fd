//! `GenConfig`: the generator's knobs, each default justified (in the style of cranelift
//! fuzzgen's `config.rs`). Serialisable so a run can record exactly how it generated.

use serde::{Deserialize, Serialize};

use crate::isa::{Arch, Opcode, PtxVersion, Target, Type, Variant};

/// How programs are generated. Shares are probabilities in `[0, 1]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GenConfig {
    /// Target GPU, `sm_XX` as XX. Default 90: the H100, the datacenter GPU most users run,
    /// and ptxas accepts its full 9.7.3/9.7.4 set (bf16 arithmetic needs sm_90).
    pub sm: u32,
    /// The architecture-specific suffix of the target, `"a"` for `sm_100a`, `"f"` for
    /// `sm_100f`. Default `"plain"` (and left out of the JSON): a plain module runs on every
    /// later GPU, and only a handful of `cvt` forms (the f6/ue8m0 ones of 9.7.9.21) need a
    /// suffix; ask for `sm_100a` to fuzz them.
    #[serde(skip_serializing_if = "is_plain")]
    pub variant: Variant,
    /// The newest PTX ISA version forms may need, as "major.minor". Default "8.7" (CUDA 12.8):
    /// newer than anything an sm_90 form needs, and the first release to know every target up
    /// to sm_120, so it only restricts forms when asked to.
    #[serde(with = "ptx_version")]
    pub ptx: PtxVersion,
    /// Opcodes to draw from (PTX names). Default: all of 9.7.3 and 9.7.4, `cvt`, `setp`, `set`
    /// and `selp`; each opcode is equally likely, whatever its number of forms, so `neg` is not
    /// drowned by `min`'s 24 variants (nor `add` by `set`'s hundreds).
    #[serde(with = "names")]
    pub opcodes: Vec<Opcode>,
    /// Instruction types to draw from. Default: all seven.
    #[serde(with = "names")]
    pub types: Vec<Type>,
    /// Fewest instructions in a multi-instruction program. Default 2 (1 is `single_share`'s).
    pub min_len: usize,
    /// Most instructions. Default 8: long enough for chains such as mul -> add -> min -> testp,
    /// short enough that an early special value usually survives to an output and that a
    /// failing program is readable without reduction.
    pub max_len: usize,
    /// Share of single-instruction programs. Default 0.5: most discrepancies are one
    /// instruction's semantics, and single instructions test them most directly (every input
    /// is a chosen special value); the other half tests data flow between instructions.
    pub single_share: f64,
    /// Share of instructions given `.ftz` where the form has it. Default 0.3: `.ftz` doubles the
    /// subnormal rules to check but the unflushed forms are what most code runs.
    pub ftz_share: f64,
    /// Share of instructions given `.sat` (or `.relu` for f16/bf16 fma) where the form has it.
    /// Default 0.2: the clamp only matters near [0, 1] and on NaN; more would hide the other
    /// rules behind clamped results.
    pub sat_share: f64,
    /// Share of operands that read an earlier instruction's result (when one of the right
    /// register type exists) rather than an input. Default 0.6: data flow is the point of
    /// multi-instruction programs, yet fresh inputs keep injecting special values.
    pub reuse_share: f64,
    /// Share of operand values drawn from the special list (zeros, infinities, NaNs,
    /// subnormal and normal bounds, 1 and its neighbours, ...) rather than random bits.
    /// Default 0.5, as the issue asks: specials hit the rules, random bits the arithmetic.
    pub special_share: f64,
    /// Share of inputs tied to an earlier input of the same type (equal, negated, one ulp away),
    /// which makes exact cancellations `a - a`, `a + (-a)` likely. Default 0.15.
    pub relation_share: f64,
    /// Write add/sub/mul without rounding modifier, which ptxas may contract into fma (9.7.3.3
    /// notes); the interpreter then also allows the fused result. Default false: explicit `.rn`
    /// makes every expectation exact, and contraction is a separate question to ask on purpose.
    pub contraction: bool,
    /// Include approximate forms (`.approx`, `.full`, sin, cos, lg2, ex2, tanh, rsqrt). Default
    /// false: the interpreter models them only once issue 4's acceptance model lands; until
    /// then a program holding one cannot be checked.
    pub approximate: bool,
    /// Include the forms ptxas accepts that the PTX ISA text does not document
    /// (`fma.{rz,rm,rp}{.relu}.{bf16,bf16x2}`, see docs/isa-table.md). Default true: their SASS
    /// looks wrong (docs/isa-table.md) while the interpreter gives the correctly rounded result,
    /// so a disagreement there is exactly what the fuzzer is for.
    pub undocumented: bool,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            sm: 90,
            variant: Variant::Plain,
            ptx: PtxVersion::new(8, 7),
            opcodes: Opcode::ALL.to_vec(),
            types: Type::ALL.to_vec(),
            min_len: 2,
            max_len: 8,
            single_share: 0.5,
            ftz_share: 0.3,
            sat_share: 0.2,
            reuse_share: 0.6,
            special_share: 0.5,
            relation_share: 0.15,
            contraction: false,
            approximate: false,
            undocumented: true,
        }
    }
}

impl GenConfig {
    pub fn target(&self) -> Target {
        Target::of(self.arch(), self.ptx)
    }

    /// The `.target` of the modules: `sm_90`, `sm_100a`.
    pub fn arch(&self) -> Arch {
        Arch { sm: self.sm, variant: self.variant }
    }

    /// A default config for `sm_XX` and PTX ISA `ptx`.
    pub fn for_target(sm: u32, ptx: PtxVersion) -> GenConfig {
        GenConfig { sm, ptx, ..GenConfig::default() }
    }
}

fn is_plain(v: &Variant) -> bool {
    *v == Variant::Plain
}

/// `PtxVersion` as "8.7".
pub mod ptx_version {
    use super::*;
    use serde::{de::Error, Deserializer, Serializer};

    pub fn parse(s: &str) -> Option<PtxVersion> {
        let (a, b) = s.split_once('.')?;
        Some(PtxVersion::new(a.parse().ok()?, b.parse().ok()?))
    }

    pub fn serialize<S: Serializer>(v: &PtxVersion, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PtxVersion, D::Error> {
        let s = String::deserialize(d)?;
        parse(&s).ok_or_else(|| D::Error::custom(format!("PTX ISA version '{s}': write it as \"8.7\"")))
    }
}

/// Enums with PTX names (`Opcode`, `Type`) as lists of those names.
mod names {
    use super::*;
    use serde::{de::Error, Deserializer, Serializer};

    pub trait Named: Sized + Copy {
        const WHAT: &'static str;
        fn name(self) -> &'static str;
        fn from_name(s: &str) -> Option<Self>;
    }
    impl Named for Opcode {
        const WHAT: &'static str = "opcode";
        fn name(self) -> &'static str {
            Opcode::name(self)
        }
        fn from_name(s: &str) -> Option<Self> {
            Opcode::from_name(s)
        }
    }
    impl Named for Type {
        const WHAT: &'static str = "type";
        fn name(self) -> &'static str {
            Type::name(self)
        }
        fn from_name(s: &str) -> Option<Self> {
            Type::from_name(s)
        }
    }

    pub fn serialize<T: Named, S: Serializer>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|x| x.name()))
    }

    pub fn deserialize<'de, T: Named, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|s| T::from_name(s).ok_or_else(|| D::Error::custom(format!("unknown {} '{s}'", T::WHAT))))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_json_round_trips_and_defaults_fill_gaps() {
        let c = GenConfig { contraction: true, opcodes: vec![Opcode::Add, Opcode::Fma], ..GenConfig::default() };
        let json = serde_json::to_string(&c).unwrap();
        assert!(json.contains(r#""opcodes":["add","fma"]"#), "{json}");
        assert!(json.contains(r#""ptx":"8.7""#), "{json}");
        assert_eq!(serde_json::from_str::<GenConfig>(&json).unwrap(), c);
        let partial: GenConfig = serde_json::from_str(r#"{"sm":100,"ptx":"8.6"}"#).unwrap();
        assert_eq!(partial.target(), Target::new(100, PtxVersion::new(8, 6)));
        assert_eq!(partial.max_len, GenConfig::default().max_len);
        // A plain target leaves "variant" out; "a" names sm_100a.
        assert!(!json.contains("variant"), "{json}");
        let a: GenConfig = serde_json::from_str(r#"{"sm":100,"variant":"a","ptx":"8.6"}"#).unwrap();
        assert_eq!((a.arch().to_string(), a.target().variant), ("sm_100a".to_string(), Variant::A));
        assert!(serde_json::to_string(&a).unwrap().contains(r#""variant":"a""#));
    }

    #[test]
    fn bad_config_names_are_errors() {
        for bad in [r#"{"opcodes":["addd"]}"#, r#"{"types":["f8"]}"#, r#"{"ptx":"8"}"#, r#"{"smm":90}"#, r#"{"variant":"b"}"#] {
            assert!(serde_json::from_str::<GenConfig>(bad).is_err(), "{bad}");
        }
    }
}
