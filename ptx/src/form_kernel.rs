//! Batched kernels for the forms outside [`crate::isa::Instr`]: every `cvt` family, `setp`,
//! `set`, `selp` and the mixed-precision arithmetic (issue 16). Thread `i` loads its operands
//! from 64-bit words, runs the form once and stores one 64-bit result word, so that a GPU can
//! record these forms in the capture format (`INSTR OPERAND... -> RESULT`) before programs hold
//! them. The register types are one table per family ([`Form::sources`], [`Form::dest`]); the
//! ptxas tests (`ptx/tests/ptxas_cvt.rs`) assemble these kernels for every documented form.
//!
//! Layout: `.entry forms(.param .u64 in, .param .u64 out, .param .u32 n)`; case `i` reads
//! `in[i * k + j]` for its `j`-th of `k` sources (the low bits of the word, little-endian, as
//! `ld` of the operand's width reads them; a predicate source is word != 0) and writes
//! `out[i]`: the destination's bits zero-extended, or for `setp` bit 0 = `p` and bit 1 = `q`.

use std::fmt::{self, Write as _};

use crate::compare::{Compare, Kind, Ty};
use crate::cvt::narrow::{Direction, Variant};
use crate::cvt::AnyCvt;
use crate::isa::PtxVersion;
use crate::mixed::Mixed;
use crate::Scalar;

/// A form outside `Instr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    Cvt(AnyCvt),
    Compare(Compare),
    Mixed(Mixed),
}

/// A PTX register type (`.b16`, `.f32`, `.s8`, `.pred`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reg {
    Bits(u32),
    Unsigned(u32),
    Signed(u32),
    F32,
    F64,
    Pred,
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reg::Bits(n) => write!(f, ".b{n}"),
            Reg::Unsigned(n) => write!(f, ".u{n}"),
            Reg::Signed(n) => write!(f, ".s{n}"),
            Reg::F32 => f.write_str(".f32"),
            Reg::F64 => f.write_str(".f64"),
            Reg::Pred => f.write_str(".pred"),
        }
    }
}

/// What a form writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dest {
    Reg(Reg),
    /// `setp`: `p`, and `q` unless the source is a scalar half (its syntax has no `q`).
    Predicates { q: bool },
}

/// A float operand's register: the half formats live in `.b16` (PTX ISA 5.2.1: "the f16 and
/// bf16 ... are stored in .b16 registers").
fn float_reg(s: Scalar) -> Reg {
    match s {
        Scalar::F16 | Scalar::BF16 => Reg::Bits(16),
        Scalar::F32 => Reg::F32,
        Scalar::F64 => Reg::F64,
    }
}

/// A comparison operand's register (9.7.6.1-3: `.f16`/`.bf16` in `.b16`, the packed types in
/// `.b32`, the others their own type).
fn compare_reg(t: Ty) -> Reg {
    match t {
        Ty::Float(s) => float_reg(s),
        Ty::Packed(_) => Reg::Bits(32),
        Ty::Bits(n) => Reg::Bits(n),
        Ty::Int(i) if i.signed => Reg::Signed(i.bits),
        Ty::Int(i) => Reg::Unsigned(i.bits),
    }
}

impl Form {
    /// The source registers, in operand order.
    pub fn sources(&self) -> Vec<Reg> {
        match self {
            Form::Cvt(AnyCvt::Float(c)) => vec![float_reg(c.src); c.inputs()],
            Form::Cvt(AnyCvt::Int(c)) if c.to_int => vec![float_reg(c.float)],
            // ptxas 13.5 refuses an 8-bit integer in a 16-bit register when the float is bf16,
            // so each integer gets a register of its own type.
            Form::Cvt(AnyCvt::Int(c)) => vec![if c.int.signed { Reg::Signed(c.int.bits) } else { Reg::Unsigned(c.int.bits) }],
            Form::Cvt(AnyCvt::Narrow(c)) => match c.dir {
                Direction::Down { .. } => vec![Reg::Bits(32); c.inputs()],
                Direction::Up { src, .. } => vec![Reg::Bits(src.packed_bits())],
            },
            Form::Cvt(AnyCvt::Tf32(_)) => vec![Reg::F32],
            // a, b and the random bits (9.7.9.21: "rbits ... .b32").
            Form::Cvt(AnyCvt::Stochastic(c)) => {
                let mut r = vec![Reg::F32; c.inputs() - 1];
                r.push(Reg::Bits(32));
                r
            }
            Form::Compare(c) => {
                let mut r = vec![compare_reg(c.ty); 2];
                if c.bool_op.is_some() || c.kind == Kind::Selp {
                    r.push(Reg::Pred);
                }
                r
            }
            Form::Mixed(m) => (0..m.inputs()).map(|i| if m.is_half_operand(i) { Reg::Bits(16) } else { Reg::F32 }).collect(),
        }
    }

    /// The destination.
    pub fn dest(&self) -> Dest {
        match self {
            Form::Cvt(AnyCvt::Float(c)) if c.packed => Dest::Reg(Reg::Bits(32)),
            Form::Cvt(AnyCvt::Float(c)) => Dest::Reg(float_reg(c.dst)),
            Form::Cvt(AnyCvt::Int(c)) if c.to_int => {
                Dest::Reg(if c.int.signed { Reg::Signed(c.int.bits) } else { Reg::Unsigned(c.int.bits) })
            }
            Form::Cvt(AnyCvt::Int(c)) => Dest::Reg(float_reg(c.float)),
            Form::Cvt(AnyCvt::Narrow(c)) => Dest::Reg(Reg::Bits(c.dst_bits())),
            Form::Cvt(AnyCvt::Tf32(_) | AnyCvt::Stochastic(_)) => Dest::Reg(Reg::Bits(32)),
            Form::Compare(c) => match c.kind {
                Kind::Setp => Dest::Predicates { q: !matches!(c.ty, Ty::Float(Scalar::F16 | Scalar::BF16)) },
                Kind::Set { dtype } => Dest::Reg(compare_reg(dtype)),
                Kind::Selp => Dest::Reg(compare_reg(c.ty)),
            },
            Form::Mixed(_) => Dest::Reg(Reg::F32),
        }
    }

    /// The lowest `.target` and PTX ISA version the form's table allows (`sm_100a` where a
    /// form is architecture-specific).
    pub fn minimal_target(&self) -> (String, PtxVersion) {
        let plain = |sm: u32, ptx: PtxVersion| (format!("sm_{sm}"), ptx);
        match self {
            Form::Cvt(AnyCvt::Float(c)) => plain(c.requirement().sm, c.requirement().ptx),
            Form::Cvt(AnyCvt::Int(c)) => plain(c.requirement().sm, c.requirement().ptx),
            Form::Cvt(AnyCvt::Tf32(c)) => plain(c.requirement().sm, c.requirement().ptx),
            Form::Cvt(AnyCvt::Narrow(c)) => (c.needs().target(), c.needs().ptx),
            Form::Cvt(AnyCvt::Stochastic(c)) => (c.needs().target(), c.needs().ptx),
            Form::Compare(c) => plain(c.requirement().sm, c.requirement().ptx),
            Form::Mixed(m) => plain(m.requirement().sm, m.requirement().ptx),
        }
    }

    /// Whether the form needs an architecture-specific target (`sm_XXXa`/`f`): such a module
    /// loads only on that sm (family), never on a later one.
    pub fn is_arch_specific(&self) -> bool {
        match self {
            Form::Cvt(AnyCvt::Narrow(c)) => c.needs().variant != Variant::Plain,
            Form::Cvt(AnyCvt::Stochastic(_)) => true,
            _ => false,
        }
    }

    /// The instruction line, its operands named `%d` (or `%p|%q`, `%p`) and `%s0`, `%s1`, ...
    fn instruction(&self) -> String {
        let srcs: Vec<String> = (0..self.sources().len()).map(|j| format!("%s{j}")).collect();
        let d = match self.dest() {
            Dest::Reg(_) => "%d",
            Dest::Predicates { q: true } => "%p|%q",
            Dest::Predicates { q: false } => "%p",
        };
        format!("{self} {d}, {};", srcs.join(", "))
    }
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Form::Cvt(c) => c.fmt(f),
            Form::Compare(c) => c.fmt(f),
            Form::Mixed(m) => m.fmt(f),
        }
    }
}

/// The kernel `forms` that runs `form` once per case (module header for `target`, e.g.
/// `sm_90` or `sm_100a`, and PTX ISA `ptx`). The entry's layout is in the module docs.
pub fn module(form: &Form, target: &str, ptx: PtxVersion) -> String {
    let sources = form.sources();
    let k = sources.len() as u32;
    let mut s = String::new();
    let _ = write!(
        s,
        ".version {ptx}\n.target {target}\n.address_size 64\n\n\
         .visible .entry forms(.param .u64 forms_in, .param .u64 forms_out, .param .u32 forms_n)\n{{\n\
         \t.reg .u32 %i, %t, %n, %w, %w2;\n\t.reg .u64 %a, %o, %off, %z;\n\t.reg .pred %done;\n"
    );
    for (j, r) in sources.iter().enumerate() {
        let _ = writeln!(s, "\t.reg {r} %s{j};");
    }
    match form.dest() {
        Dest::Reg(r) => {
            let _ = writeln!(s, "\t.reg {r} %d;");
        }
        Dest::Predicates { .. } => s.push_str("\t.reg .pred %p, %q;\n"),
    }
    let _ = write!(
        s,
        "\tmov.u32 %i, %ctaid.x;\n\tmov.u32 %t, %ntid.x;\n\tmov.u32 %w, %tid.x;\n\tmad.lo.u32 %i, %i, %t, %w;\n\
         \tld.param.u32 %n, [forms_n];\n\tsetp.ge.u32 %done, %i, %n;\n\t@%done ret;\n\
         \tld.param.u64 %a, [forms_in];\n\tld.param.u64 %o, [forms_out];\n\
         \tmul.wide.u32 %off, %i, {};\n\tadd.u64 %a, %a, %off;\n\tmul.wide.u32 %off, %i, 8;\n\tadd.u64 %o, %o, %off;\n",
        8 * k
    );
    for (j, r) in sources.iter().enumerate() {
        let at = 8 * j;
        let _ = match r {
            Reg::Pred => writeln!(s, "\tld.global.u32 %w, [%a+{at}];\n\tsetp.ne.u32 %s{j}, %w, 0;"),
            r => writeln!(s, "\tld.global{r} %s{j}, [%a+{at}];"),
        };
    }
    let _ = writeln!(s, "\t{}", form.instruction());
    // The whole word first, then the destination's own width over its low bytes.
    s.push_str("\tmov.u64 %z, 0;\n\tst.global.u64 [%o], %z;\n");
    let _ = match form.dest() {
        Dest::Reg(r) => writeln!(s, "\tst.global{r} [%o], %d;"),
        Dest::Predicates { q } => {
            s.push_str("\tselp.u32 %w, 1, 0, %p;\n");
            if q {
                s.push_str("\tselp.u32 %w2, 2, 0, %q;\n\tor.b32 %w, %w, %w2;\n");
            }
            writeln!(s, "\tst.global.u32 [%o], %w;")
        }
    };
    s.push_str("\tret;\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(text: &str) -> Form {
        if let Ok(c) = AnyCvt::parse(text) {
            Form::Cvt(c)
        } else if let Ok(m) = Mixed::parse(text) {
            Form::Mixed(m)
        } else {
            Form::Compare(Compare::parse(text).unwrap())
        }
    }

    #[test]
    fn registers_follow_each_family_table() {
        let f = form("cvt.rn.f16x2.f32");
        assert_eq!((f.sources(), f.dest()), (vec![Reg::F32, Reg::F32], Dest::Reg(Reg::Bits(32))));
        let f = form("cvt.rni.s8.bf16");
        assert_eq!((f.sources(), f.dest()), (vec![Reg::Bits(16)], Dest::Reg(Reg::Signed(8))));
        let f = form("cvt.rn.satfinite.e2m1x2.f32");
        assert_eq!((f.sources(), f.dest()), (vec![Reg::Bits(32), Reg::Bits(32)], Dest::Reg(Reg::Bits(8))));
        let f = form("cvt.rs.bf16x2.f32");
        assert_eq!(f.sources(), vec![Reg::F32, Reg::F32, Reg::Bits(32)]);
        assert_eq!(form("setp.lt.f16x2").dest(), Dest::Predicates { q: true });
        assert_eq!(form("setp.lt.f16").dest(), Dest::Predicates { q: false });
        assert_eq!(form("setp.lt.and.f32").sources(), vec![Reg::F32, Reg::F32, Reg::Pred]);
        assert_eq!(form("selp.s16").sources(), vec![Reg::Signed(16), Reg::Signed(16), Reg::Pred]);
        let f = form("fma.rn.f32.bf16");
        assert_eq!((f.sources(), f.dest()), (vec![Reg::Bits(16), Reg::Bits(16), Reg::F32], Dest::Reg(Reg::F32)));
    }

    #[test]
    fn the_kernel_reads_k_words_per_case_and_stores_one() {
        let m = module(&form("cvt.rs.relu.satfinite.f16x2.f32"), "sm_100a", PtxVersion::new(8, 7));
        assert!(m.contains(".target sm_100a") && m.contains(".version 8.7"), "{m}");
        assert!(m.contains("mul.wide.u32 %off, %i, 24;"), "three words per case: {m}");
        assert!(m.contains("ld.global.b32 %s2, [%a+16];"), "{m}");
        assert!(m.contains("cvt.rs.relu.satfinite.f16x2.f32 %d, %s0, %s1, %s2;"), "{m}");
        let m = module(&form("setp.gtu.or.ftz.f32"), "sm_90", PtxVersion::new(7, 8));
        assert!(m.contains("setp.ne.u32 %s2, %w, 0;") && m.contains("or.b32 %w, %w, %w2;"), "{m}");
        assert_eq!(form("cvt.rs.bf16x2.f32").minimal_target(), ("sm_100a".to_string(), PtxVersion::new(8, 7)));
        assert!(form("cvt.rs.bf16x2.f32").is_arch_specific() && !form("cvt.rn.bf16.f32").is_arch_specific());
    }
}
