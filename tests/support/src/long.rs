//! A long queue built fast: genesis and then note after note applied by the core in memory
//! (not one process per entry), written as the binary writes it (queue.json, the table, the
//! witness) into a committed canonical checkout. What the cut's tests and its benchmark start
//! from.

use std::path::{Path, PathBuf};

use mosaic_queue_core::{Command, NoteArgs, Queue, markdown, migration, sha256_hex, to_canonical};

use crate::bench::{BENCH_QUEUE_MD, new_repo};
use crate::repo::git;

/// The time every entry of a long queue carries.
const AT: &str = "2026-01-01T00:00:00.000Z";

/// A committed checkout at `<dir>/repo` whose queue holds `rows` queued rows (from genesis)
/// and then `notes` notes by the lead, one entry each, round robin over the rows: `notes + 1`
/// entries. Returns its root.
pub fn long_checkout(dir: &Path, rows: u64, notes: u64) -> PathBuf {
    let (root, blob) = new_repo(dir, BENCH_QUEUE_MD);
    let mut map = format!(
        "source: docs/plans/QUEUE.md blob {blob}\n\n\
         | # | Piece | Owner | Status | Gate | Issues | Note |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n"
    );
    for id in 1..=rows {
        map.push_str(&format!(
            "| {id} | Piece {id} | | queued | | #{} | |\n",
            100 + id
        ));
    }
    let map = migration::parse(&map).expect("the map parses");
    let args = map
        .genesis_args("main", &root.to_string_lossy(), BENCH_QUEUE_MD)
        .expect("the markers are there");
    let (mut queue, _) = Queue::genesis(args, "bench-genesis", "jason", AT).expect("genesis");
    for n in 1..=notes {
        let note = Command::Note(NoteArgs {
            id: 1 + (n - 1) % rows,
            text: Some(format!("note {n}")),
        });
        queue
            .execute(&note, &format!("lead-note-{n}"), "lead", AT)
            .expect("a note applies");
    }
    write(&root, &queue);
    git(&root, &["add", "docs/plans"]);
    git(&root, &["commit", "-q", "-m", "a long queue"]);
    root
}

/// Writes `queue` as the binary's durable write leaves it: queue.json, the table between
/// QUEUE.md's markers, and the witness.
pub fn write(root: &Path, queue: &Queue) {
    let bytes = queue.to_bytes();
    let witness = queue.witness(sha256_hex(&bytes), AT.to_owned());
    let md_path = root.join("docs/plans/QUEUE.md");
    let md = std::fs::read_to_string(&md_path).expect("QUEUE.md");
    let md = markdown::splice(&md, &queue.render_body()).expect("the markers are there");
    std::fs::write(root.join("docs/plans/queue.json"), bytes).expect("write queue.json");
    std::fs::write(md_path, md).expect("write QUEUE.md");
    std::fs::write(root.join(".git/mosaic-queue.head"), to_canonical(&witness))
        .expect("write the witness");
}
