//! Where an engine's own time goes (the cuda engine's module loads, packing, copies and
//! kernels), reported beside the campaign's time split: the H200 campaigns of 2026-11-29 showed
//! the engine's total only (docs/hardware/), which cannot tell copies from kernels.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

/// One stage of an engine call, in the order a batch goes through them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Getting each job's kernel: loading modules (a cubin assembled ahead, or the driver's
    /// JIT) and the instruction VM's module on first use.
    Modules,
    /// Encoding and packing jobs into the buffers the device reads (the `isa` mode's bytecode
    /// and narrow slots; the `compiled` mode's input words).
    Pack,
    /// Copying inputs to the device (host to device).
    Upload,
    /// Waiting for the device's kernels: the part of their time that nothing on the host hid.
    Wait,
    /// Copying results back (device to host).
    Download,
    /// Splitting the device's output into each job's results.
    Unpack,
}

impl Stage {
    pub const ALL: [Stage; 6] = [Stage::Modules, Stage::Pack, Stage::Upload, Stage::Wait, Stage::Download, Stage::Unpack];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Modules => "modules",
            Stage::Pack => "pack",
            Stage::Upload => "upload",
            Stage::Wait => "wait",
            Stage::Download => "download",
            Stage::Unpack => "unpack",
        }
    }
}

/// Microseconds per stage, summed over an engine's calls (`Engine::stage_times`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct StageTimes {
    us: BTreeMap<Stage, u64>,
}

impl StageTimes {
    /// Add the time since `since` to `stage`.
    pub fn add_since(&mut self, stage: Stage, since: Instant) {
        *self.us.entry(stage).or_default() += since.elapsed().as_micros() as u64;
    }

    /// Run `f`, its time counted to `stage`.
    pub fn time<T>(&mut self, stage: Stage, f: impl FnOnce() -> T) -> T {
        let t0 = Instant::now();
        let r = f();
        self.add_since(stage, t0);
        r
    }

    /// Microseconds counted to `stage`.
    pub fn us(&self, stage: Stage) -> u64 {
        self.us.get(&stage).copied().unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.us.is_empty()
    }

    /// `modules 0.1 s, pack 0.4 s, ...`: the stages met, in batch order.
    pub fn line(&self) -> String {
        let met = Stage::ALL.into_iter().filter(|s| self.us.contains_key(s));
        met.map(|s| format!("{} {:.2} s", s.name(), self.us(s) as f64 / 1e6)).collect::<Vec<_>>().join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_sum_and_print_in_batch_order_in_seconds() {
        let mut t = StageTimes::default();
        assert!(t.is_empty() && t.line().is_empty());
        t.us.insert(Stage::Download, 1_500_000);
        t.us.insert(Stage::Pack, 250_000);
        *t.us.entry(Stage::Pack).or_default() += 250_000;
        let slept = t.time(Stage::Wait, || {
            std::thread::sleep(std::time::Duration::from_millis(2));
            7
        });
        assert_eq!(slept, 7);
        assert!(t.us(Stage::Wait) >= 2_000, "{t:?}");
        assert_eq!(t.us(Stage::Upload), 0);
        assert!(t.line().starts_with("pack 0.50 s, wait 0.0"), "{}", t.line());
        assert!(t.line().ends_with(", download 1.50 s"), "{}", t.line());
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["pack"], 500_000);
        assert_eq!(json["download"], 1_500_000);
    }
}
