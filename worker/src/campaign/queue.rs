//! How the main loop takes batches from the source: each batch is planned on arrival (every
//! program's execution mode, `split`), and the batches after the current one that the source
//! has ready, up to the engine's `Engine::prepare_depth`, are handed to the engine to prepare
//! (`Engine::prepare`: on a GPU, ptxas assembles their `compiled` modules while the current
//! batch runs and is judged). A batch that arrives unprepared (the first, or one the source
//! was late with) is handed over before the next, so that its own modules are assembled first.

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use super::fused::Done;
use super::source::Batch;
use super::split::Split;
use crate::compare::Verdicts;
use crate::oracles::{Engine, EngineFault, Exec, Job};

/// A batch with the execution mode of each of its programs.
pub struct Planned {
    pub batch: Batch,
    pub execs: Vec<Exec>,
}

impl Planned {
    /// Plan `batch`: every item takes its place in the split, run or not, so a program's mode
    /// depends on its position alone.
    pub fn new(batch: Batch, split: &mut Split) -> Planned {
        let execs = batch.items.iter().map(|_| split.assign()).collect();
        Planned { batch, execs }
    }

    /// The jobs `target` supports, in order, and the number of programs it does not.
    pub fn jobs(&self, target: &dyn Engine, trace: bool) -> (Vec<Job<'_>>, u64) {
        let supported = self.supported(target);
        let unsupported = supported.iter().filter(|&&ok| !ok).count() as u64;
        (self.jobs_of(&supported, trace), unsupported)
    }

    /// Which items `target` supports, in order (an item judged where it was generated says
    /// for itself: `campaign::fused`).
    pub fn supported(&self, target: &dyn Engine) -> Vec<bool> {
        self.batch
            .items
            .iter()
            .map(|i| match &i.done {
                Some(done) => !matches!(done, Done::Unsupported),
                None => target.supports(&i.program),
            })
            .collect()
    }

    /// For each job of [`Planned::jobs_of`], its verdicts if it was judged where it was
    /// generated (`campaign::fused`), else `None`.
    pub fn done_of(&self, supported: &[bool]) -> Vec<Option<&Result<Verdicts, EngineFault>>> {
        let items = self.batch.items.iter().zip(supported).filter(|(_, &ok)| ok);
        items
            .map(|(item, _)| match &item.done {
                Some(Done::Judged(v)) => Some(v),
                _ => None,
            })
            .collect()
    }

    /// The jobs of the items `supported` marks, in order.
    pub fn jobs_of(&self, supported: &[bool], trace: bool) -> Vec<Job<'_>> {
        let items = self.batch.items.iter().zip(&self.execs).zip(supported);
        items.filter(|(_, &ok)| ok).map(|((item, &exec), _)| Job::new(&item.program, &item.cases, trace).with_exec(exec)).collect()
    }
}

/// The batches between the source and the main loop.
pub struct Queue {
    rx: Receiver<Batch>,
    split: Split,
    /// The batches after the current one, planned and prepared, oldest first.
    prepared: VecDeque<Planned>,
}

impl Queue {
    pub fn new(rx: Receiver<Batch>, split: Split) -> Queue {
        Queue { rx, split, prepared: VecDeque::new() }
    }

    /// The next batch to run (waiting up to `wait` for the source), after handing it to
    /// `target.prepare` if it was not yet, then the ones after it that the source has, up to
    /// `target.prepare_depth()` prepared. `Err(Timeout)`: nothing yet;
    /// `Err(Disconnected)`: the source is done and every batch was taken.
    /// `time` gets the microseconds spent waiting for the source and preparing.
    pub fn take(&mut self, target: &mut dyn Engine, trace: bool, wait: Duration, time: &mut super::stats::TimeSplit) -> Result<Planned, RecvTimeoutError> {
        let t0 = std::time::Instant::now();
        let (current, prepared) = match self.prepared.pop_front() {
            Some(p) => (p, true),
            None => {
                let b = self.rx.recv_timeout(wait);
                time.source += t0.elapsed().as_micros() as u64;
                (Planned::new(b?, &mut self.split), false)
            }
        };
        let t1 = std::time::Instant::now();
        if !prepared {
            // On a GPU its modules then go to ptxas ahead of the next batch's; the first
            // batch of the H200's all-compiled campaign, prepared by no one, was JIT-compiled
            // one module after another (docs/engines.md).
            target.prepare(&current.jobs(&*target, trace).0);
        }
        while self.prepared.len() < target.prepare_depth().max(1) {
            let Ok(b) = self.rx.try_recv() else { break };
            let next = Planned::new(b, &mut self.split);
            target.prepare(&next.jobs(&*target, trace).0);
            self.prepared.push_back(next);
        }
        time.prepare += t1.elapsed().as_micros() as u64;
        Ok(current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::source::Item;
    use crate::oracles::{EngineInfo, Output};
    use ptx::program::Program;

    /// Records what it was asked to prepare and run, by the first input of each job.
    struct Recorder {
        info: EngineInfo,
        log: Vec<String>,
        depth: usize,
    }

    fn recorder(depth: usize) -> Recorder {
        Recorder { info: EngineInfo::new("recorder", "test"), log: Vec::new(), depth }
    }

    impl Engine for Recorder {
        fn info(&self) -> &EngineInfo {
            &self.info
        }
        fn supports(&self, _: &Program) -> bool {
            true
        }
        fn run(&mut self, _: &[Job]) -> Vec<Result<Output, EngineFault>> {
            Vec::new()
        }
        fn exec_modes(&self) -> &'static [Exec] {
            &[Exec::Compiled, Exec::Isa]
        }
        fn prepare(&mut self, jobs: &[Job]) {
            let what: Vec<String> = jobs.iter().map(|j| format!("{}:{}", j.cases[0], j.exec)).collect();
            self.log.push(format!("prepare {}", what.join(" ")));
        }
        fn prepare_depth(&self) -> usize {
            self.depth
        }
    }

    fn batch(first: u64) -> Batch {
        let p = Program::parse("// inputs: %f0:f32\nabs.f32 %f1, %f0;\n// outputs: %f1\n").unwrap();
        Batch { items: (first..first + 2).map(|i| Item { program: p.clone(), cases: vec![i], origin: None, done: None }).collect() }
    }

    #[test]
    fn the_batch_after_the_current_one_is_prepared_with_its_planned_modes() {
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        for first in [0, 2, 4] {
            tx.send(batch(first)).unwrap();
        }
        drop(tx);
        let mut engine = recorder(1);
        let mut q = Queue::new(rx, Split::new(&[Exec::Compiled, Exec::Isa], 0.5).unwrap());
        let wait = Duration::from_millis(10);
        let mut taken = Vec::new();
        while let Ok(p) = q.take(&mut engine, false, wait, &mut Default::default()) {
            taken.push(p.execs.iter().map(|e| e.name()).collect::<Vec<_>>().join(","));
            engine.log.push(format!("run {}", p.batch.items[0].cases[0]));
        }
        // Programs 0..6 alternate isa, compiled (share 0.5); batch k+1 is prepared, in the
        // modes it then runs in, before batch k runs; the first batch, which nothing before
        // it prepared, before the second.
        assert_eq!(taken, ["isa,compiled"; 3]);
        assert_eq!(engine.log, ["prepare 0:isa 1:compiled", "prepare 2:isa 3:compiled", "run 0", "prepare 4:isa 5:compiled", "run 2", "run 4"]);
    }

    #[test]
    fn an_engine_that_asks_for_depth_gets_that_many_batches_prepared_ahead() {
        let (tx, rx) = std::sync::mpsc::sync_channel(8);
        for first in [0, 2, 4, 6] {
            tx.send(batch(first)).unwrap();
        }
        drop(tx);
        let mut engine = recorder(2);
        let mut q = Queue::new(rx, Split::new(&[Exec::Compiled, Exec::Isa], 0.5).unwrap());
        while let Ok(p) = q.take(&mut engine, false, Duration::from_millis(10), &mut Default::default()) {
            engine.log.push(format!("run {}", p.batch.items[0].cases[0]));
        }
        assert_eq!(
            engine.log,
            ["prepare 0:isa 1:compiled", "prepare 2:isa 3:compiled", "prepare 4:isa 5:compiled", "run 0", "prepare 6:isa 7:compiled", "run 2", "run 4", "run 6"]
        );
    }

    #[test]
    fn a_batch_the_source_was_late_with_is_prepared_when_taken() {
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        let mut engine = recorder(1);
        let mut q = Queue::new(rx, Split::new(&[Exec::Compiled, Exec::Isa], 0.5).unwrap());
        let wait = Duration::from_millis(10);
        tx.send(batch(0)).unwrap();
        q.take(&mut engine, false, wait, &mut Default::default()).unwrap();
        assert!(matches!(q.take(&mut engine, false, wait, &mut Default::default()), Err(RecvTimeoutError::Timeout)));
        tx.send(batch(2)).unwrap();
        q.take(&mut engine, false, wait, &mut Default::default()).unwrap();
        assert_eq!(engine.log, ["prepare 0:isa 1:compiled", "prepare 2:isa 3:compiled"]);
    }
}
