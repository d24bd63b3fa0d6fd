//! The `exec:COMMAND` engine: an external program under test, speaking the JSON-lines
//! protocol of docs/exec-protocol.md on its stdin/stdout (`exec_protocol`).
//!
//! The command starts once (`sh -c COMMAND`, in its own process group) and stays alive across
//! batches. A batch's requests are written in one go while a reader thread collects replies,
//! so neither side can block on a full pipe. A batch that takes longer than the timeout is a
//! [`EngineFault::Timeout`]: the engine is killed (its whole process group) and started again
//! for the next batch; so is an engine that died or broke the protocol. Its stderr is kept
//! (the last few KiB) and shown with faults.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ptx::program::Program;

use super::engine::{Engine, EngineFault, EngineInfo, EngineOptions, Job, Output};
use super::exec_protocol::{decode_reply, encode_request, Reply};

/// Bytes of the engine's stderr kept for fault messages.
const STDERR_TAIL: usize = 4096;

/// A running engine process.
struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Closed when the stderr reader reaches end of file: a fault message waits for it so that
    /// the engine's last words (written just before it died) are not lost to a race.
    stderr_done: Receiver<()>,
}

impl Process {
    fn spawn(command: &str) -> Result<Process, EngineFault> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| EngineFault::Io { message: format!("cannot start `sh -c {command}`: {e}") })?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let mut err = child.stderr.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let end = line.is_err();
                if tx.send(line).is_err() || end {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr);
        let (done_tx, stderr_done) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            let _done = done_tx; // dropped at end of file: wakes `stderr_done`
            let mut buf = [0u8; 1024];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                t.extend_from_slice(&buf[..n]);
                let excess = t.len().saturating_sub(STDERR_TAIL);
                t.drain(..excess);
            }
        });
        Ok(Process { child, stdin, lines, stderr, stderr_done })
    }

    fn stderr_tail(&self) -> String {
        let t = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let s = String::from_utf8_lossy(&t);
        let s = s.trim();
        if s.is_empty() {
            String::new()
        } else {
            format!("; engine stderr: {s}")
        }
    }

    /// Kill the engine and everything it started; returns the tail of its stderr, read to the
    /// end (the group is dead, so the pipe closes; a process that left the group is given one
    /// second).
    fn kill(mut self) -> String {
        let pid = self.child.id();
        // The child leads its own process group (process_group(0)): kill the group, so that a
        // command `sh -c` forked (a pipeline, a wrapper script) goes too.
        let _ = Command::new("kill").args(["-KILL", "--", &format!("-{pid}")]).stderr(Stdio::null()).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = self.stderr_done.recv_timeout(Duration::from_secs(1));
        self.stderr_tail()
    }

    /// How the engine ended, if it has: waits up to `patience` for it to exit, since its stdout
    /// closing usually comes a moment before its exit status.
    fn exit_status(&mut self, patience: Duration) -> Option<std::process::ExitStatus> {
        let until = Instant::now() + patience;
        loop {
            match self.child.try_wait() {
                Ok(Some(s)) => return Some(s),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => return None,
            }
        }
    }
}

impl Drop for ExecEngine {
    fn drop(&mut self) {
        if let Some(p) = self.process.take() {
            let _ = p.kill();
        }
    }
}

/// An external engine.
pub struct ExecEngine {
    info: EngineInfo,
    command: String,
    timeout: Duration,
    process: Option<Process>,
    next_id: u64,
    /// Times the engine was (re)started.
    pub starts: u64,
    buf: String,
}

impl ExecEngine {
    /// Start `command` (through `sh -c`).
    pub fn new(command: &str, opts: &EngineOptions) -> Result<ExecEngine, EngineFault> {
        let mut e = ExecEngine {
            info: EngineInfo::new(format!("exec:{command}"), format!("external engine `{command}`")),
            command: command.to_string(),
            timeout: opts.timeout,
            process: None,
            next_id: 1,
            starts: 0,
            buf: String::new(),
        };
        e.ensure_started()?;
        Ok(e)
    }

    fn ensure_started(&mut self) -> Result<(), EngineFault> {
        if self.process.is_none() {
            self.process = Some(Process::spawn(&self.command)?);
            self.starts += 1;
        }
        Ok(())
    }

    /// Drop the process after a fault; the next batch starts a fresh one.
    fn fail(&mut self, fault: EngineFault) -> EngineFault {
        let tail = self.process.take().map(Process::kill).unwrap_or_default();
        match fault {
            EngineFault::Io { message } => EngineFault::Io { message: format!("{message}{tail}") },
            EngineFault::Protocol { message } => EngineFault::Protocol { message: format!("{message}{tail}") },
            f => f,
        }
    }

    fn run_batch(&mut self, jobs: &[Job]) -> Vec<Result<Output, EngineFault>> {
        let mut results: Vec<Option<Result<Output, EngineFault>>> = vec![None; jobs.len()];
        let mut pending = Vec::new();
        for (k, job) in jobs.iter().enumerate() {
            match job.check() {
                Err(f) => results[k] = Some(Err(f)),
                Ok(()) => pending.push(k),
            }
        }
        if let Err(f) = self.ensure_started() {
            for &k in &pending {
                results[k] = Some(Err(f.clone()));
            }
            return results.into_iter().map(|r| r.expect("every job answered")).collect();
        }
        let first_id = self.next_id;
        self.next_id += pending.len() as u64;
        let deadline = Instant::now() + self.timeout;
        // Write every request, then read every reply (the reader thread keeps the pipe drained).
        let mut write_err = None;
        {
            let proc = self.process.as_mut().expect("started");
            for (n, &k) in pending.iter().enumerate() {
                let job = &jobs[k];
                self.buf.clear();
                encode_request(&mut self.buf, first_id + n as u64, job.program, job.trace, job.cases);
                if let Err(e) = proc.stdin.write_all(self.buf.as_bytes()) {
                    write_err = Some(e);
                    break;
                }
            }
            if write_err.is_none() {
                if let Err(e) = proc.stdin.flush() {
                    write_err = Some(e);
                }
            }
        }
        let mut fault = write_err.map(|e| EngineFault::Io { message: format!("writing a request: {e} (did the engine exit?)") });
        for (n, &k) in pending.iter().enumerate() {
            if fault.is_some() {
                break;
            }
            let job = &jobs[k];
            let proc = self.process.as_ref().expect("started");
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match proc.lines.recv_timeout(left) {
                Ok(Ok(line)) => line,
                Ok(Err(e)) => {
                    fault = Some(EngineFault::Io { message: format!("reading a reply: {e}") });
                    break;
                }
                Err(RecvTimeoutError::Timeout) => {
                    fault = Some(EngineFault::Timeout { seconds: self.timeout.as_secs() });
                    break;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.process.as_mut().and_then(|p| p.exit_status(Duration::from_millis(500)));
                    let how = status.map_or_else(|| "closed its stdout".to_string(), |s| format!("exited ({s})"));
                    fault = Some(EngineFault::Io { message: format!("the engine {how} before answering request {}", first_id + n as u64) });
                    break;
                }
            };
            match decode_reply(&line, first_id + n as u64, job.program, job.trace, job.n_cases()) {
                Ok(Reply::Results(values)) => {
                    results[k] = Some(Ok(Output { values, per_case: job.per_case() }));
                }
                Ok(Reply::Error(message)) => results[k] = Some(Err(EngineFault::Refused { message })),
                Err(message) => {
                    fault = Some(EngineFault::Protocol { message });
                    break;
                }
            }
        }
        if let Some(f) = fault {
            // The process state is unknown: restart it; unanswered jobs share the fault.
            let f = self.fail(f);
            for r in results.iter_mut().filter(|r| r.is_none()) {
                *r = Some(Err(f.clone()));
            }
        }
        results.into_iter().map(|r| r.expect("every job answered")).collect()
    }
}

impl Engine for ExecEngine {
    fn info(&self) -> &EngineInfo {
        &self.info
    }

    /// Unknown until asked: an engine refuses what it cannot run (an `error` reply).
    fn supports(&self, _p: &Program) -> bool {
        true
    }

    fn run(&mut self, jobs: &[Job]) -> Vec<Result<Output, EngineFault>> {
        self.run_batch(jobs)
    }

    fn preferred_cases(&self) -> usize {
        1 << 14
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prog() -> Program {
        Program::parse("// inputs: %f0:f32\nneg.f32 %f1, %f0;\n// outputs: %f1\n").unwrap()
    }

    fn opts(secs: u64) -> EngineOptions {
        EngineOptions { timeout: Duration::from_secs(secs), ..EngineOptions::default() }
    }

    #[test]
    fn shell_engine_answers_and_stays_alive_across_batches() {
        // A constant engine in plain sh: answers every request with 0x80000000, echoing its id.
        let cmd = r#"while read -r l; do id=${l#*\"id\":}; id=${id%%,*}; echo "{\"id\":$id,\"results\":[[\"0x80000000\"]]}"; done"#;
        let mut e = ExecEngine::new(cmd, &opts(10)).unwrap();
        let p = prog();
        for _ in 0..3 {
            let r = e.run(&[Job::new(&p, &[0], false), Job::new(&p, &[1], false)]);
            assert_eq!(r[0].as_ref().unwrap().values, [0x8000_0000]);
            assert_eq!(r[1].as_ref().unwrap().values, [0x8000_0000]);
        }
        assert_eq!(e.starts, 1);
    }

    #[test]
    fn error_reply_is_a_refusal_and_the_engine_goes_on() {
        let cmd = r#"while read -r l; do id=${l#*\"id\":}; id=${id%%,*}; echo "{\"id\":$id,\"error\":\"no neg here\"}"; done"#;
        let mut e = ExecEngine::new(cmd, &opts(10)).unwrap();
        let r = e.run(&[Job::new(&prog(), &[0], false)]);
        assert_eq!(r[0], Err(EngineFault::Refused { message: "no neg here".into() }));
        let _ = e.run(&[Job::new(&prog(), &[0], false)]);
        assert_eq!(e.starts, 1);
    }

    #[test]
    fn dead_engine_is_an_io_fault_with_its_stderr_and_is_restarted() {
        let mut e = ExecEngine::new("read -r l; echo 'emulator crashed' >&2; exit 3", &opts(10)).unwrap();
        let r = e.run(&[Job::new(&prog(), &[0], false)]);
        let f = r[0].as_ref().unwrap_err();
        assert_eq!(f.kind(), "io", "{f}");
        // Both the exit status and the engine's last words reach the user.
        assert!(f.to_string().contains("emulator crashed"), "{f}");
        assert!(f.to_string().contains("exited"), "{f}");
        let _ = e.run(&[Job::new(&prog(), &[0], false)]);
        assert_eq!(e.starts, 2);
    }

    #[test]
    fn silent_engine_times_out_and_is_killed() {
        let mut e = ExecEngine::new("sleep 1000", &opts(1)).unwrap();
        let t = Instant::now();
        let r = e.run(&[Job::new(&prog(), &[0], false)]);
        assert_eq!(r[0], Err(EngineFault::Timeout { seconds: 1 }));
        assert!(t.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn garbage_reply_is_a_protocol_fault() {
        let mut e = ExecEngine::new("while read -r l; do echo hello; done", &opts(10)).unwrap();
        let r = e.run(&[Job::new(&prog(), &[0], false)]);
        assert_eq!(r[0].as_ref().unwrap_err().kind(), "protocol");
    }
}
