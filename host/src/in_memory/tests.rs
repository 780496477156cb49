//! The engine in memory: requests as a face builds them, run by `engine::run_in` on a checkout
//! in memory, each answered with the exact document and exit code `--json` gives.

use std::path::PathBuf;

use super::{Checkout, ROOT};
use crate::engine::{Change, Policy, Request};
use crate::reply::Finished;

/// `list` after genesis: the three rows of the map, durable.
const LISTED: &str = r#"{
  "revision": 1,
  "durable": true,
  "rows": [
    {
      "id": 1,
      "piece": "Parser",
      "owner": "darkwing",
      "status": "queued",
      "gate": null,
      "issues": [
        12,
        14
      ],
      "closes": [
        12,
        14
      ],
      "closesNarrowed": false,
      "reviewers": [],
      "brief": null,
      "note": "first",
      "blockedReason": null,
      "review": null
    },
    {
      "id": 2,
      "piece": "Render",
      "owner": null,
      "status": "queued",
      "gate": "jason",
      "issues": [
        20
      ],
      "closes": [
        20
      ],
      "closesNarrowed": false,
      "reviewers": [],
      "brief": null,
      "note": null,
      "blockedReason": null,
      "review": null
    },
    {
      "id": 3,
      "piece": "Old thing",
      "owner": "sage",
      "status": "parked",
      "gate": null,
      "issues": [],
      "closes": [],
      "closesNarrowed": false,
      "reviewers": [],
      "brief": null,
      "note": "later",
      "blockedReason": null,
      "review": null
    }
  ]
}
"#;

/// `show 2` after genesis.
const SHOWN: &str = r#"{
  "revision": 1,
  "durable": true,
  "row": {
    "id": 2,
    "piece": "Render",
    "owner": null,
    "status": "queued",
    "gate": "jason",
    "issues": [
      20
    ],
    "closes": [
      20
    ],
    "closesNarrowed": false,
    "reviewers": [],
    "brief": null,
    "note": null,
    "blockedReason": null,
    "review": null
  }
}
"#;

/// `note 2` by jason: the change's receipt object.
const NOTED: &str = r#"{
  "op": "note-0001",
  "revision": 2,
  "verb": "note",
  "row": 2,
  "recorded": false,
  "text": "ok note-0001 rev 2 note 2"
}
"#;

/// `take` by darkwing: the receipt, with row 1 as it now stands.
const TAKEN: &str = r#"{
  "op": "take-0001",
  "revision": 2,
  "verb": "take",
  "row": 1,
  "recorded": false,
  "text": "ok take-0001 rev 2 take 1 queued -> in-progress",
  "current": {
    "id": 1,
    "piece": "Parser",
    "owner": "darkwing",
    "status": "in-progress",
    "gate": null,
    "issues": [
      12,
      14
    ],
    "closes": [
      12,
      14
    ],
    "closesNarrowed": false,
    "reviewers": [],
    "brief": null,
    "note": "first",
    "blockedReason": null,
    "review": null
  }
}
"#;

/// `note 2 --by jason` through sage's remote key: refused before anything runs.
const REFUSED: &str = r#"{
  "error": {
    "exit": 2,
    "kind": "actor-pinned",
    "message": "refused: this key acts as sage only, not jason; leave --by out, since every command through it acts as sage",
    "next": "leave --by out, since every command through it acts as sage",
    "retryable": false
  }
}
"#;

fn change(op: &str, by: &str) -> Change {
    Change {
        op: op.to_owned(),
        by: Some(by.to_owned()),
        replication_timeout: None,
    }
}

fn note(op: &str, by: &str) -> Request {
    Request::Note {
        id: 2,
        text: "needs the new parser".to_owned(),
        change: change(op, by),
    }
}

/// `request` run locally on a checkout after genesis: its document and exit code.
fn local(c: &Checkout, request: Request) -> (String, i32) {
    let Finished { document, exit, .. } = c.engine(request, &Policy::local());
    (document, exit)
}

#[test]
fn list() {
    let c = Checkout::genesis();
    let (doc, exit) = local(&c, Request::List);
    assert_eq!((doc.as_str(), exit), (LISTED, 0));
}

#[test]
fn show() {
    let c = Checkout::genesis();
    let (doc, exit) = local(&c, Request::Show { id: 2 });
    assert_eq!((doc.as_str(), exit), (SHOWN, 0));
}

#[test]
fn note_receipt() {
    let c = Checkout::genesis();
    let (doc, exit) = local(&c, note("note-0001", "jason"));
    assert_eq!((doc.as_str(), exit), (NOTED, 0));
    let queue = c.queue().expect("queue.json verifies");
    let row = queue.state().row(2).expect("row 2");
    assert_eq!(row.note.as_deref(), Some("needs the new parser"));
}

#[test]
fn take() {
    let c = Checkout::genesis();
    let request = Request::Take {
        lease: None,
        no_reclaim: false,
        change: change("take-0001", "darkwing"),
    };
    let (doc, exit) = local(&c, request);
    assert_eq!((doc.as_str(), exit), (TAKEN, 0));
}

#[test]
fn remote_refuses_another_actor() {
    let c = Checkout::genesis();
    let policy = Policy::remote("sage".to_owned(), PathBuf::from(ROOT));
    let Finished { document, exit, .. } = c.engine(note("note-0001", "jason"), &policy);
    assert_eq!((document.as_str(), exit), (REFUSED, 2));
    assert_eq!(c.queue().map(|q| q.revision()), Some(1), "nothing written");
}

/// A request that reaches the real checkout itself is refused in a world of its own, rather
/// than run on the working directory.
#[test]
fn a_request_of_the_real_world_alone_is_refused_in_memory() {
    let c = Checkout::genesis();
    let done = c.engine(
        crate::engine::Request::Doctor,
        &crate::engine::Policy::local(),
    );
    assert_eq!(done.exit, 1);
    let doc: serde_json::Value = serde_json::from_str(&done.document).unwrap();
    assert_eq!(
        doc["error"]["message"],
        "doctor runs on the real checkout only; run it with engine::run"
    );
}
