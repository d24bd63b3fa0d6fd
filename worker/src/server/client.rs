//! A small blocking HTTP client for the ptxfuzz server's `/api/v1`, with timeouts, that sorts
//! every failure into what the caller must do about it ([`Failure`]): retry later, give the
//! message up, or stop talking to the server.

use std::fmt;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use thiserror::Error;

/// Seconds one request may take, connection included.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);
/// Seconds to wait for a TCP connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The most of an error body shown when it is not problem+json.
const BODY_EXCERPT: usize = 300;

/// The two methods the worker uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Method {
    Put,
    Post,
}

/// Why a request did not succeed, by what to do about it.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Failure {
    /// The server could not be reached, timed out, or answered 5xx/429/408: try again later.
    #[error("{0}")]
    Retryable(String),
    /// The server refused this request for good (a 4xx): retrying it sends the same refusal.
    #[error("HTTP {status}: {detail}")]
    Rejected { status: u16, detail: String },
    /// 401/403: the token is wrong or lacks the role; nothing will get through.
    #[error("HTTP {status}: {detail}")]
    Unauthorized { status: u16, detail: String },
}

/// A server endpoint: base URL (`http(s)://host[:port][/prefix]`) and bearer token.
#[derive(Clone)]
pub struct Client {
    /// `…/api/v1`, no trailing slash.
    api: String,
    token: Option<String>,
    agent: ureq::Agent,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the token.
        f.debug_struct("Client").field("api", &self.api).field("token", &self.token.as_ref().map(|_| "***")).finish()
    }
}

/// A URL the client can use, or a message saying what is wrong with it.
pub fn check_url(url: &str) -> Result<String, String> {
    let trimmed = url.trim().trim_end_matches('/');
    let rest = trimmed
        .strip_prefix("http://")
        .or_else(|| trimmed.strip_prefix("https://"))
        .ok_or_else(|| format!("--server '{url}' is not an http:// or https:// URL (example: --server http://ptxfuzz.lan:8080)"))?;
    let host = rest.split('/').next().unwrap_or("");
    if host.is_empty() || host.contains(char::is_whitespace) || host.contains(['?', '#', '@']) {
        return Err(format!("--server '{url}' has no usable host (example: --server http://ptxfuzz.lan:8080)"));
    }
    Ok(trimmed.to_string())
}

impl Client {
    /// A client for `base` (checked with [`check_url`]); `/api/v1` is appended unless there.
    pub fn new(base: &str, token: Option<String>) -> Result<Client, String> {
        let base = check_url(base)?;
        let api = if base.ends_with("/api/v1") { base } else { format!("{base}/api/v1") };
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(REQUEST_TIMEOUT))
            .timeout_connect(Some(CONNECT_TIMEOUT))
            // Statuses are sorted here (classify), not turned into opaque errors.
            .http_status_as_error(false)
            .user_agent(format!("ptxfuzz/{}", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(Client { api, token, agent: config.into() })
    }

    /// The API root this client talks to.
    pub fn api(&self) -> &str {
        &self.api
    }

    /// Send `body` (JSON bytes) to `path` (below `/api/v1`); the response body on 2xx.
    pub fn send(&self, method: Method, path: &str, body: &[u8]) -> Result<String, Failure> {
        let url = format!("{}{path}", self.api);
        let auth = self.token.as_ref().map(|t| format!("Bearer {t}"));
        let result = match method {
            Method::Put => {
                let mut r = self.agent.put(&url).content_type("application/json");
                if let Some(a) = &auth {
                    r = r.header("Authorization", a);
                }
                r.send(body)
            }
            Method::Post => {
                let mut r = self.agent.post(&url).content_type("application/json");
                if let Some(a) = &auth {
                    r = r.header("Authorization", a);
                }
                r.send(body)
            }
        };
        let mut resp = result.map_err(|e| Failure::Retryable(format!("{url}: {e}")))?;
        let status = resp.status().as_u16();
        // A 2xx whose body cannot be read is a lost response: retry (requests are idempotent).
        let text = resp.body_mut().read_to_string().map_err(|e| Failure::Retryable(format!("{url}: reading the answer: {e}")))?;
        classify(status, &text)
    }

    /// POST `body` as JSON and read the JSON answer.
    pub fn post_json<B: Serialize, R: DeserializeOwned>(&self, path: &str, body: &B) -> Result<R, Failure> {
        let bytes = serde_json::to_vec(body).expect("API bodies serialise");
        let text = self.send(Method::Post, path, &bytes)?;
        serde_json::from_str(&text)
            .map_err(|e| Failure::Rejected { status: 200, detail: format!("unexpected answer from {}{path}: {e}", self.api) })
    }
}

/// Sort a response: 2xx is the body; 401/403 stop; 408, 429 and 5xx are worth retrying; any
/// other status is a refusal of this request. The message is the problem+json `detail`.
pub fn classify(status: u16, body: &str) -> Result<String, Failure> {
    match status {
        200..=299 => Ok(body.to_string()),
        401 | 403 => Err(Failure::Unauthorized { status, detail: problem_detail(body) }),
        408 | 429 | 500..=599 => Err(Failure::Retryable(format!("HTTP {status}: {}", problem_detail(body)))),
        _ => Err(Failure::Rejected { status, detail: problem_detail(body) }),
    }
}

/// The `detail` (else `title`) of a problem+json body, else the start of the body.
pub fn problem_detail(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        for key in ["detail", "title"] {
            if let Some(s) = v.get(key).and_then(|d| d.as_str()).filter(|s| !s.is_empty()) {
                return s.to_string();
            }
        }
    }
    let body = body.trim();
    if body.is_empty() {
        return "(no details in the answer)".into();
    }
    match body.char_indices().nth(BODY_EXCERPT) {
        Some((i, _)) => format!("{}…", &body[..i]),
        None => body.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_sort_into_retry_reject_and_stop() {
        let problem = r#"{"type":"about:blank","title":"Bad Request","status":400,"detail":"unknown field `foo`"}"#;
        assert_eq!(classify(201, "{}"), Ok("{}".into()));
        assert_eq!(classify(400, problem), Err(Failure::Rejected { status: 400, detail: "unknown field `foo`".into() }));
        assert_eq!(classify(422, "plain words"), Err(Failure::Rejected { status: 422, detail: "plain words".into() }));
        assert!(matches!(classify(401, problem), Err(Failure::Unauthorized { status: 401, .. })));
        assert!(matches!(classify(403, ""), Err(Failure::Unauthorized { status: 403, .. })));
        for s in [408, 429, 500, 502, 503] {
            assert!(matches!(classify(s, ""), Err(Failure::Retryable(_))), "{s}");
        }
    }

    #[test]
    fn problem_detail_falls_back_to_title_then_body() {
        assert_eq!(problem_detail(r#"{"title":"Payload Too Large","status":413}"#), "Payload Too Large");
        assert_eq!(problem_detail(""), "(no details in the answer)");
        let long = "x".repeat(1000);
        assert_eq!(problem_detail(&long).chars().count(), BODY_EXCERPT + 1);
    }

    #[test]
    fn urls_must_be_http_with_a_host() {
        assert_eq!(check_url("http://h:8080/").unwrap(), "http://h:8080");
        assert_eq!(check_url("https://h/x").unwrap(), "https://h/x");
        assert!(check_url("ftp://h").unwrap_err().contains("not an http"));
        assert!(check_url("h:8080").unwrap_err().contains("not an http"));
        assert!(check_url("http:///x").unwrap_err().contains("no usable host"));
        let c = Client::new("http://h:1", None).unwrap();
        assert_eq!(c.api(), "http://h:1/api/v1");
        assert_eq!(Client::new("http://h:1/api/v1/", None).unwrap().api(), "http://h:1/api/v1");
        assert!(!format!("{:?}", Client::new("http://h", Some("secret".into())).unwrap()).contains("secret"));
    }

    #[test]
    fn a_closed_port_is_retryable() {
        // Bind then drop: the port is (almost certainly) closed now.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let c = Client::new(&format!("http://127.0.0.1:{port}"), None).unwrap();
        assert!(matches!(c.send(Method::Post, "/x", b"{}"), Err(Failure::Retryable(_))));
    }
}
