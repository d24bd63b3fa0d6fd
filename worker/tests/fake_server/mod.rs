//! A stand-in for ptxfuzz-server in tests: HTTP/1.1 on a std TcpListener, one thread per
//! connection, answering the worker's endpoints with the real API types (so a body the real
//! server would refuse as malformed is refused here too). It records every request and can be
//! told to fail: answer a status to the next N requests of a path, drop the response (the
//! request was handled, the answer is lost), or refuse every token.

#![allow(dead_code)]

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use api::findings::{IngestBatch, IngestResult};
use api::regressions::{LeaseRequest, Leased, RunResult};

#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub auth: Option<String>,
    pub body: Vec<u8>,
    /// The status answered (0: no answer, the connection was closed).
    pub status: u16,
}

impl Request {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// A failure to inject.
#[derive(Clone, Debug)]
pub enum Fault {
    /// Answer this status (with a problem+json detail).
    Status(u16, &'static str),
    /// Handle the request, then close the connection without answering.
    DropResponse,
}

#[derive(Default)]
struct State {
    requests: Vec<Request>,
    /// (path prefix, fault, times left).
    faults: Vec<(String, Fault, usize)>,
    /// Hashes of reports stored (ingest is idempotent by content).
    reports: HashSet<String>,
    leases: Vec<Leased>,
    token: Option<String>,
}

pub struct FakeServer {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
}

impl FakeServer {
    /// Listen on a free port.
    pub fn start() -> FakeServer {
        FakeServer::on(TcpListener::bind("127.0.0.1:0").unwrap())
    }

    /// Listen on `addr` (a port chosen earlier, nothing listening there until now).
    pub fn start_at(addr: SocketAddr) -> FakeServer {
        FakeServer::on(TcpListener::bind(addr).unwrap())
    }

    fn on(listener: TcpListener) -> FakeServer {
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (st, sp) = (state.clone(), stop.clone());
        listener.set_nonblocking(true).unwrap();
        std::thread::spawn(move || {
            while !sp.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((conn, _)) => {
                        let st = st.clone();
                        std::thread::spawn(move || serve(conn, &st));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        FakeServer { addr, state, stop }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Accept only `Bearer token` (401 otherwise).
    pub fn require_token(&self, token: &str) {
        self.state.lock().unwrap().token = Some(token.into());
    }

    /// The next `times` requests whose path starts with `prefix` (below /api/v1) get `fault`.
    pub fn fail(&self, prefix: &str, fault: Fault, times: usize) {
        self.state.lock().unwrap().faults.push((format!("/api/v1{prefix}"), fault, times));
    }

    /// Work handed out by the next `POST /leases`.
    pub fn queue_lease(&self, l: Leased) {
        self.state.lock().unwrap().leases.push(l);
    }

    pub fn requests(&self) -> Vec<Request> {
        self.state.lock().unwrap().requests.clone()
    }

    /// Distinct reports stored.
    pub fn stored_reports(&self) -> usize {
        self.state.lock().unwrap().reports.len()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn serve(conn: TcpStream, state: &Mutex<State>) {
    conn.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut conn = conn;
    // Keep-alive: several requests per connection.
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, path) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
        let (mut len, mut auth) = (0usize, None);
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            let (k, v) = h.split_once(':').unwrap_or((h, ""));
            match k.to_ascii_lowercase().as_str() {
                "content-length" => len = v.trim().parse().unwrap_or(0),
                "authorization" => auth = Some(v.trim().to_string()),
                _ => {}
            }
        }
        let mut body = vec![0; len];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let mut st = state.lock().unwrap();
        let fault = st.faults.iter_mut().find(|f| path.starts_with(&f.0) && f.2 > 0).map(|f| {
            f.2 -= 1;
            f.1.clone()
        });
        let (status, answer) = match fault {
            Some(Fault::Status(s, detail)) => (s, problem(s, detail)),
            _ if st.token.as_ref().is_some_and(|t| auth.as_deref() != Some(&format!("Bearer {t}"))) => {
                (401, problem(401, "missing or unknown bearer token"))
            }
            _ => route(&mut st, &method, &path, &body),
        };
        let dropped = matches!(fault, Some(Fault::DropResponse));
        st.requests.push(Request { method, path, auth, body, status: if dropped { 0 } else { status } });
        drop(st);
        if dropped {
            let _ = conn.shutdown(std::net::Shutdown::Both);
            return;
        }
        let ctype = if status < 300 { "application/json" } else { "application/problem+json" };
        let head = format!("HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\r\n", answer.len());
        if conn.write_all(head.as_bytes()).and_then(|_| conn.write_all(answer.as_bytes())).is_err() {
            return;
        }
    }
}

fn problem(status: u16, detail: &str) -> String {
    serde_json::json!({"type": "about:blank", "title": "fake", "status": status, "detail": detail}).to_string()
}

/// The endpoints, parsing bodies with the API's types.
fn route(st: &mut State, method: &str, path: &str, body: &[u8]) -> (u16, String) {
    fn parse<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, (u16, String)> {
        serde_json::from_slice(body).map_err(|e| (400, problem(400, &format!("malformed body: {e}"))))
    }
    let segs: Vec<&str> = path.trim_start_matches("/api/v1/").split('/').collect();
    let r: Result<(u16, String), (u16, String)> = (|| match (method, segs.as_slice()) {
        ("PUT", ["campaigns", _]) => {
            parse::<api::campaigns::CampaignStart>(body)?;
            Ok((200, "{}".into()))
        }
        ("POST", ["campaigns", _, "heartbeat"]) => {
            parse::<api::campaigns::Heartbeat>(body)?;
            Ok((200, "{}".into()))
        }
        ("POST", ["findings", "batch"]) => {
            let b: IngestBatch = parse(body)?;
            let mut res = IngestResult { received: 0, inserted: 0, duplicates: 0, finding_ids: vec![] };
            for f in &b.findings {
                res.received += 1;
                if st.reports.insert(serde_json::to_string(f).unwrap()) {
                    res.inserted += 1;
                } else {
                    res.duplicates += 1;
                }
                res.finding_ids.push(1);
            }
            Ok((200, serde_json::to_string(&res).unwrap()))
        }
        ("POST", ["leases"]) => {
            let req: LeaseRequest = parse(body)?;
            let n = st.leases.len().min(req.max as usize);
            let work: Vec<Leased> = st.leases.drain(..n).collect();
            Ok((200, serde_json::to_string(&work).unwrap()))
        }
        ("POST", ["leases", _, "result"]) => {
            parse::<RunResult>(body)?;
            Ok((200, "{}".into()))
        }
        _ => Ok((404, problem(404, "no such endpoint"))),
    })();
    r.unwrap_or_else(|e| e)
}
