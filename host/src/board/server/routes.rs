//! The board's pages by path: each reads the snapshot (or, for archived rows and history, the
//! archives) and hands it to its page. Run on the blocking pool: a read may replay the queue.

use hyper::StatusCode;

use crate::board::escape::{decode_path_segment, decode_query_value};
use crate::board::page::{self, board::Lane, layout, row::ReadFrom, timeline::Query};
use crate::engine::board::Source;
use crate::engine::board::{LogItem, Snapshot};
use crate::reply::Failure;

/// A whole answer: status, content type and body.
pub struct Answer {
    pub status: StatusCode,
    pub kind: &'static str,
    pub body: Vec<u8>,
}

const HTML: &str = "text/html; charset=utf-8";

impl Answer {
    fn html(status: StatusCode, body: String) -> Answer {
        Answer {
            status,
            kind: HTML,
            body: body.into_bytes(),
        }
    }

    fn ok(body: String) -> Answer {
        Answer::html(StatusCode::OK, body)
    }
}

/// The answer to GET `path` with `query` (the part after `?`, raw).
pub fn answer(source: &Source, path: &str, query: &str) -> Answer {
    match assets(path) {
        Some(a) => a,
        None => match source.snapshot() {
            Ok(snap) => match pages(source, &snap, path, query) {
                Ok(a) => a,
                Err(f) => failed(&snap, &f),
            },
            Err(f) => unreadable(&f),
        },
    }
}

fn assets(path: &str) -> Option<Answer> {
    let (kind, text) = match path {
        "/assets/board.css" => ("text/css; charset=utf-8", page::STYLE),
        "/assets/live.js" => ("text/javascript; charset=utf-8", page::SCRIPT),
        "/favicon.ico" => {
            return Some(Answer {
                status: StatusCode::NO_CONTENT,
                kind: "image/x-icon",
                body: Vec::new(),
            });
        }
        _ => return None,
    };
    Some(Answer {
        status: StatusCode::OK,
        kind,
        body: text.as_bytes().to_vec(),
    })
}

/// What a request named that the board does not have, or cannot read.
enum Miss {
    NotFound(&'static str, String),
    BadQuery(String),
    Failed(Failure),
}

impl From<Failure> for Miss {
    fn from(f: Failure) -> Miss {
        Miss::Failed(f)
    }
}

fn pages(source: &Source, snap: &Snapshot, path: &str, query: &str) -> Result<Answer, Failure> {
    let q = Params::parse(query);
    let routed = match (path, path.split('/').nth(1), path.split('/').nth(2)) {
        ("/", ..) => Ok(page::board::board(snap)),
        ("/graph", ..) => q
            .number("row")
            .map(|row| page::graph::graph_page(snap, row)),
        ("/seats", ..) => Ok(page::seats::seats_page(snap)),
        ("/timeline", ..) => timeline(source, snap, &q),
        (_, Some("lane"), Some(key)) if path.split('/').count() == 3 => lane(snap, key, &q),
        (_, Some("seat"), Some(name)) if path.split('/').count() == 3 => seat(snap, name),
        (_, Some("row"), Some(id)) if path.split('/').count() == 3 => row(source, snap, id),
        _ => Err(Miss::NotFound(
            "No such page",
            String::from("The board has /, /graph, /seats, /timeline and /row/ID."),
        )),
    };
    match routed {
        Ok(body) => Ok(Answer::ok(body)),
        Err(Miss::NotFound(title, line)) => Ok(Answer::html(
            StatusCode::NOT_FOUND,
            layout::not_found(snap, title, &line),
        )),
        Err(Miss::BadQuery(line)) => Ok(Answer::html(
            StatusCode::BAD_REQUEST,
            layout::not_found(snap, "Not a request the board answers", &line),
        )),
        Err(Miss::Failed(f)) => Err(f),
    }
}

fn lane(snap: &Snapshot, key: &str, q: &Params) -> Result<String, Miss> {
    let lane = Lane::parse(key).ok_or_else(|| {
        Miss::NotFound(
            "No such lane",
            String::from("The board's lanes are linked from /."),
        )
    })?;
    let page_no = q.number("page")?.unwrap_or(1);
    Ok(page::board::lane_page(
        snap,
        lane,
        usize::try_from(page_no).unwrap_or(usize::MAX),
    ))
}

fn seat(snap: &Snapshot, raw: &str) -> Result<String, Miss> {
    let name = decode_path_segment(raw)
        .ok_or_else(|| Miss::BadQuery(String::from("The seat's name is not valid UTF-8.")))?;
    page::seats::seat_page(snap, &name).ok_or_else(|| {
        Miss::NotFound(
            "No such seat",
            String::from("No row and no entry of this epoch names that seat; /seats lists them."),
        )
    })
}

fn row(source: &Source, snap: &Snapshot, raw: &str) -> Result<String, Miss> {
    let id: u64 = raw
        .parse()
        .map_err(|_| Miss::BadQuery(String::from("A row's page is /row/ID, ID a row number.")))?;
    if let Some(card) = snap.card(id) {
        let log: Vec<&LogItem> = snap.log.iter().filter(|e| e.touches(id)).collect();
        return Ok(page::row::row_page(snap, card, &log, ReadFrom::Queue));
    }
    match source.archived_row(id)? {
        Some(a) => {
            let log: Vec<&LogItem> = a.log.iter().collect();
            Ok(page::row::row_page(
                snap,
                &a.card,
                &log,
                ReadFrom::Archive(&a.file),
            ))
        }
        None => Err(Miss::NotFound(
            "No such row",
            format!("The queue has no row {id}, and no cut archived one; / lists every row."),
        )),
    }
}

fn timeline(source: &Source, snap: &Snapshot, q: &Params) -> Result<String, Miss> {
    let query = Query {
        seat: q.text("seat")?,
        row: q.number("row")?,
        verb: q.text("verb")?,
        page: usize::try_from(q.number("page")?.unwrap_or(1)).unwrap_or(usize::MAX),
        archived: q.text("archived")?.is_some_and(|v| v == "1"),
    };
    if query.archived {
        let entries = source.archived_log()?;
        return Ok(page::timeline::timeline_page(snap, &query, &entries));
    }
    Ok(page::timeline::timeline_page(snap, &query, &snap.log))
}

/// A page of its own for a queue the board could read but not draw from.
fn failed(snap: &Snapshot, f: &Failure) -> Answer {
    Answer::html(
        StatusCode::INTERNAL_SERVER_ERROR,
        layout::not_found(snap, "This page cannot be read", &f.message),
    )
}

/// The queue cannot be read at all: the line the CLI's reads would print.
fn unreadable(f: &Failure) -> Answer {
    let body = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>mosaic-queue board</title><link rel=\"stylesheet\" href=\"/assets/board.css\"></head><body><main id=\"main\"><h1>The queue cannot be read</h1><p class=\"warn\">{}</p><p>Reload once it is repaired; mosaic-queue doctor says what cures it.</p></main></body></html>\n",
        crate::board::escape::line(&f.message)
    );
    Answer::html(StatusCode::SERVICE_UNAVAILABLE, body)
}

/// A query string's parameters, decoded.
struct Params(Vec<(String, Option<String>)>);

impl Params {
    fn parse(query: &str) -> Params {
        Params(
            query
                .split('&')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (k, v) = p.split_once('=').unwrap_or((p, ""));
                    (k.to_owned(), decode_query_value(v))
                })
                .collect(),
        )
    }

    /// The last value given for `key`; an empty one counts as none.
    fn text(&self, key: &str) -> Result<Option<String>, Miss> {
        match self.0.iter().rev().find(|(k, _)| k == key) {
            None => Ok(None),
            Some((_, None)) => Err(Miss::BadQuery(format!(
                "The value of {key} is not valid percent-encoded UTF-8."
            ))),
            Some((_, Some(v))) if v.trim().is_empty() => Ok(None),
            Some((_, Some(v))) => Ok(Some(v.trim().to_owned())),
        }
    }

    fn number(&self, key: &str) -> Result<Option<u64>, Miss> {
        match self.text(key)? {
            None => Ok(None),
            Some(v) => v
                .trim_start_matches('#')
                .parse::<u64>()
                .map(Some)
                .map_err(|_| Miss::BadQuery(format!("{key} must be a whole number."))),
        }
    }
}
