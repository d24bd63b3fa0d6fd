//! The one error type of the HTTP layer: RFC 9457 problem details (`application/problem+json`).
//! Every handler returns `Result<_, Problem>`; bad input is a 4xx that says what is wrong and
//! what to do, and a database fault is a 500/503 whose detail is logged, never a panic.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// A problem-details response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    #[serde(skip)]
    pub status: StatusCode,
    /// A URI naming the kind of problem (`about:blank` style short names under /problems/).
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub detail: String,
}

impl Problem {
    pub fn new(status: StatusCode, kind: &str, detail: impl Into<String>) -> Problem {
        Problem {
            status,
            kind: format!("/problems/{kind}"),
            title: status.canonical_reason().unwrap_or("error").to_string(),
            detail: detail.into(),
        }
    }

    /// 400: the request is malformed or asks for something illegal.
    pub fn bad_request(detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::BAD_REQUEST, "bad-request", detail)
    }

    /// 422: well-formed, but the content is wrong (an illegal instruction, a bad value).
    pub fn unprocessable(detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", detail)
    }

    pub fn not_found(detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::NOT_FOUND, "not-found", detail)
    }

    pub fn conflict(detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::CONFLICT, "conflict", detail)
    }

    pub fn unauthorized(detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::UNAUTHORIZED, "unauthorized", detail)
    }

    pub fn forbidden(detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::FORBIDDEN, "forbidden", detail)
    }

    /// 413: a body over `--max-body`. `limit` is the server's limit in bytes, when known (the
    /// extractor reads it from the request's [`MaxBody`]); the detail says how to get under it.
    pub fn too_large(limit: Option<usize>) -> Problem {
        let over = match limit {
            Some(n) => format!("the request body is over this server's limit of {n} bytes (--max-body)"),
            None => "the request body is over this server's limit (--max-body)".to_string(),
        };
        Problem::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too-large",
            format!("{over}; send less at once (split a findings batch into smaller ones), or raise --max-body / PTXFUZZ_MAX_BODY on the server"),
        )
    }

    /// 415 for a compressed body: the server reads identity bodies only. Its response carries
    /// `Accept-Encoding: identity`, as RFC 9110 (15.5.16) asks of a 415 about a content coding.
    pub fn unsupported_encoding(encoding: &str) -> Problem {
        Problem::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported-encoding",
            format!("Content-Encoding: {encoding} is not supported; send the body uncompressed (no Content-Encoding, or identity)"),
        )
    }

    /// 405: the path exists, the method does not; `allow` is the Allow header's value.
    pub fn method_not_allowed(method: &str, path: &str, allow: &str) -> Problem {
        let allowed = if allow.is_empty() { "none".to_string() } else { allow.replace(',', ", ") };
        Problem::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method-not-allowed",
            format!("{method} is not allowed on {path}; it allows {allowed} (see /api/openapi.json)"),
        )
    }
}

/// The server's `--max-body`, put in every request's extensions by `http::app` so that a 413
/// can say the limit (axum's own body limit does not expose it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaxBody(pub usize);

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let body = serde_json::json!({
            "type": self.kind,
            "title": self.title,
            "status": self.status.as_u16(),
            "detail": self.detail,
        });
        let mut r = (self.status, body.to_string()).into_response();
        r.headers_mut().insert(header::CONTENT_TYPE, "application/problem+json".parse().expect("static"));
        if self.status == StatusCode::UNAUTHORIZED {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, "Bearer".parse().expect("static"));
        }
        if self.kind == "/problems/unsupported-encoding" {
            r.headers_mut().insert(header::ACCEPT_ENCODING, "identity".parse().expect("static"));
        }
        r
    }
}

/// Database faults: a pool timeout is 503 (retry later); anything else 500, logged in full
/// and shown without internals.
impl From<sqlx::Error> for Problem {
    fn from(e: sqlx::Error) -> Problem {
        match e {
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => {
                Problem::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", "the database is busy or down; retry later")
            }
            e => {
                tracing::error!(error = %e, "database error");
                Problem::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "database error (logged on the server)")
            }
        }
    }
}

/// A JSON body axum could not read: 400 (syntax, unknown field, wrong type), 413 (too large;
/// [`Problem::too_large`]), 415 (not `application/json`).
impl From<JsonRejection> for Problem {
    fn from(r: JsonRejection) -> Problem {
        let status = r.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            // axum's text ("length limit exceeded") names neither the limit nor the way out.
            return Problem::too_large(None);
        }
        let kind = match status {
            StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported-media-type",
            _ => "bad-json",
        };
        // 422 from axum (a type mismatch) is reported as 400 with serde's message: the body is
        // not what the API describes.
        let status = if status == StatusCode::UNPROCESSABLE_ENTITY { StatusCode::BAD_REQUEST } else { status };
        Problem::new(status, kind, r.body_text())
    }
}

impl From<QueryRejection> for Problem {
    fn from(r: QueryRejection) -> Problem {
        Problem::new(StatusCode::BAD_REQUEST, "bad-query", r.body_text())
    }
}
