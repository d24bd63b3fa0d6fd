//! The `exec:COMMAND` engine: an external program under test, speaking the JSON-lines
//! protocol of docs/exec-protocol.md on its stdin/stdout (`exec_protocol`).
//!
//! The command starts once (`sh -c COMMAND`, in its own process group) and stays alive across
//! batches. A writer thread feeds it the requests and a reader thread collects its replies, so
//! neither side can block on a full pipe and the batch's caller only ever waits, with the
//! timeout, for the next event: an engine that never reads its stdin times out like one that
//! never answers. A batch that takes longer than the timeout is a [`EngineFault::Timeout`]:
//! the engine is killed (its whole process group) and started again for the next batch; so is
//! an engine that died or broke the protocol. Reply lines are bounded
//! ([`exec_protocol::max_reply_line`]) and so is the queue of lines read ahead, so a faulty
//! engine costs bounded memory. Its stderr is kept (the last few KiB) and shown with faults.

mod threads;

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ptx::program::Program;

use super::engine::{Engine, EngineFault, EngineInfo, EngineOptions, Job, Output};
use super::exec_protocol::{self, decode_reply, encode_request, Reply};
use threads::{read_replies, write_requests, Event};

/// Events read ahead of the batch loop: the reader waits (and so does the engine, on its full
/// stdout) beyond this, so an engine flooding its stdout holds at most this many lines.
const EVENTS_AHEAD: usize = 16;

/// A running engine process.
struct Process {
    child: Child,
    /// Request lines for the writer thread, which owns the engine's stdin.
    requests: Sender<Vec<u8>>,
    events: Receiver<Event>,
    /// The longest reply line the reader accepts, set for each batch from its requests.
    line_limit: Arc<AtomicUsize>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Closed when the stderr reader reaches end of file: a fault message waits for it so that
    /// the engine's last words (written just before it died) are not lost to a race.
    stderr_done: Receiver<()>,
    /// Set once the engine is killed: the reader and writer threads stop at their next wake
    /// ([`threads::PIPE_WAKE`]) even where a process that left the engine's group (`setsid`, a
    /// daemon a wrapper script started) still holds its stdin, stdout or stderr open. A
    /// blocking read or write would wait for that process, holding the thread and the pipe,
    /// after every restart.
    closed: Arc<AtomicBool>,
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
        let err = child.stderr.take().expect("piped");
        // The threads end when the engine's pipes close (it is killed, with its group, on
        // every fault and on drop), when `Process` is dropped (their sends fail), or when
        // `closed` is set, where a process outside the group holds a pipe (`threads`).
        let (tx, events) = mpsc::sync_channel(EVENTS_AHEAD);
        let line_limit = Arc::new(AtomicUsize::new(exec_protocol::REPLY_LINE_BASE));
        let limit = Arc::clone(&line_limit);
        let reader_tx = tx.clone();
        let closed = Arc::new(AtomicBool::new(false));
        let (out_closed, err_closed, in_closed) = (Arc::clone(&closed), Arc::clone(&closed), Arc::clone(&closed));
        std::thread::spawn(move || read_replies(stdout, &limit, &reader_tx, &out_closed));
        let (requests, to_write) = mpsc::channel::<Vec<u8>>();
        std::thread::spawn(move || write_requests(stdin, &to_write, &tx, &in_closed));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr);
        let (done_tx, stderr_done) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            let _done = done_tx; // dropped when the thread ends: wakes `stderr_done`
            threads::read_stderr(err, &tail, &err_closed);
        });
        Ok(Process { child, requests, events, line_limit, stderr, stderr_done, closed })
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
        // After the last words are in: a reader still waiting waits on a process that left.
        self.closed.store(true, Ordering::Relaxed);
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
    /// Requests the engine answered (results or an error reply), over all its starts: an
    /// engine that ever answered can run, whatever its exit status later.
    answered: u64,
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
            answered: 0,
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
            EngineFault::CannotRun { message } => EngineFault::CannotRun { message: format!("{message}{tail}") },
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
        let proc = self.process.as_mut().expect("started");
        // The longest reply any of these requests may take bounds every line read for them.
        let limit = pending
            .iter()
            .map(|&k| exec_protocol::max_reply_line(jobs[k].n_cases(), jobs[k].per_case()))
            .max()
            .unwrap_or(exec_protocol::REPLY_LINE_BASE);
        proc.line_limit.store(limit, Ordering::Relaxed);
        // Hand every request to the writer thread; replies are read meanwhile, so the deadline
        // covers writing as well as reading. A failed send means the writer already stopped on
        // an error, which is waiting among the events.
        for (n, &k) in pending.iter().enumerate() {
            let job = &jobs[k];
            let mut request = String::new();
            encode_request(&mut request, first_id + n as u64, job.program, job.trace, job.cases);
            if proc.requests.send(request.into_bytes()).is_err() {
                break;
            }
        }
        let mut fault = None;
        for (n, &k) in pending.iter().enumerate() {
            let job = &jobs[k];
            let id = first_id + n as u64;
            let proc = self.process.as_mut().expect("started");
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match proc.events.recv_timeout(left) {
                Ok(Event::Line(line)) => line,
                Ok(Event::TooLong(limit)) => {
                    fault = Some(EngineFault::Protocol {
                        message: format!(
                            "a reply line ran past {limit} bytes without a newline, more than any reply to \
                             request {id} can take (docs/exec-protocol.md, \"Reply size\"): write exactly one \
                             line per request, ended by \\n, and nothing else to stdout (log to stderr)"
                        ),
                    });
                    break;
                }
                Ok(Event::ReadError(e)) => {
                    fault = Some(EngineFault::Io { message: format!("reading a reply: {e}") });
                    break;
                }
                Ok(Event::WriteError(e)) => {
                    let status = proc.exit_status(Duration::from_millis(500));
                    let how = match status {
                        Some(s) => format!("the engine exited ({s})"),
                        None => "the engine closed its stdin".to_string(),
                    };
                    let io = EngineFault::Io { message: format!("writing a request: {e}: {how} before reading every request") };
                    fault = Some(ended(&self.command, status, self.answered, io));
                    break;
                }
                Err(RecvTimeoutError::Timeout) => {
                    fault = Some(EngineFault::Timeout { seconds: self.timeout.as_secs() });
                    break;
                }
                Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    let status = proc.exit_status(Duration::from_millis(500));
                    let how = status.map_or_else(|| "closed its stdout".to_string(), |s| format!("exited ({s})"));
                    let io = EngineFault::Io { message: format!("the engine {how} before answering request {id}") };
                    fault = Some(ended(&self.command, status, self.answered, io));
                    break;
                }
            };
            match decode_reply(&line, id, job.program, job.trace, job.n_cases()) {
                Ok(Reply::Results(values)) => {
                    self.answered += 1;
                    results[k] = Some(Ok(Output { values, per_case: job.per_case() }));
                }
                Ok(Reply::Error(message)) => {
                    self.answered += 1;
                    results[k] = Some(Err(EngineFault::Refused { message }));
                }
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

/// The fault of an engine that ended (exit `status`, if known) before answering: `io`, unless
/// the engine never answered anything and `sh` exited 127 (command not found) or 126 (found
/// but not executable), the shell's own statuses for a command it cannot run (POSIX, "Command
/// Search and Execution"): then [`EngineFault::CannotRun`], which stops the work instead of
/// restarting the engine for every batch.
fn ended(command: &str, status: Option<ExitStatus>, answered: u64, io: EngineFault) -> EngineFault {
    let (code, why) = match (answered, status.and_then(|s| s.code())) {
        (0, Some(127)) => (127, "the shell found no such command"),
        (0, Some(126)) => (126, "the shell could not execute it: not executable, or a folder"),
        _ => return io,
    };
    EngineFault::CannotRun { message: format!("`{command}` exited with status {code} ({why}) before answering a request") }
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
    fn a_command_the_shell_cannot_find_cannot_run_and_that_is_fatal() {
        let mut e = ExecEngine::new("/nonexistent/ptxfuzz-engine --serve", &opts(10)).unwrap();
        let f = e.run(&[Job::new(&prog(), &[0], false)]).remove(0).unwrap_err();
        assert_eq!(f.kind(), "cannot-run", "{f}");
        assert!(f.is_fatal());
        let m = f.to_string();
        assert!(m.contains("`/nonexistent/ptxfuzz-engine --serve` exited with status 127 (the shell found no such command)"), "{m}");
        // The shell's own words, then what to do.
        assert!(m.contains("engine stderr: ") && m.contains("not found") && m.ends_with("the path of an executable file)"), "{m}");
    }

    #[test]
    fn a_file_that_is_not_executable_cannot_run() {
        let path = std::env::temp_dir().join(format!("ptxfuzz-not-executable-{}", std::process::id()));
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        let mut e = ExecEngine::new(path.to_str().unwrap(), &opts(10)).unwrap();
        let f = e.run(&[Job::new(&prog(), &[0], false)]).remove(0).unwrap_err();
        let _ = std::fs::remove_file(&path);
        assert_eq!(f.kind(), "cannot-run", "{f}");
        assert!(f.to_string().contains("status 126 (the shell could not execute it"), "{f}");
    }

    #[test]
    fn an_engine_that_answered_once_is_restarted_whatever_its_exit_status() {
        // Answers its first request, then exits 127 on the next: it ran, so this is an I/O
        // fault (restart and go on), not a command that cannot run.
        let cmd = r#"read -r l; id=${l#*\"id\":}; id=${id%%,*}; echo "{\"id\":$id,\"results\":[[\"0x0\"]]}"; read -r l; exit 127"#;
        let mut e = ExecEngine::new(cmd, &opts(10)).unwrap();
        assert!(e.run(&[Job::new(&prog(), &[0], false)])[0].is_ok());
        let f = e.run(&[Job::new(&prog(), &[0], false)]).remove(0).unwrap_err();
        assert_eq!(f.kind(), "io", "{f}");
        assert!(!f.is_fatal());
        assert!(e.run(&[Job::new(&prog(), &[0], false)])[0].is_ok(), "restarted, it answers again");
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

    /// A request larger than any pipe buffer (about 1.3 MB), so that writing it blocks until
    /// the engine reads.
    fn big_job_cases() -> Vec<u64> {
        (0..100_000u64).collect()
    }

    #[test]
    fn an_engine_that_never_reads_its_requests_times_out() {
        // The write of the request blocks on the full pipe; the timeout must still end it.
        let mut e = ExecEngine::new("sleep 30", &opts(1)).unwrap();
        let cases = big_job_cases();
        let t = Instant::now();
        let r = e.run(&[Job::new(&prog(), &cases, false)]);
        assert_eq!(r[0], Err(EngineFault::Timeout { seconds: 1 }));
        assert!(r[0].as_ref().unwrap_err().to_string().contains("--timeout"));
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        // Killed, so the next batch starts a fresh engine (and times out the same way).
        let _ = e.run(&[Job::new(&prog(), &[0], false)]);
        assert_eq!(e.starts, 2);
    }

    /// The fault one job of `cases` ends in on engine `command` (timeout 60 s), and how long
    /// the batch took.
    fn fault_of(command: &str, cases: &[u64]) -> (EngineFault, Duration) {
        let mut e = ExecEngine::new(command, &opts(60)).unwrap();
        let t = Instant::now();
        let f = e.run(&[Job::new(&prog(), cases, false)]).remove(0).expect_err("the engine faults");
        (f, t.elapsed())
    }

    #[test]
    fn an_endless_reply_line_is_a_fault_not_unbounded_memory() {
        // One line that never ends: refused at the documented limit, long before the timeout.
        let (f, took) = fault_of("yes | tr -d '\\n'", &[0]);
        assert_eq!(f.kind(), "protocol", "{f}");
        let limit = exec_protocol::max_reply_line(1, 1).to_string();
        assert!(f.to_string().contains(&limit) && f.to_string().contains("one line per request"), "{f}");
        assert!(took < Duration::from_secs(10), "{took:?}");
    }

    #[test]
    fn an_engine_flooding_its_stdout_without_reading_is_a_prompt_protocol_fault() {
        // `yes`: short lines forever and no reads. Replies are judged while the request is still
        // being written, so the first bad line ends the batch (it used to queue up unread).
        let (f, took) = fault_of("yes", &big_job_cases());
        assert_eq!(f.kind(), "protocol", "{f}");
        assert!(took < Duration::from_secs(5), "{took:?}");
    }

    #[test]
    fn an_engine_that_stops_reading_and_exits_is_an_io_fault() {
        // Reads a little of the request, then exits: the write fails (broken pipe) or stdout
        // ends, whichever comes first; either is an I/O fault, not a hang or a panic.
        let (f, took) = fault_of("head -c 100 >/dev/null", &big_job_cases());
        assert_eq!(f.kind(), "io", "{f}");
        assert!(took < Duration::from_secs(5), "{took:?}");
    }
}
