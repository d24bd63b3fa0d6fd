//! End to end through `exec` engines with ONE planted semantic deviation each
//! (`ptxfuzz-planted-engine`, worker/src/bin): a campaign must find each within a bounded
//! number of cases and minimize it to a reproducer of at most 2 instructions, whose finding
//! names the deviated instruction and class; a faithful engine must give no finding.
//! The reproducers then re-run through `ptxfuzz repro`, and their `.cu` and `.ptx` files
//! are compiled by nvcc and ptxas (no GPU needed to compile).
//!
//! nvcc is found through env `NVCC`, else the `nvidia` Python package (`pip install
//! nvidia-cuda-nvcc`), else `PATH`; without it the compile step fails unless
//! `PTXFUZZ_SKIP_NVCC=1`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use common::scratch;

const PTXFUZZ: &str = env!("CARGO_BIN_EXE_ptxfuzz");
const PLANTED: &str = env!("CARGO_BIN_EXE_ptxfuzz-planted-engine");

/// Run `ptxfuzz campaign` against the planted engine; returns the finding folders' repro.json.
fn campaign(deviation: &str, extra: &[&str], out: &Path) -> Vec<Value> {
    let target = format!("exec:{PLANTED} {deviation}");
    let o = Command::new(PTXFUZZ)
        .args(["campaign", "--target", &target, "--seed", "1", "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "campaign failed:\n{stdout}\n{stderr}");
    eprintln!("{deviation}:\n{stdout}");
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["totals"]["faults"], serde_json::json!({}), "engine faults: {stdout}");
    findings(out)
}

fn findings(out: &Path) -> Vec<Value> {
    let mut v: Vec<Value> = std::fs::read_dir(out)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("repro.json"))
        .filter(|p| p.is_file())
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect();
    v.sort_by_key(|r| r["found_after_cases"].as_u64());
    v
}

/// What each planted bug must produce.
struct Planted {
    deviation: &'static str,
    /// Campaign options that aim it (families, types) and bound it (cases).
    args: &'static [&'static str],
    /// Every finding's signature starts with one of these (the deviated instruction).
    instr_prefixes: &'static [&'static str],
    /// Some finding has this class.
    class: &'static str,
    /// The first finding comes within this many cases.
    within: u64,
    /// The catalogue entry (docs/triage.md) that matches the deviation: it must fit every
    /// finding (`ptxfuzz explain --json`'s `fits`, issue #13) and explain more of them than any
    /// other entry (a minimized case often fits an earlier entry as well).
    explained_by: &'static str,
}

const PLANTED_BUGS: &[Planted] = &[
    Planted {
        deviation: "ftz-result",
        args: &["--families", "add,sub,mul,fma,div", "--types", "f32", "--cases", "100000"],
        instr_prefixes: &["add.", "sub.", "mul.", "fma.", "div."],
        class: "ftz",
        within: 100_000,
        explained_by: "ftz-inputs-only",
    },
    Planted {
        deviation: "rz-as-rn",
        args: &["--families", "add", "--types", "f32", "--cases", "50000"],
        instr_prefixes: &["add.rz.f32~", "add.rz.ftz.f32~", "add.rz.sat.f32~", "add.rz.ftz.sat.f32~"],
        class: "rounding",
        within: 50_000,
        explained_by: "other-rounding",
    },
    Planted {
        deviation: "fma-split",
        args: &["--families", "fma", "--types", "f32,f64", "--cases", "50000"],
        instr_prefixes: &["fma."],
        class: "rounding",
        within: 50_000,
        explained_by: "fma-unfused",
    },
    Planted {
        deviation: "sat-nan",
        args: &["--families", "add,sub,mul,fma", "--types", "f32,f16", "--cases", "100000"],
        instr_prefixes: &["add.", "sub.", "mul.", "fma."],
        class: "sat",
        within: 100_000,
        explained_by: "clamp-dropped",
    },
    Planted {
        deviation: "minmax-zeros",
        args: &["--families", "min,max", "--cases", "100000"],
        instr_prefixes: &["min.", "max."],
        class: "signed-zero",
        within: 100_000,
        explained_by: "folded-to-operand",
    },
    Planted {
        deviation: "rcp-binade",
        args: &["--families", "rcp", "--types", "f32", "--cases", "100000"],
        instr_prefixes: &["rcp.approx."],
        class: "bound-exceeded",
        within: 100_000,
        explained_by: "bound-exceeded",
    },
    Planted {
        deviation: "cvt-rz-as-rn",
        args: &["--families", "cvt,fma", "--types", "f32,bf16", "--cases", "100000"],
        // Every `.rz` form from f32 to bf16 the engine deviates on, `.ftz` too (drawn since the
        // tf32 forms joined the cvt group and moved the draws).
        instr_prefixes: &[
            "cvt.rz.bf16.f32~",
            "cvt.rz.ftz.bf16.f32~",
            "cvt.rz.relu.bf16.f32~",
            "cvt.rz.satfinite.bf16.f32~",
            "cvt.rz.relu.satfinite.bf16.f32~",
        ],
        class: "rounding",
        within: 100_000,
        explained_by: "other-rounding",
    },
    Planted {
        deviation: "selp-swapped",
        args: &["--families", "setp,selp,add", "--types", "f32", "--cases", "100000"],
        // The engine swaps every selp: the 32-bit integer ones read integer inputs.
        instr_prefixes: &["selp.f32~", "selp.u32~", "selp.s32~"],
        class: "comparison",
        within: 100_000,
        explained_by: "selection-inverted",
    },
    Planted {
        deviation: "cvt-rni-as-rzi",
        args: &["--families", "cvt", "--types", "f32", "--cases", "100000"],
        instr_prefixes: &["cvt.rni.s32.f32~", "cvt.rni.ftz.s32.f32~", "cvt.rni.sat.s32.f32~", "cvt.rni.ftz.sat.s32.f32~"],
        class: "rounding",
        within: 100_000,
        explained_by: "other-rounding",
    },
    Planted {
        // Found only through an integer input: a float-to-integer cvt never writes an
        // integer that f32 cannot hold.
        deviation: "i32-f32-rn-as-rz",
        args: &["--families", "cvt", "--types", "f32", "--cases", "100000"],
        instr_prefixes: &["cvt.rn.f32.s32~", "cvt.rn.f32.u32~"],
        class: "rounding",
        within: 100_000,
        explained_by: "other-rounding",
    },
    Planted {
        // The mixed-precision forms exist from sm_100 on (9.7.5): the default target has none.
        deviation: "mixed-bf16-as-f16",
        args: &["--sm", "100", "--families", "add,sub,fma", "--types", "f32,bf16", "--cases", "100000"],
        instr_prefixes: &["add.", "sub.", "fma."],
        class: "gross",
        within: 100_000,
        explained_by: "bf16-as-f16",
    },
    Planted {
        // A packed setp's pair (9.7.7.2) is a program output, compared bit by bit.
        deviation: "setp-pair-swapped",
        args: &["--families", "setp,add", "--types", "f16x2,bf16x2", "--cases", "100000"],
        instr_prefixes: &["setp."],
        class: "comparison",
        within: 100_000,
        explained_by: "predicates-swapped",
    },
    Planted {
        deviation: "ue8m0-rz-as-rp",
        // The form exists on sm_100a only: the campaign, its reproducer and the files made
        // from it name that target.
        args: &["--sm", "100a", "--families", "cvt", "--types", "f32,bf16x2", "--cases", "100000"],
        instr_prefixes: &[
            "cvt.rz.ue8m0x2.f32~",
            "cvt.rz.ue8m0x2.bf16x2~",
            "cvt.rz.satfinite.ue8m0x2.f32~",
            "cvt.rz.satfinite.ue8m0x2.bf16x2~",
        ],
        class: "rounding",
        within: 100_000,
        explained_by: "other-rounding",
    },
];

#[test]
fn each_planted_deviation_is_found_and_minimized_to_at_most_two_instructions() {
    let mut report = Vec::new();
    for bug in PLANTED_BUGS {
        let out = scratch("planted", bug.deviation);
        let found = campaign(bug.deviation, bug.args, &out);
        assert!(!found.is_empty(), "{}: no finding", bug.deviation);
        for r in &found {
            let sig = r["signature"].as_str().unwrap();
            let n = r["program"]["body"].as_array().unwrap().len();
            assert!(n <= 2, "{}: {sig} has {n} instructions:\n{}", bug.deviation, r["program_text"]);
            assert!(
                bug.instr_prefixes.iter().any(|p| sig.starts_with(p)),
                "{}: finding {sig} is not about the deviated instruction",
                bug.deviation
            );
            assert!(!r["failing_outputs"].as_array().unwrap().is_empty(), "{sig}: the target's bits are allowed");
        }
        assert!(
            found.iter().any(|r| r["class"] == bug.class),
            "{}: no finding of class {}",
            bug.deviation,
            bug.class
        );
        let first = found[0]["found_after_cases"].as_u64().unwrap();
        assert!(first <= bug.within, "{}: first found after {first} cases", bug.deviation);
        let max_len = found.iter().map(|r| r["program"]["body"].as_array().unwrap().len()).max().unwrap();
        report.push(format!(
            "{:<13} first after {:>6} cases, {:>3} findings, reproducers <= {} instruction(s)",
            bug.deviation,
            first,
            found.len(),
            max_len
        ));
        check_explained(&out, bug);
        check_reproducer(&out, &found[0], bug.deviation);
        let _ = std::fs::remove_dir_all(&out);
    }
    eprintln!("{}", report.join("\n"));
}

/// `ptxfuzz explain --json` on the campaign: the planted rule's entry fits every finding and
/// is the explanation given most often.
fn check_explained(out: &Path, bug: &Planted) {
    let o = Command::new(PTXFUZZ).arg("explain").arg(out).arg("--json").output().unwrap();
    assert!(o.status.success(), "explain: {}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut named: std::collections::BTreeMap<String, usize> = Default::default();
    for f in v["findings"].as_array().unwrap() {
        let fits: Vec<&str> = f["fits"].as_array().unwrap().iter().filter_map(|x| x.as_str()).collect();
        assert!(fits.contains(&bug.explained_by), "{}: {} fits {fits:?}, not {}", bug.deviation, f["signature"], bug.explained_by);
        *named.entry(f["explanation"]["id"].as_str().unwrap().to_string()).or_default() += 1;
    }
    let top = named.iter().max_by_key(|(_, n)| **n).map(|(id, _)| id.as_str());
    assert_eq!(top, Some(bug.explained_by), "{}: explanations given {named:?}", bug.deviation);
    eprintln!("{}: explained as {named:?}", bug.deviation);
}

/// `ptxfuzz repro` says REPRODUCED on the planted engine and not on the interpreter; the
/// folder's .cu and .ptx compile.
fn check_reproducer(out: &Path, r: &Value, deviation: &str) {
    let folder = out.join(r["signature"].as_str().unwrap());
    let run = |target: Option<&str>| {
        let mut c = Command::new(PTXFUZZ);
        c.arg("repro").arg(&folder);
        if let Some(t) = target {
            c.args(["--target", t]);
        }
        c.output().unwrap()
    };
    // The recorded target is an exec: command, which repro runs only when asked by name.
    let refused = run(None);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{deviation}: {err}");
    assert!(err.contains(r["target"].as_str().unwrap()) && err.contains("--target"), "{deviation}: {err}");
    let again = run(r["target"].as_str());
    let text = String::from_utf8_lossy(&again.stdout);
    assert_eq!(again.status.code(), Some(0), "{deviation}: repro on the recorded target:\n{text}");
    assert!(text.contains("verdict: REPRODUCED"), "{text}");
    // The failing output in hex and decimal, got and recorded alike.
    let line = text.lines().find(|l| l.starts_with("output ") && l.ends_with("NOT ALLOWED")).expect("a failing output line");
    let after = |word: &str| line.split(word).nth(1).and_then(|t| t.split_whitespace().nth(1)).unwrap_or_default().to_string();
    assert!(after("got ").starts_with('(') && after("recorded ").starts_with('('), "{deviation}: {line}");
    // An exec engine executes instruction by instruction: the finding is an `isa` one.
    assert_eq!(r["exec"], "isa", "{deviation}");
    assert!(text.contains("execution mode: isa"), "{text}");
    let interp = run(Some("interp"));
    assert_eq!(interp.status.code(), Some(3), "{deviation}: the interpreter agrees with itself");
    let arch = format!("sm_{}{}", r["sm"].as_u64().unwrap(), r["variant"].as_str().unwrap_or(""));
    let ptx = std::fs::read_to_string(folder.join("repro.ptx")).unwrap();
    assert!(ptx.contains(&format!(".target {arch}\n")), "{deviation}: {arch}\n{ptx}");
    compile(&folder, &arch, r["variant"].is_string());
}

fn nvidia_tool(env: &str, name: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env) {
        return Some(PathBuf::from(p));
    }
    let py = Command::new("python3")
        .args(["-c", "import nvidia\nfor p in nvidia.__path__: print(p)"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    if let Some(o) = py {
        for dir in String::from_utf8_lossy(&o.stdout).lines() {
            for sub in ["cu13", "cuda_nvcc", "cu12"] {
                let p = Path::new(dir).join(sub).join("bin").join(name);
                if p.is_file() {
                    return Some(p);
                }
            }
        }
    }
    std::env::var_os("PATH").iter().flat_map(std::env::split_paths).map(|d| d.join(name)).find(|p| p.is_file())
}

/// nvcc builds repro.cu (device code through ptxas, host code through the C++ compiler) with
/// every warning an error; ptxas assembles repro.ptx.
/// A suffixed `arch` (`sm_100a`) is given to nvcc as `-gencode`, as repro.cu says: its
/// `-arch=sm_100a` also embeds plain `compute_100` PTX, which ptxas refuses for such forms.
fn compile(folder: &Path, arch: &str, suffixed: bool) {
    let Some(nvcc) = nvidia_tool("NVCC", "nvcc") else {
        if std::env::var("PTXFUZZ_SKIP_NVCC").as_deref() == Ok("1") {
            eprintln!("SKIPPED: nvcc not found and PTXFUZZ_SKIP_NVCC=1");
            return;
        }
        panic!("nvcc not found: install it with `pip install nvidia-cuda-nvcc` (or set NVCC=/path/to/nvcc); set PTXFUZZ_SKIP_NVCC=1 to skip");
    };
    let exe = folder.join("repro-bin");
    let target: Vec<String> = match suffixed {
        false => vec![format!("-arch={arch}")],
        true => vec!["-gencode".into(), format!("arch={},code={arch}", arch.replace("sm_", "compute_"))],
    };
    let cu = std::fs::read_to_string(folder.join("repro.cu")).unwrap();
    assert!(cu.contains(&format!("nvcc {} -o repro", target.join(" "))), "{cu}");
    let o = Command::new(&nvcc)
        .args(&target)
        .args(["-Werror", "all-warnings", "-o"])
        .arg(&exe)
        .arg(folder.join("repro.cu"))
        .output()
        .unwrap();
    assert!(o.status.success(), "nvcc {}: {}", folder.display(), String::from_utf8_lossy(&o.stderr));
    assert!(exe.is_file());
    let ptxas = nvcc.with_file_name("ptxas");
    let o = Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .arg(folder.join("repro.ptx"))
        .args(["-o", "/dev/null"])
        .output()
        .unwrap();
    assert!(o.status.success(), "ptxas {}: {}", folder.display(), String::from_utf8_lossy(&o.stderr));
}

#[test]
fn faithful_engine_gives_no_finding() {
    for mode in [&[][..], &["--trace"][..]] {
        let out = scratch("planted", &format!("faithful{}", mode.len()));
        let mut args = vec!["--cases", "200000"];
        args.extend_from_slice(mode);
        let found = campaign("faithful", &args, &out);
        assert!(found.is_empty(), "findings against a faithful engine: {:?}", found.iter().map(|r| &r["signature"]).collect::<Vec<_>>());
        let summary: Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
        assert_eq!(summary["totals"]["cases"], 200000);
        assert_eq!(summary["totals"]["mismatches"], 0);
        let _ = std::fs::remove_dir_all(&out);
    }
}

#[test]
fn sweep_measures_the_planted_rcp_error_in_its_binade_only() {
    let target = format!("exec:{PLANTED} rcp-binade");
    let o = Command::new(PTXFUZZ)
        .args(["sweep", "rcp.approx.f32", "--target", &target, "--limit", "200000", "--stride", "0x9e3779b1", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    eprintln!("{r}");
    assert_eq!(r["inputs"], 200000);
    let mismatches = r["mismatches"].as_u64().unwrap();
    // [1, 2) and (-2, -1] are 2^24 of the 2^32 inputs: about 1/256 of an even sample.
    assert!((500..=1100).contains(&mismatches), "{mismatches}");
    assert_eq!(r["max_ulps"], 2);
    assert_eq!(r["histogram"][2], mismatches, "every mismatch is the planted 2-ulp error");
    for e in r["examples"].as_array().unwrap() {
        let x = u32::from_str_radix(e["operands"][0].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
        assert_eq!((x >> 23) & 0xff, 127, "mismatch outside the planted binade: {e}");
    }
    let faithful = Command::new(PTXFUZZ)
        .args(["sweep", "rcp.approx.f32", "--target", &format!("exec:{PLANTED} faithful"), "--limit", "50000", "--stride", "0x9e3779b1", "--json"])
        .output()
        .unwrap();
    let r: Value = serde_json::from_slice(&faithful.stdout).unwrap();
    assert_eq!(r["mismatches"], 0);
    assert_eq!(r["max_ulps"], 0);
}
