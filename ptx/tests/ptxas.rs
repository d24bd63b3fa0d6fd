//! Emitted kernels must assemble with NVIDIA's ptxas, and ptxas must agree with the ISA table
//! about which forms a target has.
//!
//! ptxas is found through env `PTXAS`, else the `nvidia` Python package (`pip install
//! nvidia-cuda-nvcc`), else `PATH`. Without it these tests fail, unless `PTXFUZZ_SKIP_PTXAS=1`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use arbitrary::Unstructured;
use ptx::gen::{seeded_bytes as bytes, GenConfig, Generator};
use ptx::isa::{Instr, PtxVersion, Target};
use ptx::kernel::{self, Mode};
use ptx::program::Program;

/// Programs per sm: the issue asks for at least 1000.
const PROGRAMS_PER_SM: usize = 1200;
/// Programs per module: large modules amortise ptxas start-up.
const PER_MODULE: usize = 100;

fn ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        let p = PathBuf::from(p);
        assert!(p.is_file(), "PTXAS={} is not a file", p.display());
        return Some(p);
    }
    let py = Command::new("python3")
        .args(["-c", "import nvidia\nfor p in nvidia.__path__: print(p)"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    if let Some(o) = py {
        for dir in String::from_utf8_lossy(&o.stdout).lines() {
            for sub in ["cu13", "cuda_nvcc", "cu12"] {
                let p = Path::new(dir).join(sub).join("bin").join("ptxas");
                if p.is_file() {
                    return Some(p);
                }
            }
        }
    }
    std::env::var_os("PATH").iter().flat_map(std::env::split_paths).map(|d| d.join("ptxas")).find(|p| p.is_file())
}

/// ptxas, or `None` when the user asked to skip; panics with the install command otherwise.
fn ptxas_or_skip(test: &str) -> Option<PathBuf> {
    if let Some(p) = ptxas() {
        return Some(p);
    }
    if std::env::var("PTXFUZZ_SKIP_PTXAS").as_deref() == Ok("1") {
        eprintln!("{test}: SKIPPED, ptxas not found and PTXFUZZ_SKIP_PTXAS=1");
        return None;
    }
    panic!(
        "ptxas not found: install it with `pip install nvidia-cuda-nvcc` (or set PTXAS=/path/to/ptxas); \
         set PTXFUZZ_SKIP_PTXAS=1 to skip these tests"
    );
}

/// Assemble `ptx` for `sm_XX`; `Err(ptxas's message)` when it is rejected.
fn assemble(ptxas: &Path, ptx: &str, sm: impl std::fmt::Display, tag: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{tag}.ptx"));
    std::fs::write(&file, ptx).unwrap();
    let out = Command::new(ptxas)
        .arg(format!("-arch=sm_{sm}"))
        .arg(&file)
        .args(["-o", "/dev/null"])
        .output()
        .expect("ptxas runs");
    let _ = std::fs::remove_file(&file);
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Run `jobs` on a few threads; collect the failures.
fn parallel<T: Sync>(jobs: &[T], f: impl Fn(&T) -> Option<String> + Sync) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 8);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut fails = Vec::new();
                    while let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                        fails.extend(f(job));
                    }
                    fails
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    })
}

/// ptxas's error lines with the PTX line each names, for a readable failure.
fn explain(ptx: &str, err: &str) -> String {
    let lines: Vec<&str> = ptx.lines().collect();
    let mut out = String::new();
    for e in err.lines().take(8) {
        out.push_str(e);
        let n =
            e.split(", line ").nth(1).and_then(|r| r.split(';').next()).and_then(|n| n.trim().parse::<usize>().ok());
        if let Some(l) = n.and_then(|n| lines.get(n.wrapping_sub(1))) {
            out.push_str(&format!("\n    > {}", l.trim()));
        }
        out.push('\n');
    }
    out
}

#[test]
fn generated_kernels_assemble_for_sm_80_90_100() {
    let Some(ptxas) = ptxas_or_skip("generated_kernels_assemble_for_sm_80_90_100") else { return };
    let mut jobs = Vec::new();
    for sm in [80u32, 90, 100] {
        // Every form ptxas 13.5 knows: approximate ones too, and unrounded add/sub/mul.
        let cfg =
            GenConfig { approximate: true, contraction: true, ..GenConfig::for_target(sm, PtxVersion::new(9, 0)) };
        let g = Generator::new(cfg).unwrap();
        let data = bytes(sm as u64, 256 * PROGRAMS_PER_SM);
        let programs: Vec<Program> = data.chunks(256).map(|c| g.program(&mut Unstructured::new(c)).unwrap()).collect();
        for (m, chunk) in programs.chunks(PER_MODULE).enumerate() {
            let mode = if m % 2 == 0 { Mode::Outputs } else { Mode::Trace };
            jobs.push((sm, format!("gen-sm{sm}-{m}"), kernel::module(chunk, sm, mode).unwrap()));
        }
    }
    let fails = parallel(&jobs, |(sm, tag, ptx)| {
        assemble(&ptxas, ptx, *sm, tag).err().map(|e| format!("{tag}:\n{}", explain(ptx, &e)))
    });
    assert!(fails.is_empty(), "{} of {} modules rejected by ptxas:\n{}", fails.len(), jobs.len(), fails.join("\n"));
}

/// A one-instruction program around `form`.
fn single_form_program(form: &Instr) -> Program {
    let ty = form.ty.name();
    let srcs: Vec<String> = (0..form.inputs).map(|i| format!("%x{i}")).collect();
    let text = format!(
        "// inputs: {}\n{form} %d, {};\n// outputs: %d\n",
        srcs.iter().map(|s| format!("{s}:{ty}")).collect::<Vec<_>>().join(", "),
        srcs.join(", ")
    );
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
        let table = form.check_target(Target { sm: *sm, ptx: v }).is_ok();
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
        let ok = |sm: u32| form.check_target(Target { sm, ptx: PtxVersion::new(9, 0) }).is_ok();
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
            .filter(|f| f.check_target(Target { sm, ptx: floor.max(f.requirement().ptx) }).is_ok())
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
            } else if f.requirement().ptx > floor {
                let prev = VERSIONS
                    .iter()
                    .rev()
                    .map(|&(a, b)| PtxVersion::new(a, b))
                    .find(|v| *v < f.requirement().ptx)
                    .unwrap();
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
            Some(v) => format!(
                "{form} ({} inputs): the table needs PTX ISA {}, ptxas accepts {v} on sm_{sm}",
                form.inputs,
                form.requirement().ptx
            ),
        })
    }));
    assert!(fails.is_empty(), "table and ptxas disagree:\n{}", fails.join("\n"));
}

/// The instruction VM (ptx::vm) for sm_80, sm_90 and sm_100 assembles, and its arms, read back
/// from the module text, are exactly the forms the generator can emit at that sm (every kind of
/// form switched on).
#[test]
fn vm_module_assembles_with_one_arm_per_generator_form_on_sm_80_90_100() {
    use std::collections::BTreeSet;
    let Some(ptxas) = ptxas_or_skip("vm_module_assembles_with_one_arm_per_generator_form_on_sm_80_90_100") else {
        return;
    };
    let jobs: Vec<(u32, String)> = [80u32, 90, 100].iter().map(|&sm| (sm, ptx::vm::module(sm).unwrap())).collect();
    let mut fails = Vec::new();
    for (sm, module) in &jobs {
        let cfg = GenConfig {
            approximate: true,
            contraction: true,
            undocumented: true,
            ..GenConfig::for_target(*sm, ptx::vm::module_version(*sm).unwrap())
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
        assemble(&ptxas, module, *sm, &format!("vm-sm{sm}")).err().map(|e| format!("vm sm_{sm}:\n{}", explain(module, &e)))
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

/// One assembly check: `module` for `target` (`90`, `100a`), and whether the form's table says
/// that target may run it.
struct Job {
    target: String,
    form: String,
    module: String,
    legal: bool,
}

impl Job {
    fn new(target: impl std::fmt::Display, form: impl std::fmt::Display, module: String, legal: bool) -> Job {
        Job { target: target.to_string(), form: form.to_string(), module, legal }
    }
}

/// Assemble every job; fail, listing the first few, where ptxas and the table disagree.
fn assert_ptxas_agrees(ptxas: &Path, tag: &str, jobs: &[Job]) {
    let fails = parallel(jobs, |j| {
        let got = assemble(ptxas, &j.module, &j.target, &format!("{tag}-{}-{}", j.target, j.form.replace('.', "-"))).map_err(|e| explain(&j.module, &e));
        match (j.legal, got) {
            (true, Err(e)) => Some(format!("{} on sm_{}: documented and allowed, but ptxas refuses it:\n{e}", j.form, j.target)),
            (false, Ok(())) => Some(format!("{} on sm_{}: the table says it needs a later target, but ptxas accepts it", j.form, j.target)),
            _ => None,
        }
    });
    assert!(fails.is_empty(), "{} of {} failed; first: {}", fails.len(), jobs.len(), fails.iter().take(5).cloned().collect::<Vec<_>>().join("\n"));
}

/// A one-instruction kernel of a `cvt` form (its operands loaded, its result stored).
fn cvt_module(c: &ptx::cvt::Cvt, sm: u32, ptx: PtxVersion) -> String {
    use ptx::format::Scalar;
    let reg = |s: Scalar, packed: bool| match (s, packed) {
        (_, true) => ".b32",
        (Scalar::F16 | Scalar::BF16, _) => ".b16",
        (Scalar::F32, _) => ".f32",
        (Scalar::F64, _) => ".f64",
    };
    let (d, a) = (reg(c.dst, c.packed), reg(c.src, false));
    let operands = if c.packed { "%a, %b" } else { "%a" };
    format!(
        ".version {ptx}\n.target sm_{sm}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg {d} %d;\n\t.reg {a} %a;\n\t.reg {a} %b;\n\t.reg .b64 %x;\n\
         \tld.param.u64 %x, [p];\n\tld.global{a} %a, [%x];\n\tld.global{a} %b, [%x+8];\n\t{c} %d, {operands};\n\tst.global{d} [%x], %d;\n\tret;\n}}\n"
    )
}

/// Every documented float-to-float `cvt` form (`ptx::cvt`, issue 16) assembles on sm_80, 90
/// and 100 at its required PTX version when its requirement allows the sm, and ptxas refuses
/// it on sm_80 when the table says it needs sm_90 (so the requirements are not too strict
/// either).
#[test]
fn documented_cvt_forms_assemble_exactly_where_their_requirement_allows() {
    let Some(ptxas) = ptxas_or_skip("documented_cvt_forms_assemble_exactly_where_their_requirement_allows") else {
        return;
    };
    let mut jobs: Vec<Job> = Vec::new();
    for c in ptx::cvt::Cvt::all() {
        let r = c.requirement();
        for sm in [80u32, 90, 100] {
            let ptx = kernel::min_ptx_for_sm(sm).unwrap().max(r.ptx);
            jobs.push(Job::new(sm, &c, cvt_module(&c, sm, ptx), sm >= r.sm));
        }
    }
    assert!(jobs.len() > 300, "{}", jobs.len());
    assert_ptxas_agrees(&ptxas, "cvt", &jobs);
}

/// A one-instruction kernel of a float-integer `cvt` form, each register of the operand's own
/// type (ptxas 13.5 refuses an 8-bit operand in a 16-bit register when the other type is
/// bf16, though the section's Notes allow wider registers except for bf16 operands).
fn cvt_int_module(c: &ptx::cvt::int::CvtInt, sm: u32, ptx: PtxVersion) -> String {
    use ptx::format::Scalar;
    let float = match c.float {
        Scalar::F16 | Scalar::BF16 => ".b16",
        Scalar::F32 => ".f32",
        Scalar::F64 => ".f64",
    };
    let int = format!(".{}{}", if c.int.signed { 's' } else { 'u' }, c.int.bits);
    let (d, a) = if c.to_int { (int, float.to_string()) } else { (float.to_string(), int) };
    format!(
        ".version {ptx}\n.target sm_{sm}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg {d} %d;\n\t.reg {a} %a;\n\t.reg .b64 %x;\n\
         \tld.param.u64 %x, [p];\n\tld.global{a} %a, [%x];\n\t{c} %d, %a;\n\tst.global{d} [%x], %d;\n\tret;\n}}\n"
    )
}

/// Every documented float-integer `cvt` form (`ptx::cvt::int`, issue 16) assembles on sm_80,
/// 90 and 100 when its requirement allows the sm, and ptxas refuses it on sm_80 when the
/// table says sm_90.
#[test]
fn documented_float_integer_cvt_forms_assemble_exactly_where_their_requirement_allows() {
    let Some(ptxas) = ptxas_or_skip("documented_float_integer_cvt_forms_assemble_exactly_where_their_requirement_allows") else {
        return;
    };
    let mut jobs: Vec<Job> = Vec::new();
    for c in ptx::cvt::int::CvtInt::all() {
        let r = c.requirement();
        for sm in [80u32, 90, 100] {
            let ptx = kernel::min_ptx_for_sm(sm).unwrap().max(r.ptx);
            jobs.push(Job::new(sm, &c, cvt_int_module(&c, sm, ptx), sm >= r.sm));
        }
    }
    assert_eq!(jobs.len(), 3 * 576);
    assert_ptxas_agrees(&ptxas, "cvti", &jobs);
}

/// A one-instruction kernel of a `setp`, `set` or `selp` form: sources loaded in registers of
/// the type the section names (`.b16` for `.f16`/`.bf16`, `.b32` for the packed types), `c` a
/// predicate made by a comparison, the result stored.
fn compare_module(c: &ptx::compare::Compare, sm: u32, ptx: PtxVersion) -> String {
    use ptx::compare::{Kind, Ty};
    let reg = |t: Ty| match t {
        Ty::Float(ptx::Scalar::F16 | ptx::Scalar::BF16) => ".b16".to_string(),
        Ty::Packed(_) => ".b32".to_string(),
        t => format!(".{}", t.name()),
    };
    let a = reg(c.ty);
    let (decl, instr, store) = match c.kind {
        Kind::Setp => {
            let dst = if matches!(c.ty, Ty::Float(ptx::Scalar::F16 | ptx::Scalar::BF16)) { "%p" } else { "%p|%q" };
            ("".to_string(), format!("{c} {dst}, %a, %b{};", if c.bool_op.is_some() { ", !%c" } else { "" }), "selp.u32 %r, 1, 0, %p;\n\tst.global.u32 [%x], %r;".to_string())
        }
        Kind::Set { dtype } => {
            let d = reg(dtype);
            (format!("\t.reg {d} %d;\n"), format!("{c} %d, %a, %b{};", if c.bool_op.is_some() { ", %c" } else { "" }), format!("st.global{d} [%x], %d;"))
        }
        Kind::Selp => (format!("\t.reg {a} %d;\n"), format!("{c} %d, %a, %b, %c;"), format!("st.global{a} [%x], %d;")),
    };
    format!(
        ".version {ptx}\n.target sm_{sm}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n{decl}\t.reg {a} %a;\n\t.reg {a} %b;\n\
         \t.reg .pred %p, %q, %c;\n\t.reg .u32 %r;\n\t.reg .b64 %x;\n\tld.param.u64 %x, [p];\n\tld.global{a} %a, [%x];\n\tld.global{a} %b, [%x+8];\n\
         \tld.global.u32 %r, [%x+16];\n\tsetp.ne.u32 %c, %r, 0;\n\t{instr}\n\t{store}\n\tret;\n}}\n"
    )
}

/// Every documented `setp`, `set` and `selp` form (`ptx::compare`, issue 16) assembles on
/// sm_90, and ptxas refuses it on sm_80 when the table says sm_90; one form in seven is also
/// assembled for sm_80 and sm_100 (legality does not depend on the sm otherwise; all 4,000 on
/// three sms took 108 s on 2 cores).
#[test]
fn documented_comparison_forms_assemble_exactly_where_their_requirement_allows() {
    let Some(ptxas) = ptxas_or_skip("documented_comparison_forms_assemble_exactly_where_their_requirement_allows") else {
        return;
    };
    let mut jobs: Vec<Job> = Vec::new();
    for (i, c) in ptx::compare::Compare::all().into_iter().enumerate() {
        let r = c.requirement();
        for (sm, due) in [(90u32, true), (80, r.sm > 80 || i % 7 == 0), (100, i % 7 == 3)] {
            if due {
                let ptx = kernel::min_ptx_for_sm(sm).unwrap().max(r.ptx);
                jobs.push(Job::new(sm, &c, compare_module(&c, sm, ptx), sm >= r.sm));
            }
        }
    }
    assert_ptxas_agrees(&ptxas, "cmp", &jobs);
}

/// A kernel that loads the sources of a narrow-format `cvt` and stores its destination.
fn narrow_module(c: &ptx::cvt::narrow::NarrowCvt, target: &str, ptx: PtxVersion) -> String {
    use ptx::cvt::narrow::Direction;
    let reg = |bits: u32| format!(".b{bits}");
    let src_bits = match c.dir {
        Direction::Down { .. } => 32,
        Direction::Up { src, .. } => src.packed_bits(),
    };
    let (s, d) = (reg(src_bits), reg(c.dst_bits()));
    let srcs = if c.inputs() == 2 { "%a, %b" } else { "%a" };
    format!(
        ".version {ptx}\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg {s} %a, %b;\n\t.reg {d} %d;\n\t.reg .b64 %x;\n\
         \tld.param.u64 %x, [p];\n\tld.global{s} %a, [%x];\n\tld.global{s} %b, [%x+8];\n\t{c} %d, {srcs};\n\tst.global{d} [%x], %d;\n\tret;\n}}\n"
    )
}

/// Every documented narrow-format form assembles on the target its requirement names and is
/// refused one step below it: sm_80 for the sm_89 forms, plain sm_100 for the sm_100a/f ones.
#[test]
fn documented_narrow_format_cvt_forms_assemble_on_their_target_and_not_below() {
    use ptx::cvt::narrow::{NarrowCvt, Variant};
    let Some(ptxas) = ptxas_or_skip("documented_narrow_format_cvt_forms_assemble_on_their_target_and_not_below") else {
        return;
    };
    let mut jobs: Vec<Job> = Vec::new();
    for c in NarrowCvt::all() {
        let n = c.needs();
        let ptx = kernel::min_ptx_for_sm(n.sm).unwrap().max(n.ptx);
        jobs.push(Job::new(n.target().trim_start_matches("sm_"), &c, narrow_module(&c, &n.target(), ptx), true));
        let below = if n.variant == Variant::Plain { 80 } else { n.sm };
        jobs.push(Job::new(below, &c, narrow_module(&c, &format!("sm_{below}"), ptx), false));
    }
    assert_ptxas_agrees(&ptxas, "narrow", &jobs);
}

/// Every mixed-precision form (9.7.5) assembles on sm_100 with PTX 8.6 and is refused on sm_90.
#[test]
fn mixed_precision_forms_assemble_on_sm_100_and_not_on_sm_90() {
    let Some(ptxas) = ptxas_or_skip("mixed_precision_forms_assemble_on_sm_100_and_not_on_sm_90") else {
        return;
    };
    let mut jobs: Vec<Job> = Vec::new();
    for m in ptx::mixed::Mixed::all() {
        let srcs = if m.inputs() == 3 { "%h, %h, %f" } else { "%h, %f" };
        for (sm, legal) in [(100u32, true), (90, false)] {
            let module = format!(
                ".version {}\n.target sm_{sm}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg .f32 %f, %d;\n\t.reg .b16 %h;\n\t.reg .b64 %x;\n\
                 \tld.param.u64 %x, [p];\n\tld.global.f32 %f, [%x];\n\tld.global.b16 %h, [%x+4];\n\t{m} %d, {srcs};\n\tst.global.f32 [%x], %d;\n\tret;\n}}\n",
                m.requirement().ptx
            );
            jobs.push(Job::new(sm, m, module, legal));
        }
    }
    assert_ptxas_agrees(&ptxas, "mixed", &jobs);
}
