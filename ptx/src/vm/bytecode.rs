//! The VM's bytecode: a program as 64-bit words (header, one word per instruction, one per
//! output), encoded against the arm list of one sm, and decoded back with every field checked.
//!
//! # Layout (little-endian 64-bit words)
//!
//! - word 0, the header: bits 0..16 the number of inputs `K`, 16..32 of instructions `N`,
//!   32..48 of outputs `M`, 48..64 the format tag [`FORMAT`];
//! - words 1..=N, one per instruction in program order: bits 0..16 the arm (the form's index in
//!   [`super::arms`] for the sm), 16..28 the destination slot, 28..40, 40..52 and 52..64 the
//!   slots of sources a, b and c (unused sources are 0);
//! - words N+1..=N+M, one per output in order: bits 0..12 the slot stored as that output.
//!
//! Slots index the per-thread register file of [`super::REG_SLOTS`] 64-bit slots; input `j`
//! is loaded into slot `j`. The encoder maps program register `r` to slot `r`.

use std::collections::HashMap;

use super::{arms, VmError, REG_SLOTS};
use crate::isa::{Arch, Instr};
use crate::program::Program;

/// Format tag in the header's top 16 bits ("VM" in ASCII, bumped if the layout changes).
pub const FORMAT: u64 = 0x564d;

/// Bits of a slot field.
const SLOT_BITS: u32 = 12;
const SLOT_MASK: u64 = (1 << SLOT_BITS) - 1;

/// A program encoded for the VM of one target (`arch`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bytecode {
    arch: Arch,
    words: Vec<u64>,
}

/// One decoded instruction: a form and its slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    pub arm: u16,
    pub form: Instr,
    pub dst: u16,
    /// Only the first `form.inputs` are used.
    pub src: [u16; 3],
}

/// Bytecode decoded and checked: what [`super::exec`] runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub inputs: usize,
    pub ops: Vec<Op>,
    pub outputs: Vec<u16>,
}

/// The arm index of each form of a target, for encoding.
pub struct Encoder {
    arch: Arch,
    index: HashMap<Instr, u16>,
}

impl Encoder {
    /// The encoder of `arch`'s VM (an sm number for the plain `sm_XX`).
    pub fn new(arch: impl Into<Arch>) -> Result<Encoder, VmError> {
        let arch = arch.into();
        let index = arms(arch)?.into_iter().enumerate().map(|(i, f)| (f, i as u16)).collect();
        Ok(Encoder { arch, index })
    }

    /// `p` as bytecode; fails if a form has no arm at this sm or the program needs more
    /// registers than the VM's register file.
    pub fn encode(&self, p: &Program) -> Result<Bytecode, VmError> {
        if p.reg_count() > REG_SLOTS {
            return Err(VmError::TooManyRegisters { regs: p.reg_count(), max: REG_SLOTS });
        }
        let (k, n, m) = (p.inputs().len() as u64, p.body().len() as u64, p.outputs().len() as u64);
        let mut words = Vec::with_capacity(1 + p.body().len() + p.outputs().len());
        words.push(k | n << 16 | m << 32 | FORMAT << 48);
        for (j, s) in p.body().iter().enumerate() {
            let arm = *self.index.get(&s.instr).ok_or_else(|| VmError::NotCovered {
                index: j,
                form: s.instr.to_string(),
                inputs: s.instr.inputs,
                arch: self.arch,
            })?;
            let mut w = arm as u64 | (p.dst(j).0 as u64) << 16;
            for (i, r) in s.srcs().iter().enumerate() {
                w |= (r.0 as u64) << (28 + SLOT_BITS * i as u32);
            }
            words.push(w);
        }
        words.extend(p.outputs().iter().map(|r| r.0 as u64));
        Ok(Bytecode { arch: self.arch, words })
    }
}

impl Bytecode {
    /// [`Encoder::encode`] for one program (to encode many, build the [`Encoder`] once).
    pub fn encode(p: &Program, arch: impl Into<Arch>) -> Result<Bytecode, VmError> {
        Encoder::new(arch)?.encode(p)
    }

    /// Words read back from a GPU buffer or a file, to be decoded for `arch`'s VM.
    pub fn from_words(arch: impl Into<Arch>, words: Vec<u64>) -> Bytecode {
        Bytecode { arch: arch.into(), words }
    }

    /// The target whose arm list the words index.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// The words, as the GPU reads them (see the module docs).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Decode against the arm list of the bytecode's sm, checking every field.
    pub fn decode(&self) -> Result<Decoded, VmError> {
        self.decode_with(&arms(self.arch)?)
    }

    /// As [`Bytecode::decode`] with the sm's arm list given (to decode many, compute it once).
    pub fn decode_with(&self, arms: &[Instr]) -> Result<Decoded, VmError> {
        let w = &self.words;
        let header = *w.first().ok_or(VmError::Truncated { words: 0, need: 1 })?;
        if header >> 48 != FORMAT {
            return Err(VmError::Format { found: header >> 48, expected: FORMAT });
        }
        let field = |shift: u32| (header >> shift & 0xffff) as usize;
        let (k, n, m) = (field(0), field(16), field(32));
        let need = 1 + n + m;
        if w.len() < need {
            return Err(VmError::Truncated { words: w.len(), need });
        }
        let slot = |word: usize, v: u64| -> Result<u16, VmError> {
            if v as usize >= REG_SLOTS {
                return Err(VmError::Slot { word, slot: v });
            }
            Ok(v as u16)
        };
        let mut ops = Vec::with_capacity(n);
        for (word, &x) in w.iter().enumerate().take(1 + n).skip(1) {
            let arm = x & 0xffff;
            let form = *arms.get(arm as usize).ok_or(VmError::UnknownArm {
                word,
                arm,
                arms: arms.len(),
                arch: self.arch,
            })?;
            let dst = slot(word, x >> 16 & SLOT_MASK)?;
            let mut src = [0u16; 3];
            for (i, s) in src.iter_mut().enumerate() {
                let v = x >> (28 + SLOT_BITS * i as u32) & SLOT_MASK;
                if i < form.inputs as usize {
                    *s = slot(word, v)?;
                } else if v != 0 {
                    let form_text = form.to_string();
                    return Err(VmError::UnusedField { word, field: i, value: v, form: form_text, inputs: form.inputs });
                }
            }
            ops.push(Op { arm: arm as u16, form, dst, src });
        }
        let mut outputs = Vec::with_capacity(m);
        for (word, &x) in w.iter().enumerate().take(need).skip(1 + n) {
            if x > SLOT_MASK {
                return Err(VmError::OutputWord { word, bits: x & !SLOT_MASK });
            }
            outputs.push(slot(word, x)?);
        }
        Ok(Decoded { inputs: k, ops, outputs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prog(text: &str) -> Program {
        Program::parse(text).unwrap()
    }

    #[test]
    fn words_follow_the_documented_layout() {
        let p = prog("// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\ntestp.finite.f32 %p3, %f2;\n// outputs: %p3, %f2\n");
        let b = Bytecode::encode(&p, 90).unwrap();
        let arms = arms(90).unwrap();
        let add = arms.iter().position(|f| f.to_string() == "add.rn.f32").unwrap() as u64;
        assert_eq!(b.words()[0], 2 | 2 << 16 | 2 << 32 | FORMAT << 48);
        assert_eq!(b.words()[1], add | 2 << 16 | 1 << 40);
        assert_eq!(b.words()[3..], [3, 2]);
        let d = b.decode().unwrap();
        assert_eq!(d.inputs, 2);
        assert_eq!(d.ops[0].form.to_string(), "add.rn.f32");
        assert_eq!((d.ops[1].dst, d.ops[1].src), (3, [2, 0, 0]));
        assert_eq!(d.outputs, [3, 2]);
    }

    #[test]
    fn form_missing_on_the_sm_and_oversized_programs_are_encode_errors() {
        let p = prog("// inputs: %rd0:f32x2\nadd.rn.f32x2 %rd1, %rd0, %rd0;\n// outputs: %rd1\n");
        let e = Bytecode::encode(&p, 90).unwrap_err();
        assert!(matches!(e, VmError::NotCovered { index: 0, arch, .. } if arch == Arch::from(90)), "{e}");
        assert!(e.to_string().contains("add.rn.f32x2"), "{e}");
        assert!(Bytecode::encode(&p, 100).is_ok());
        assert_eq!(Bytecode::encode(&p, 91).unwrap_err(), VmError::UnknownSm(91));
        let inputs: Vec<String> = (0..REG_SLOTS).map(|i| format!("%f{i}:f32")).collect();
        let big = prog(&format!("// inputs: {}\nneg.f32 %f{REG_SLOTS}, %f0;\n// outputs: %f{REG_SLOTS}\n", inputs.join(", ")));
        let e = Bytecode::encode(&big, 90).unwrap_err();
        assert_eq!(e, VmError::TooManyRegisters { regs: REG_SLOTS + 1, max: REG_SLOTS });
    }

    #[test]
    fn corrupt_words_are_decode_errors() {
        let p = prog("// inputs: %f0:f32\nneg.f32 %f1, %f0;\n// outputs: %f1\n");
        let good = Bytecode::encode(&p, 80).unwrap();
        let with = |i: usize, v: u64| {
            let mut w = good.words().to_vec();
            w[i] = v;
            Bytecode::from_words(80, w).decode().unwrap_err()
        };
        let w = good.words().to_vec();
        assert!(matches!(with(0, w[0] & !(0xffff << 48)), VmError::Format { found: 0, .. }));
        assert!(matches!(with(0, w[0] + (5 << 16)), VmError::Truncated { words: 3, need: 8 }));
        assert!(matches!(with(1, w[1] | 0xffff), VmError::UnknownArm { word: 1, arm: 0xffff, .. }));
        assert!(matches!(with(1, w[1] | 0xfff << 16), VmError::Slot { word: 1, slot: 0xfff }));
        assert!(matches!(with(1, w[1] | 1 << 40), VmError::UnusedField { word: 1, field: 1, value: 1, .. }));
        assert!(matches!(with(2, 1 << 20), VmError::OutputWord { word: 2, .. }));
        assert!(matches!(Bytecode::from_words(80, vec![]).decode(), Err(VmError::Truncated { words: 0, need: 1 })));
        assert_eq!(Bytecode::from_words(80, w).decode().unwrap(), good.decode().unwrap());
    }
}
