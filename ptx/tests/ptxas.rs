//! Emitted kernels must assemble with NVIDIA's ptxas, and ptxas must agree with the ISA table
//! about which forms a target has.
//!
//! The `cvt`, comparison and mixed-precision forms are in `ptxas_cvt.rs`; finding ptxas
//! (`PTXAS`, the `nvidia` Python package, `PATH`) is `common::ptxas`.

mod common;

use common::ptxas::{assemble, explain, parallel, ptxas_or_skip};
use arbitrary::Unstructured;
use ptx::gen::{seeded_bytes as bytes, GenConfig, Generator};
use ptx::isa::{Arch, Instr, PtxVersion, Target, Variant};
use ptx::kernel::{self, Mode};
use ptx::program::Program;

/// Programs per sm: the issue asks for at least 1000.
const PROGRAMS_PER_SM: usize = 1200;
/// Programs per module: large modules amortise ptxas start-up.
const PER_MODULE: usize = 100;

/// Also on `sm_100a` with PTX 9.1, where the generator adds the f6, ue8m0 and bf16x2-sourced
/// fp8 `cvt`s (9.7.9.21) to everything sm_100 has.
#[test]
fn generated_kernels_assemble_for_sm_80_90_100_and_100a() {
    let Some(ptxas) = ptxas_or_skip("generated_kernels_assemble_for_sm_80_90_100_and_100a") else { return };
    let mut jobs = Vec::new();
    for (arch, ptx) in [("80", (9, 0)), ("90", (9, 0)), ("100", (9, 0)), ("100a", (9, 1))] {
        let arch = Arch::parse(arch).unwrap();
        // Every form ptxas 13.5 knows: approximate ones too, and unrounded add/sub/mul.
        let cfg = GenConfig {
            approximate: true,
            contraction: true,
            variant: arch.variant,
            ..GenConfig::for_target(arch.sm, PtxVersion::new(ptx.0, ptx.1))
        };
        let g = Generator::new(cfg).unwrap();
        let data = bytes(arch.sm as u64 + arch.variant as u64, 256 * PROGRAMS_PER_SM);
        let programs: Vec<Program> = data.chunks(256).map(|c| g.program(&mut Unstructured::new(c)).unwrap()).collect();
        let name = arch.to_string();
        let sm = name.trim_start_matches("sm_").to_string();
        let specific = programs.iter().filter(|p| p.body().iter().any(|s| s.instr.requirement().variant != Variant::Plain)).count();
        assert_eq!(specific > 0, arch.variant != Variant::Plain, "{name}: {specific} programs with an sm_100a/f form");
        eprintln!("{name}: {specific} of {} programs hold an sm_100a/f form", programs.len());
        // From sm_100 on, the mixed-precision forms (9.7.5); on sm_100a, the stochastic cvt.rs
        // with its u32 random bits (9.7.9.21).
        let holding = |f: fn(&Instr) -> bool| programs.iter().filter(|p| p.body().iter().any(|s| f(&s.instr))).count();
        let (mixed, rs) = (holding(|i| i.atype.is_some()), holding(|i| i.is_stochastic()));
        assert_eq!((mixed > 0, rs > 0), (arch.sm >= 100, arch.variant == Variant::A), "{name}: {mixed} mixed, {rs} cvt.rs programs");
        // Everywhere the packed setp's p|q (9.7.7.2) and the bit-type selp (9.7.6.3); on
        // sm_100a the e2m1x2 pairs in .b8 registers.
        let (pairs, bits) = (holding(|i| i.writes_predicate_pair()), holding(|i| i.is_bits_selp()));
        let fp4 = holding(|i| i.narrow_dest().or(i.narrow_source()).is_some_and(|n| n.packed_bits() == 8));
        assert!(pairs > 0 && bits > 0, "{name}: {pairs} setp pairs, {bits} bit selps");
        assert_eq!(fp4 > 0, arch.variant == Variant::A, "{name}: {fp4} e2m1x2 programs");
        for (m, chunk) in programs.chunks(PER_MODULE).enumerate() {
            let mode = if m % 2 == 0 { Mode::Outputs } else { Mode::Trace };
            jobs.push((sm.clone(), format!("gen-{name}-{m}"), kernel::module(chunk, arch, mode).unwrap()));
        }
    }
    let fails = parallel(&jobs, |(sm, tag, ptx)| {
        assemble(&ptxas, ptx, sm, tag).err().map(|e| format!("{tag}:\n{}", explain(ptx, &e)))
    });
    assert!(fails.is_empty(), "{} of {} modules rejected by ptxas:\n{}", fails.len(), jobs.len(), fails.join("\n"));
}

/// A tf32 lives in a `.b32` register (ptxas refuses an `.f32` one for `cvt.rna.tf32.f32`) and
/// f32 instructions read it there, as `ptx::program::ValType::reads` lets programs do; an
/// integer `set` and an integer `selp` feed a `cvt` from their integer type.
#[test]
fn a_tf32_read_as_f32_an_integer_set_and_an_integer_selp_assemble_in_program_kernels() {
    let Some(ptxas) = ptxas_or_skip("a_tf32_read_as_f32_an_integer_set_and_an_integer_selp_assemble_in_program_kernels") else { return };
    let p = Program::parse(
        "// inputs: %f0:f32
cvt.rna.tf32.f32 %r1, %f0;
fma.rn.f32 %f2, %r1, %r1, %f0;
setp.lt.f32 %p3, %r1, %f0;
selp.f32 %f4, %r1, %f2, %p3;
set.lt.s32.f32 %r5, %r1, %f4;
cvt.rn.f32.s32 %f6, %r5;
cvt.rzi.s32.f32 %r7, %f2;
selp.s32 %r8, %r5, %r7, %p3;
cvt.rni.u16.f32 %h9, %f6;
selp.u16 %h10, %h9, %h9, %p3;
cvt.rn.f32.s32 %f11, %r8;
cvt.rn.f32.u16 %f12, %h10;
add.rn.f32 %f13, %f11, %f12;
// outputs: %f13
",
    )
    .unwrap();
    for sm in [80u32, 90, 100] {
        for mode in [Mode::Outputs, Mode::Trace] {
            let ptx = kernel::module(std::slice::from_ref(&p), sm, mode).unwrap();
            let tag = format!("tf32-set-sm{sm}-{mode:?}");
            assemble(&ptxas, &ptx, sm, &tag).unwrap_or_else(|e| panic!("{tag}:\n{}", explain(&ptx, &e)));
        }
    }
}

#[test]
fn integer_inputs_of_every_width_assemble_in_program_kernels() {
    let Some(ptxas) = ptxas_or_skip("integer_inputs_of_every_width_assemble_in_program_kernels") else { return };
    // An integer input is loaded into the register of its width (an 8-bit one into a .b16)
    // and read by an integer-to-float cvt or an integer selp.
    let p = Program::parse(
        "// inputs: %h0:s8, %h1:u16, %r2:s32, %rd3:u64, %r4:u32, %f5:f32
cvt.rn.f32.s8 %f6, %h0;
cvt.rz.f16.u16 %h7, %h1;
cvt.rm.f64.s32 %fd8, %r2;
cvt.rn.f32.u64 %f9, %rd3;
setp.lt.f32 %p10, %f5, %f9;
selp.u32 %r11, %r4, %r4, %p10;
cvt.rp.f32.u32 %f12, %r11;
// outputs: %f6, %h7, %fd8, %f12
",
    )
    .unwrap();
    for sm in [80u32, 90, 100] {
        for mode in [Mode::Outputs, Mode::Trace] {
            let ptx = kernel::module(std::slice::from_ref(&p), sm, mode).unwrap();
            let tag = format!("int-inputs-sm{sm}-{mode:?}");
            assert!(ptx.contains("ld.global.b16 %h0") && ptx.contains("ld.global.b64 %rd3"), "{ptx}");
            assemble(&ptxas, &ptx, sm, &tag).unwrap_or_else(|e| panic!("{tag}:\n{}", explain(&ptx, &e)));
        }
    }
}

#[test]
fn an_fp8_quantize_and_read_back_chain_assembles_in_program_kernels() {
    let Some(ptxas) = ptxas_or_skip("an_fp8_quantize_and_read_back_chain_assembles_in_program_kernels") else { return };
    let p = Program::parse(
        "// inputs: %f0:f32, %f1:f32
cvt.rn.satfinite.e4m3x2.f32 %h2, %f0, %f1;
cvt.rn.relu.f16x2.e4m3x2 %r3, %h2;
cvt.rn.satfinite.relu.e5m2x2.f16x2 %h4, %r3;
cvt.rn.f16x2.e5m2x2 %r5, %h4;
fma.rn.f16x2 %r6, %r5, %r3, %r5;
// outputs: %r6, %h2
",
    )
    .unwrap();
    for sm in [90u32, 100] {
        for mode in [Mode::Outputs, Mode::Trace] {
            let ptx = kernel::module(std::slice::from_ref(&p), sm, mode).unwrap();
            let tag = format!("fp8-sm{sm}-{mode:?}");
            assemble(&ptxas, &ptx, sm, &tag).unwrap_or_else(|e| panic!("{tag}:\n{}", explain(&ptx, &e)));
        }
    }
    // sm_80 has no fp8 cvt: the emitter refuses the program, naming the target.
    let e = kernel::module(std::slice::from_ref(&p), 80, Mode::Outputs).unwrap_err().to_string();
    assert!(e.contains("sm_89"), "{e}");
}

/// The MX formats of 9.7.9.21 (e2m3/e3m2 elements, ue8m0 scales, e2m1 in its `.b8` register)
/// quantized and read back, as a program kernel for `sm_100a`.
#[test]
fn an_mx_quantize_and_read_back_chain_assembles_for_sm_100a() {
    let Some(ptxas) = ptxas_or_skip("an_mx_quantize_and_read_back_chain_assembles_for_sm_100a") else { return };
    let p = Program::parse(
        "// inputs: %f0:f32, %f1:f32
cvt.rn.satfinite.e2m3x2.f32 %h2, %f0, %f1;
cvt.rn.f16x2.e2m3x2 %r3, %h2;
cvt.rn.satfinite.relu.e3m2x2.f16x2 %h4, %r3;
cvt.rn.relu.f16x2.e3m2x2 %r5, %h4;
cvt.rp.satfinite.ue8m0x2.f32 %h6, %f0, %f1;
cvt.rn.bf16x2.ue8m0x2 %r7, %h6;
cvt.rn.satfinite.e4m3x2.bf16x2 %h8, %r7;
cvt.rn.satfinite.e2m1x2.f32 %rc9, %f0, %f1;
cvt.rn.f16x2.e2m1x2 %r10, %rc9;
cvt.rn.satfinite.relu.e2m1x2.bf16x2 %rc11, %r7;
// outputs: %r5, %r7, %h8, %rc9, %r10, %rc11
",
    )
    .unwrap();
    let arch = Arch { sm: 100, variant: Variant::A };
    for mode in [Mode::Outputs, Mode::Trace] {
        let ptx = kernel::module(std::slice::from_ref(&p), arch, mode).unwrap();
        assert!(ptx.contains(".target sm_100a\n"), "{ptx}");
        let tag = format!("mx-sm100a-{mode:?}");
        assemble(&ptxas, &ptx, "100a", &tag).unwrap_or_else(|e| panic!("{tag}:\n{}", explain(&ptx, &e)));
    }
    // Plain sm_100 lacks these forms: the emitter refuses the program, naming the suffix.
    let e = kernel::module(std::slice::from_ref(&p), 100, Mode::Outputs).unwrap_err().to_string();
    assert!(e.contains("needs sm_100a"), "{e}");
}

/// A one-instruction program around `form` (a predicate source comes from a `testp.f32`,
/// which every sm has: predicates are never inputs).
fn single_form_program(form: &Instr) -> Program {
    let srcs: Vec<String> = (0..form.inputs).map(|i| format!("%x{i}")).collect();
    let (mut inputs, mut body) = (Vec::new(), String::new());
    for (i, s) in srcs.iter().enumerate() {
        if form.reads_predicate(i) {
            inputs.push("%c:f32".to_string());
            body.push_str(&format!("testp.finite.f32 {s}, %c;\n"));
        } else if let Some(t) = form.int_source_at(i) {
            // An integer is never an input: a cvt from f32 defines it.
            inputs.push(format!("%i{i}:f32"));
            body.push_str(&format!("cvt.rzi.{}.f32 {s}, %i{i};\n", t.name()));
        } else if form.narrow_source().is_some_and(|n| n.packed_bits() == 8) {
            // Nothing but a cvt to e2m1x2 writes its .b8 register.
            inputs.push(format!("%e{i}:f32"));
            body.push_str(&format!("cvt.rn.satfinite.e2m1x2.f32 {s}, %e{i}, %e{i};\n"));
        } else if form.narrow_source().is_some() {
            // An fp8 pair is never an input: it reads an f16 input's .b16 register.
            inputs.push(format!("{s}:f16"));
        } else {
            // Each source's own type: a mixed-precision form reads a half and an f32.
            inputs.push(format!("{s}:{}", form.src_type_at(i).name()));
        }
    }
    // A packed setp writes a pair (9.7.7.2).
    let d = if form.writes_predicate_pair() { "%d|%e" } else { "%d" };
    let text = format!("// inputs: {}\n{body}{form} {d}, {};\n// outputs: {d}\n", inputs.join(", "), srcs.join(", "));
    Program::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A module around `form` alone for `sm`, without the emitter's target check (so ptxas, not
/// the table, decides), at the `.version` the emitter would choose.
fn single_form_module(form: &Instr, sm: u32) -> (String, PtxVersion) {
    let p = single_form_program(form);
    let v = kernel::min_ptx_for_sm(sm).unwrap().max(form.requirement().ptx);
    let mut ptx = format!(".version {v}\n.target sm_{sm}\n.address_size 64\n\n");
    kernel::write_entry(&mut ptx, "p0", &p, Mode::Outputs);
    (ptx, v)
}

#[test]
fn ptxas_agrees_with_the_table_on_target_boundaries() {
    let Some(ptxas) = ptxas_or_skip("ptxas_agrees_with_the_table_on_target_boundaries") else { return };
    // (form, inputs, sm below the boundary, sm at it), PTX ISA section in the comment.
    let samples: &[(&str, usize, u32, u32)] = &[
        ("add.rn.f32x2", 2, 90, 100),             // 9.7.3.3: add.f32x2 requires sm_100
        ("fma.rn.ftz.f32x2", 3, 90, 100),         // 9.7.3.6
        ("min.xorsign.abs.f32", 2, 80, 86),       // 9.7.3.11: .xorsign.abs requires sm_86
        ("max.NaN.xorsign.abs.f16x2", 2, 80, 86), // 9.7.4: half .xorsign.abs sm_86
        ("min.f32", 3, 90, 100),                  // 9.7.3.11: three inputs require sm_100
        ("max.NaN.abs.f32", 3, 90, 100),
        ("sub.rn.bf16", 2, 80, 90), // 9.7.4.2: sub.bf16 requires sm_90
        ("add.rn.bf16x2", 2, 80, 90),
        ("mul.rn.bf16", 2, 80, 90),
        ("tanh.approx.bf16", 1, 80, 90), // 9.7.4: tanh.approx.bf16 sm_90
        ("ex2.approx.ftz.bf16x2", 1, 80, 90),
    ];
    let mut jobs = Vec::new();
    for &(text, inputs, below, at) in samples {
        let form = Instr::parse(text, inputs).unwrap_or_else(|e| panic!("{text}: {e}"));
        for sm in [below, at] {
            jobs.push((form, text, sm));
        }
    }
    let fails = parallel(&jobs, |(form, text, sm)| {
        let (ptx, v) = single_form_module(form, *sm);
        let table = form.check_target(Target::new(*sm, v)).is_ok();
        let asm = assemble(&ptxas, &ptx, *sm, &format!("{text}-{sm}"));
        (table != asm.is_ok()).then(|| {
            format!(
                "{text} ({} inputs) on sm_{sm}: table says {}, ptxas {}",
                form.inputs,
                if table { "legal" } else { "illegal" },
                match asm {
                    Ok(()) => "accepts".to_string(),
                    Err(e) => format!("rejects: {}", e.trim()),
                }
            )
        })
    });
    assert!(fails.is_empty(), "table and ptxas disagree:\n{}", fails.join("\n"));
    // The samples really straddle a boundary in the table: illegal below, legal at it.
    for &(text, inputs, below, at) in samples {
        let form = Instr::parse(text, inputs).unwrap();
        let ok = |sm: u32| form.check_target(Target::new(sm, PtxVersion::new(9, 0))).is_ok();
        assert!(!ok(below) && ok(at), "{text}: table boundary is not between sm_{below} and sm_{at}");
    }
}

/// PTX ISA versions ptxas 13.5 knows, for "one version below the requirement".
const VERSIONS: &[(u8, u8)] = &[
    (6, 3),
    (6, 4),
    (6, 5),
    (7, 0),
    (7, 1),
    (7, 2),
    (7, 3),
    (7, 4),
    (7, 5),
    (7, 6),
    (7, 7),
    (7, 8),
    (8, 0),
    (8, 1),
    (8, 2),
    (8, 3),
    (8, 4),
    (8, 5),
    (8, 6),
    (8, 7),
    (8, 8),
    (9, 0),
    (9, 1),
    (9, 2),
];

/// Every form of the table on sm_80, sm_90 and sm_100: a form the table calls legal assembles
/// (all of them in one module per sm), one it calls illegal for the target is rejected (each
/// alone), and one PTX ISA version below a form's requirement is rejected.
#[test]
fn every_form_agrees_with_ptxas_on_sm_80_90_100() {
    let Some(ptxas) = ptxas_or_skip("every_form_agrees_with_ptxas_on_sm_80_90_100") else { return };
    let forms = ptx::gen::legal_forms();
    let mut fails = Vec::new();
    let mut alone = Vec::new();
    for sm in [80u32, 90, 100] {
        let floor = kernel::min_ptx_for_sm(sm).unwrap();
        let legal: Vec<Instr> = forms
            .iter()
            .copied()
            .filter(|f| f.check_target(Target::new(sm, floor.max(f.requirement().ptx))).is_ok())
            .collect();
        let programs: Vec<Program> = legal.iter().map(single_form_program).collect();
        let module = kernel::module(&programs, sm, Mode::Outputs).unwrap();
        if let Err(e) = assemble(&ptxas, &module, sm, &format!("legal-sm{sm}")) {
            fails.push(format!(
                "sm_{sm}: the module of all {} legal forms is rejected:\n{}",
                legal.len(),
                explain(&module, &e)
            ));
        }
        for f in forms {
            let legal_here = legal.contains(f);
            if !legal_here {
                alone.push((*f, sm, None));
                continue;
            }
            // The lowest version the table allows on this sm (a form may need less on a later
            // sm than on its first: the fp8 cvts, PTX 8.1 on sm_89 and 7.8 on sm_90), and the
            // one below it, which ptxas must refuse.
            let versions = || VERSIONS.iter().map(|&(a, b)| PtxVersion::new(a, b));
            let need = versions().find(|&v| v >= floor && f.check_target(Target::new(sm, v)).is_ok()).unwrap();
            if need > floor {
                let prev = versions().rev().find(|v| *v < need).unwrap();
                if prev >= floor {
                    alone.push((*f, sm, Some(prev)));
                }
            }
        }
    }
    fails.extend(parallel(&alone, |(form, sm, version)| {
        let (mut ptx, _) = single_form_module(form, *sm);
        if let Some(v) = version {
            ptx = format!(".version {v}\n{}", ptx.split_once('\n').unwrap().1);
        }
        let tag = format!("alone-{sm}-{}-{}", form.inputs, form);
        assemble(&ptxas, &ptx, *sm, &tag).is_ok().then(|| match version {
            None => format!("{form} ({} inputs): the table says sm_{sm} lacks it, ptxas accepts it", form.inputs),
            Some(v) => format!("{form} ({} inputs): the table refuses PTX ISA {v} on sm_{sm}, ptxas accepts it", form.inputs),
        })
    }));
    assert!(fails.is_empty(), "table and ptxas disagree:\n{}", fails.join("\n"));
}

/// The instruction VM (ptx::vm) for sm_80, sm_90, sm_100 and sm_100a assembles, and its arms,
/// read back from the module text, are exactly the forms the generator can emit at that target
/// (every kind of form switched on; at sm_100a the f6/f4/ue8m0 and `.rs` `cvt`s too).
#[test]
fn vm_module_assembles_with_one_arm_per_generator_form_on_sm_80_90_100_100a() {
    use ptx::isa::Arch;
    use std::collections::BTreeSet;
    let Some(ptxas) = ptxas_or_skip("vm_module_assembles_with_one_arm_per_generator_form_on_sm_80_90_100_100a") else {
        return;
    };
    // (the -arch spelling after sm_, the module)
    let jobs: Vec<(String, String)> = ["80", "90", "100", "100a"]
        .iter()
        .map(|&sm| (sm.to_string(), ptx::vm::module(Arch::parse(sm).unwrap()).unwrap()))
        .collect();
    let mut fails = Vec::new();
    for (sm, module) in &jobs {
        let arch = Arch::parse(sm).unwrap();
        let cfg = GenConfig {
            approximate: true,
            contraction: true,
            undocumented: true,
            variant: arch.variant,
            ..GenConfig::for_target(arch.sm, ptx::vm::module_version(arch).unwrap())
        };
        let gen: BTreeSet<(String, usize)> =
            Generator::new(cfg).unwrap().forms().map(|f| (f.to_string(), f.inputs as usize)).collect();
        let listed = ptx::vm::emit::arms_in_module(module);
        let arms: BTreeSet<(String, usize)> = listed.iter().cloned().collect();
        if arms.len() != listed.len() {
            fails.push(format!("sm_{sm}: {} arms but {} distinct forms: a form has two arms", listed.len(), arms.len()));
        }
        let missing: Vec<_> = gen.difference(&arms).collect();
        let extra: Vec<_> = arms.difference(&gen).collect();
        if !missing.is_empty() || !extra.is_empty() {
            fails.push(format!(
                "sm_{sm}: forms the generator emits without an arm: {missing:?}; arms for forms it never emits: {extra:?}"
            ));
        }
    }
    fails.extend(parallel(&jobs, |(sm, module)| {
        assemble(&ptxas, module, sm, &format!("vm-sm{sm}")).err().map(|e| format!("vm sm_{sm}:\n{}", explain(module, &e)))
    }));
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

/// The GPU sweep module (ptx::vm::sweep) assembles for every form it supports on sm_80, sm_90
/// and sm_100: dense for all of them, filtered (the pre-filter's PTX twin) for the forms with
/// a pre-filter (approximate f32 ones and IEEE-rounded 16-bit add/sub/mul).
#[test]
fn gpu_sweep_modules_assemble_for_every_supported_form_on_sm_80_90_100() {
    use ptx::approx::prefilter::Prefilter;
    use ptx::vm::sweep::{self, Judging};
    let Some(ptxas) = ptxas_or_skip("gpu_sweep_modules_assemble_for_every_supported_form_on_sm_80_90_100") else {
        return;
    };
    let mut jobs: Vec<(u32, String, String)> = Vec::new();
    let (mut approx, mut rounded) = (0, std::collections::BTreeMap::<(u32, bool), usize>::new());
    for sm in [80u32, 90, 100] {
        for form in ptx::vm::arms(sm).unwrap().iter().filter(|f| sweep::unsupported(f).is_none()) {
            jobs.push((sm, format!("{form} dense"), sweep::module(form, sm, Judging::Dense).unwrap()));
            if let Some(pf) = Prefilter::of(form) {
                jobs.push((sm, format!("{form} filtered"), sweep::module(form, sm, Judging::Filtered(&pf)).unwrap()));
                match form.is_approximate() {
                    true => approx += 1,
                    false => *rounded.entry((sm, form.ty.scalar() == ptx::format::Scalar::BF16)).or_default() += 1,
                }
            }
        }
    }
    assert_eq!(approx, 3 * 6, "rcp, sqrt and rsqrt .approx{{.ftz}}.f32 have a pre-filter on each sm");
    // The rounded 16-bit add/sub/mul (9.7.4: .rn or none, .ftz and .sat for f16 only),
    // scalar and x2: f16 on every sm, bf16 (and with it cvt.bf16.f64) from sm_90.
    let want = [((80, false), 3 * 8 * 2), ((90, false), 48), ((90, true), 3 * 2 * 2), ((100, false), 48), ((100, true), 12)];
    assert_eq!(rounded, want.into_iter().collect(), "rounded pre-filters per (sm, bf16)");
    assert!(jobs.len() > 3 * 60, "{} modules", jobs.len());
    let fails = parallel(&jobs, |(sm, what, module)| {
        assemble(&ptxas, module, *sm, &format!("sweep-{sm}-{}", what.replace(' ', "-")))
            .err()
            .map(|e| format!("sweep module of {what} for sm_{sm}:\n{}", explain(module, &e)))
    });
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}
