//! Finding NUL characters in a JSON body. JSON can carry NUL only as the escape `\u0000` (a raw
//! NUL byte is a syntax error), and PostgreSQL text cannot store it, so [`super::Json`] refuses
//! such a body with a 422 that says where the NUL is.

/// Where the first NUL is (`worker`, `findings[2].message`, `body` for a top-level string), or
/// `None`. A cheap byte scan decides; the body is parsed again only to name the place.
pub fn find(body: &[u8]) -> Option<String> {
    if !has_nul_escape(body) {
        return None;
    }
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let mut path = String::new();
    // Not found by the walk cannot happen for valid JSON; "body" names the whole then too.
    if !walk(&value, &mut path) || path.is_empty() {
        return Some("body".to_string());
    }
    Some(path)
}

/// True when the body holds the escape `\u0000` (not `\\u0000`, an escaped backslash followed
/// by the text `u0000`).
fn has_nul_escape(body: &[u8]) -> bool {
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'\\' {
            if body.get(i + 1) == Some(&b'u') && body.get(i + 2..i + 6) == Some(b"0000") {
                return true;
            }
            i += 2; // skip the escaped character, which may itself be a backslash
        } else {
            i += 1;
        }
    }
    false
}

/// Depth-first search for a string (or object key) holding NUL; on success `path` names it.
fn walk(v: &serde_json::Value, path: &mut String) -> bool {
    match v {
        serde_json::Value::String(s) => s.contains('\0'),
        serde_json::Value::Array(items) => items.iter().enumerate().any(|(i, item)| {
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            let found = walk(item, path);
            if !found {
                path.truncate(len);
            }
            found
        }),
        serde_json::Value::Object(map) => map.iter().any(|(k, item)| {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(k);
            let found = k.contains('\0') || walk(item, path);
            if !found {
                path.truncate(len);
            }
            found
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::find;

    #[test]
    fn a_nul_escape_is_found_and_named_by_its_path() {
        assert_eq!(find(br#"{"worker":"a\u0000b"}"#).as_deref(), Some("worker"));
        let batch = br#"{"findings":[{"m":"ok"},{"m":"x","inputs":["0x1","\u0000"]}]}"#;
        assert_eq!(find(batch).as_deref(), Some("findings[1].inputs[1]"));
        assert_eq!(find(br#""\u0000""#).as_deref(), Some("body"));
    }

    #[test]
    fn text_that_only_looks_like_a_nul_escape_is_not_refused() {
        // An escaped backslash followed by "u0000" is the six characters \u0000, not NUL.
        assert_eq!(find(br#"{"pattern":"a\\u0000"}"#), None);
        assert_eq!(find(br#"{"pattern":"\\\\u0000","n":1}"#), None);
        assert_eq!(find(br#"{"pattern":"\u0001 \u00000"}"#).as_deref(), Some("pattern"));
        assert_eq!(find(b"{}"), None);
    }
}
