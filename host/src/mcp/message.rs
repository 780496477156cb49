//! What one line (or one member of a batch) holds, judged before the SDK sees it: a message
//! to hand on, an error to answer here, or nothing. Here the JSON-RPC errors the SDK would
//! get wrong are made right: the params of a method this server serves that do not fit it
//! are invalid params (-32602), not "method not found"; a request of a client that has not
//! initialized is told to initialize first; a `tools/call` keeps the exact text of each
//! number in its arguments, for the same parse the command line's digits get (`numbers.rs`).

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ClientNotification, ClientRequest, ErrorData, GetMeta,
    InitializeRequestParams, JsonRpcMessage, NumberOrString, PaginatedRequestParams, RequestId,
};
use rmcp::service::RxJsonRpcMessage;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::json_text::Members;

/// What a line holds, before its messages are judged.
pub enum Line<'a> {
    One(&'a [u8]),
    Batch(Vec<&'a RawValue>),
    NotJson,
}

/// What one message is for the server.
pub enum Parsed {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    Answer(ErrorData, Option<RequestId>),
    Nothing,
}

/// `line` without its end: `\n`, or `\r\n`.
pub fn strip_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A line as one message or a batch of them (a JSON array).
pub fn split(line: &[u8]) -> Line<'_> {
    let line = strip_line_end(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let first = line.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'[') {
        return Line::One(line);
    }
    match serde_json::from_slice(line) {
        Ok(items) => Line::Batch(items),
        Err(_) => Line::NotJson,
    }
}

pub fn not_json() -> ErrorData {
    ErrorData::parse_error("Parse error: not JSON", None)
}

/// An error answered without the server, as one JSON text. An `id` that could not be read
/// is `null`, as JSON-RPC 2.0 and the MCP revisions before 2025-11-25 have it, and left out
/// from 2025-11-25 on, whose schema has no `null` id.
pub fn error_text(revision: Option<&str>, error: &ErrorData, id: Option<&RequestId>) -> String {
    let id = match id {
        Some(id) => Some(Some(id)),
        None if revision >= Some("2025-11-25") => None,
        None => Some(None),
    };
    let line = ErrorLine {
        jsonrpc: "2.0",
        id,
        error,
    };
    // Strings and integers only: serializing cannot fail.
    serde_json::to_string(&line).unwrap_or_default()
}

#[derive(Serialize)]
struct ErrorLine<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Option<&'a RequestId>>,
    error: &'a ErrorData,
}

/// Judges one message; `initialized`: whether an `initialize` has been answered.
pub fn parse(text: &[u8], initialized: bool) -> Parsed {
    if text.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Nothing;
    }
    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
        Ok(JsonRpcMessage::Request(mut request)) => {
            let refusal = misfit(&request.request)
                .or_else(|| uninitialized(&request.request).filter(|_| !initialized));
            if let Some(error) = refusal {
                return Parsed::Answer(error, Some(request.id));
            }
            if let ClientRequest::CallToolRequest(call) = &mut request.request {
                call.extensions.insert(NumberTexts::of(text));
            }
            Parsed::Message(Box::new(JsonRpcMessage::Request(request)))
        }
        Ok(message) => Parsed::Message(Box::new(message)),
        Err(_) => not_a_message(text),
    }
}

/// JSON that is no message this server reads: a notification is never answered, even a
/// malformed one; anything else is an Invalid Request, with its `id` when it has one.
fn not_a_message(text: &[u8]) -> Parsed {
    let Ok(value) = serde_json::from_slice::<Value>(text) else {
        return Parsed::Answer(not_json(), None);
    };
    let id = match value.get("id") {
        Some(Value::Number(n)) => n.as_i64().map(NumberOrString::Number),
        Some(Value::String(s)) => Some(NumberOrString::String(s.as_str().into())),
        _ => None,
    };
    if value.get("method").is_some() && value.get("id").is_none() {
        return Parsed::Nothing;
    }
    Parsed::Answer(
        ErrorData::invalid_request("Invalid Request: not a JSON-RPC 2.0 message", None),
        id,
    )
}

/// The invalid-params error of a method this server serves whose params do not fit it (the
/// SDK reads those as a method of its own, which no server has).
fn misfit(request: &ClientRequest) -> Option<ErrorData> {
    let ClientRequest::CustomRequest(custom) = request else {
        return None;
    };
    let fits: fn(Value) -> Result<(), String> = match custom.method.as_str() {
        "tools/call" => fits::<CallToolRequestParams>,
        "initialize" => fits::<InitializeRequestParams>,
        "tools/list" => fits::<Option<PaginatedRequestParams>>,
        "ping" => fits::<Option<serde_json::Map<String, Value>>>,
        _ => return None,
    };
    let why = fits(custom.params.clone().unwrap_or(Value::Null)).err()?;
    Some(ErrorData::invalid_params(
        format!("Invalid params: {}: {why}", custom.method),
        None,
    ))
}

fn fits<T: DeserializeOwned>(params: Value) -> Result<(), String> {
    if params.is_null() {
        return serde_json::from_value::<T>(params)
            .map(drop)
            .map_err(|_| String::from("params are missing"));
    }
    serde_json::from_value::<T>(params)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Before `initialize` is answered, a request other than `initialize`, `ping` and
/// `server/discover` that names no protocol version in its `_meta` (the 2026-07-28
/// revision's requests carry their own) comes from a client that skipped the handshake.
fn uninitialized(request: &ClientRequest) -> Option<ErrorData> {
    let handshake = matches!(
        request,
        ClientRequest::InitializeRequest(_)
            | ClientRequest::PingRequest(_)
            | ClientRequest::DiscoverRequest(_)
    );
    if handshake || request.get_meta().protocol_version().is_some() {
        return None;
    }
    Some(ErrorData::invalid_request(
        "Invalid Request: initialize first; this server answers a request once it has answered initialize",
        None,
    ))
}

/// The revision a request's `_meta` names, when it is one the SDK knows.
pub fn named_revision(message: &RxJsonRpcMessage<RoleServer>) -> Option<String> {
    let JsonRpcMessage::Request(request) = message else {
        return None;
    };
    let version = request.request.get_meta().protocol_version()?;
    rmcp::model::ProtocolVersion::KNOWN_VERSIONS
        .contains(&version)
        .then(|| version.to_string())
}

/// The request a `notifications/cancelled` names.
pub fn cancelled(message: &RxJsonRpcMessage<RoleServer>) -> Option<RequestId> {
    match message {
        JsonRpcMessage::Notification(n) => match &n.notification {
            ClientNotification::CancelledNotification(c) => c.params.request_id.clone(),
            _ => None,
        },
        _ => None,
    }
}

/// The exact text of each number among a `tools/call`'s arguments, by argument name: 2^64
/// or 10^30 would reach the tool as a rounded float, and `1e3` as 1000.
#[derive(Debug, Clone, Default)]
pub struct NumberTexts(pub Vec<(String, String)>);

#[derive(Deserialize)]
struct RawCall<'a> {
    #[serde(borrow)]
    params: RawParams<'a>,
}

#[derive(Deserialize)]
struct RawParams<'a> {
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
}

impl NumberTexts {
    fn of(text: &[u8]) -> NumberTexts {
        let arguments = serde_json::from_slice::<RawCall>(text)
            .ok()
            .and_then(|call| call.params.arguments);
        let Some(Ok(Members(members))) = arguments.map(|a| serde_json::from_str(a.get())) else {
            return NumberTexts::default();
        };
        NumberTexts(
            members
                .into_iter()
                .filter(|(_, v)| {
                    v.get()
                        .starts_with(|c: char| c == '-' || c.is_ascii_digit())
                })
                .map(|(k, v)| (k, v.get().to_owned()))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_their_text() {
        let line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"what":"show","id":18446744073709551616,"days":1e30,"offset":-1,"owner":"7"}}}"#;
        let texts = NumberTexts::of(line);
        assert_eq!(
            texts.0,
            [
                ("id".to_owned(), "18446744073709551616".to_owned()),
                ("days".to_owned(), "1e30".to_owned()),
                ("offset".to_owned(), "-1".to_owned()),
            ]
        );
    }

    #[test]
    fn lines_split_into_batches() {
        assert!(matches!(split(b"[]\r\n"), Line::Batch(v) if v.is_empty()));
        assert!(matches!(split(b" [1, {\"a\": 2}]\n"), Line::Batch(v) if v.len() == 2));
        assert!(matches!(split(b"[1,\n"), Line::NotJson));
        assert!(matches!(split(b"{}\n"), Line::One(b"{}")));
    }
}
