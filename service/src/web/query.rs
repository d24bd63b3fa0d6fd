//! A dashboard page's query string: parsed into the page's parameter struct, an unknown
//! parameter refused by name with the page's known ones. The known names come from the struct
//! itself (what `#[derive(Deserialize)]` passes to `deserialize_struct`), so each page lists its
//! parameters once, as fields.

use std::convert::Infallible;

use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use serde::de::{self, DeserializeOwned, Visitor};
use serde::forward_to_deserialize_any;

/// A page's query string as `T`, or the message of the page's 400 (never a rejection: each page
/// shows its own error page, with the session's header).
pub struct PageQuery<T>(pub Result<T, String>);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for PageQuery<T> {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Infallible> {
        Ok(PageQuery(parse(parts.uri.query())))
    }
}

/// Parse the query string `raw` into `T`. An unknown parameter is named with the known ones
/// first: a misspelt filter that is silently ignored reads as obeyed, and the API's lists refuse
/// one too.
pub fn parse<T: DeserializeOwned>(raw: Option<&str>) -> Result<T, String> {
    let raw = raw.unwrap_or("");
    let uri = format!("/?{raw}").parse().map_err(|_| "the query string is malformed".to_string())?;
    if let Some(e) = unknown_parameter(&uri, field_names::<T>()) {
        return Err(e);
    }
    Query::<T>::try_from_uri(&uri).map(|q| q.0).map_err(|e| format!("the query string is malformed: {}", e.body_text()))
}

/// The message for the first parameter of `uri` that is not one of `known`; `None` when all are.
fn unknown_parameter(uri: &axum::http::Uri, known: &[&str]) -> Option<String> {
    let pairs = Query::<Vec<(String, String)>>::try_from_uri(uri).ok()?.0;
    let (name, _) = pairs.iter().find(|(k, _)| !known.contains(&k.as_str()))?;
    Some(if known.is_empty() {
        format!("unknown parameter '{name}': this page takes no parameters")
    } else {
        format!("unknown parameter '{name}': this page takes {}", known.join(", "))
    })
}

/// The field names (after `rename`) of a struct with named fields, as its derived
/// `Deserialize` declares them; empty for any other shape.
pub fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut fields = None;
    let _ = T::deserialize(Introspect(&mut fields));
    fields.unwrap_or(&[])
}

/// A deserializer that records the field list it is asked for, then stops.
struct Introspect<'a>(&'a mut Option<&'static [&'static str]>);

impl<'de> de::Deserializer<'de> for Introspect<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = Some(fields);
        Err(de::Error::custom("only the field names were wanted"))
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Two {
        status: Option<String>,
        #[serde(rename = "type")]
        ty: Option<String>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct NoParams {}

    #[test]
    fn field_names_are_the_serialized_names_of_the_struct() {
        assert_eq!(field_names::<Two>(), ["status", "type"]);
        assert!(field_names::<NoParams>().is_empty());
        assert!(field_names::<Vec<String>>().is_empty());
    }

    #[test]
    fn an_unknown_parameter_is_named_with_the_known_ones() {
        assert_eq!(parse::<Two>(Some("status=new&foo=1")).unwrap_err(), "unknown parameter 'foo': this page takes status, type");
        assert_eq!(parse::<NoParams>(Some("after=1")).unwrap_err(), "unknown parameter 'after': this page takes no parameters");
        // A percent-encoded name is decoded before it is looked up.
        assert_eq!(parse::<Two>(Some("typ%65=f32")).unwrap(), Two { status: None, ty: Some("f32".into()) });
    }

    #[test]
    fn an_absent_or_empty_query_is_every_parameter_absent() {
        assert_eq!(parse::<Two>(None).unwrap(), Two { status: None, ty: None });
        assert_eq!(parse::<Two>(Some("")).unwrap(), Two { status: None, ty: None });
        assert_eq!(parse::<NoParams>(None).unwrap(), NoParams {});
    }

    #[test]
    fn a_repeated_parameter_is_a_message_not_a_rejection() {
        let e = parse::<Two>(Some("status=new&status=open")).unwrap_err();
        assert!(e.starts_with("the query string is malformed: "), "{e}");
    }
}
