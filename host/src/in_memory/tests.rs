//! The engine in memory: requests as a face builds them, run by `engine::run_in` on a checkout
//! in memory, each answered with the exact document and exit code `--json` gives.

use std::path::PathBuf;

use super::{Checkout, NOW, ROOT};
use crate::engine::{self, Change, Policy, Request};
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

/// `list`'s table is the table QUEUE.md holds, one rendering: for every golden fixture and the
/// cut queue's, read from queue.json alone and from the read view, its text is the body the
/// fixture's checked-in `body.md` holds (the body that queue's last entry hashes), then its
/// claims section when it has leased claims.
#[test]
fn list_prints_the_table_queue_md_holds_for_every_fixture() {
    use mosaic_queue_core::{Queue, sha256_hex, to_canonical};

    use crate::io::Io;
    use crate::reply::Gathered;
    use crate::store::view::{self, Written};

    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures.join("golden"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    dirs.push(fixtures.join("epochs"));
    assert!(dirs.len() >= 9, "{dirs:?}");
    for dir in dirs {
        let name = dir.display().to_string();
        let bytes = std::fs::read(dir.join("queue.json")).unwrap();
        let body = std::fs::read_to_string(dir.join("body.md")).unwrap();
        let queue = Queue::verify(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let state = queue.state();
        let c = Checkout::at(
            state.root.as_deref().unwrap(),
            state.branch.as_deref().unwrap(),
        );
        c.disk.put(&c.paths.queue_json, &bytes);
        c.disk.put(
            &c.paths.queue_md,
            format!("<!-- mosaic-queue:begin -->\n{body}<!-- mosaic-queue:end -->\n").as_bytes(),
        );
        let sha = sha256_hex(&bytes);
        let witness = queue.witness_after(None, sha.clone(), NOW.to_owned());
        c.disk.put(&c.paths.witness, &to_canonical(&witness));
        let listed = || {
            let process = c.process(None);
            let mut gathered = Gathered::new(false);
            let result = engine::run_in(
                Request::List,
                process.world(),
                &c.paths,
                &Policy::local(),
                &mut gathered,
            );
            let done = gathered.finish("list", false, &result);
            assert_eq!(done.exit, 0, "{name}: {}", done.document);
            let doc: serde_json::Value = serde_json::from_str(&done.document).unwrap();
            // The document holds the text without its last newline.
            format!("{}\n", doc["text"].as_str().unwrap())
        };
        let head = format!("rev {}\n{body}", queue.revision());
        let from_file = listed();
        let rest = from_file
            .strip_prefix(&head)
            .unwrap_or_else(|| panic!("{name}: list printed\n{from_file}\nQUEUE.md holds\n{body}"));
        assert!(
            rest.is_empty() || rest.starts_with("\n**Claims**\n"),
            "{name}: {rest}"
        );
        // The view a write records beside it: the same text, read without a replay.
        let io = c.disk.io(None);
        let id = io.file_id(&c.paths.queue_json).unwrap();
        view::record(
            &io,
            &c.paths,
            &queue,
            &sha,
            Some(Written { bytes: &bytes, id }),
        );
        assert!(
            view::load(&io, &c.paths, &witness).is_some(),
            "{name}: the view is not current"
        );
        assert_eq!(listed(), from_file, "{name}: from the read view");
    }
}
