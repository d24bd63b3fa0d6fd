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
}

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

/// A JSON body axum could not read: 400 (syntax, unknown field, wrong type), 413 (too large),
/// 415 (not `application/json`).
impl From<JsonRejection> for Problem {
    fn from(r: JsonRejection) -> Problem {
        let status = r.status();
        let kind = match status {
            StatusCode::PAYLOAD_TOO_LARGE => "too-large",
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
