//! Every fixture through the native core and the sandbox, the same answer required: the
//! golden pairs (alone, against each other and against broken tables and bases), every state
//! of every scenario against earlier and later ones, and the whole bad-input corpus.

use mosaic_queue_core::{Command, GenesisArgs, Queue};
use serde::Deserialize;

use super::{fixtures, md, read, sandbox};
use crate::sandbox::{Caps, native};

/// Runs one case both ways; a mismatch is recorded, not raised, so one run lists them all.
struct Diff {
    cases: usize,
    mismatches: Vec<String>,
}

impl Diff {
    fn new() -> Diff {
        Diff {
            cases: 0,
            mismatches: Vec::new(),
        }
    }

    /// Whether the snapshot passed (natively; the sandbox must agree or it is a mismatch).
    fn case(&mut self, name: &str, json: &[u8], table: &[u8], base: Option<&[u8]>) -> bool {
        self.cases += 1;
        let want = native(json, table, base);
        match sandbox().verify(Caps::shipped(), json, table, base) {
            Ok(got) if got == want => {}
            Ok(got) => self
                .mismatches
                .push(format!("{name}: native {want:?}, sandbox {got:?}")),
            Err(e) => self
                .mismatches
                .push(format!("{name}: native {want:?}, sandbox error {e}")),
        }
        want.is_ok()
    }

    fn finish(self, at_least: usize) {
        assert!(
            self.mismatches.is_empty(),
            "{} of {} cases differ:\n{}",
            self.mismatches.len(),
            self.cases,
            self.mismatches.join("\n")
        );
        assert!(self.cases >= at_least, "only {} cases ran", self.cases);
    }
}

const GOLDEN: [&str; 5] = [
    "basic",
    "genesis-only",
    "semantics1",
    "leases",
    "coordination-semantics7",
];

#[test]
fn golden_pairs_give_one_answer_both_ways() {
    let mut diff = Diff::new();
    let pairs: Vec<(Vec<u8>, Vec<u8>)> = GOLDEN
        .iter()
        .map(|g| {
            (
                read(&format!("golden/{g}/queue.json")),
                md(&read(&format!("golden/{g}/body.md"))),
            )
        })
        .collect();
    let mut passed = 0;
    for (g, (json, table)) in GOLDEN.iter().zip(&pairs) {
        passed += usize::from(diff.case(g, json, table, None));
        diff.case(&format!("{g} over itself"), json, table, Some(json));
        for (other, (base, _)) in GOLDEN.iter().zip(&pairs) {
            diff.case(&format!("{g} over {other}"), json, table, Some(base));
        }
        for (what, bad_base) in [("{}", &b"{}\n"[..]), ("empty", b""), ("not utf-8", b"\xff")] {
            diff.case(
                &format!("{g} over base {what}"),
                json,
                table,
                Some(bad_base),
            );
        }
        let edited = String::from_utf8_lossy(table).replacen('|', "!", 1);
        diff.case(&format!("{g} edited table"), json, edited.as_bytes(), None);
        diff.case(&format!("{g} no markers"), json, b"no markers\n", None);
        diff.case(&format!("{g} table not utf-8"), json, b"\xff\xfe", None);
        diff.case(&format!("{g} empty table"), json, b"", None);
    }
    assert_eq!(passed, GOLDEN.len(), "every golden pair passes on its own");
    diff.finish(36);
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Scenario {
    genesis: GenesisStep,
    steps: Vec<Step>,
}

#[derive(Deserialize)]
struct GenesisStep {
    op: String,
    by: String,
    at: String,
    args: GenesisArgs,
}

#[derive(Deserialize)]
struct Step {
    op: String,
    by: String,
    at: String,
    command: Command,
    #[serde(default)]
    semantics: Option<u8>,
}

/// Every state a scenario writes, as (queue.json, QUEUE.md); refused steps write nothing.
fn states(name: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    let text = read(&format!("scenarios/{name}.json"));
    let sc: Scenario = serde_json::from_slice(&text).expect("scenario parses");
    let g = &sc.genesis;
    let (mut queue, _) =
        Queue::genesis(g.args.clone(), &g.op, &g.by, &g.at).expect("genesis applies");
    let snap = |q: &Queue| (q.to_bytes(), md(q.render_body().as_bytes()));
    let mut out = vec![snap(&queue)];
    for step in &sc.steps {
        let applied = match step.semantics {
            None => queue
                .execute(&step.command, &step.op, &step.by, &step.at)
                .is_ok(),
            Some(sem) => step
                .command
                .normalize(queue.state(), queue.revision() + 1, &step.by, &step.at)
                .and_then(|args| queue.append_entry(args, &step.op, &step.by, &step.at, sem))
                .is_ok(),
        };
        if applied && out.last().is_none_or(|(b, _)| *b != queue.to_bytes()) {
            out.push(snap(&queue));
        }
    }
    out
}

#[test]
fn every_scenario_state_gives_one_answer_both_ways() {
    let mut diff = Diff::new();
    let mut names: Vec<String> = std::fs::read_dir(fixtures().join("scenarios"))
        .expect("scenarios")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.file_stem().expect("stem").to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 3, "scenarios: {names:?}");
    for name in &names {
        let states = states(name);
        assert!(!states.is_empty(), "{name}: no states");
        let first = &states[0];
        for (i, (json, table)) in states.iter().enumerate() {
            diff.case(&format!("{name}@{i}"), json, table, None);
            // An earlier state as base extends; a later one is ahead; the first is genesis.
            let (half, _) = &states[i / 2];
            diff.case(
                &format!("{name}@{i} over @{}", i / 2),
                json,
                table,
                Some(half),
            );
            let (last, _) = states.last().expect("states");
            diff.case(
                &format!("{name}@{i} over the last"),
                json,
                table,
                Some(last),
            );
            diff.case(
                &format!("{name}@{i} with genesis's table"),
                json,
                &first.1,
                None,
            );
        }
    }
    diff.finish(40);
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = fixtures().join("bad");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .expect("fixtures/bad")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && n != "expected.json")
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).expect("corpus file");
            (n, bytes)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn the_bad_input_corpus_gives_one_refusal_both_ways() {
    let mut diff = Diff::new();
    let json = read("golden/basic/queue.json");
    let table = md(&read("golden/basic/body.md"));
    let files = corpus();
    assert!(files.len() >= 110, "only {} corpus files", files.len());
    for (name, bad) in &files {
        assert!(!diff.case(name, bad, &table, None), "{name} passed");
        let as_base = diff.case(&format!("{name} as base"), &json, &table, Some(bad));
        assert!(!as_base, "{name} passed as a base");
    }
    diff.finish(2 * files.len());
}

#[test]
fn a_million_deep_nesting_gives_one_refusal_both_ways() {
    const MILLION: usize = 1_000_000;
    let json = read("golden/basic/queue.json");
    let table = md(&read("golden/basic/body.md"));
    let mut arrays = vec![b'['; MILLION];
    arrays.resize(2 * MILLION, b']');
    arrays.push(b'\n');
    // Inside `set`'s value, the one place the file's nesting is followed.
    let target = "\"value\": \"docs/plans/queue.md#data\"";
    let text = String::from_utf8(json.clone()).expect("utf-8");
    assert_eq!(text.matches(target).count(), 1);
    let deep_value = text.replace(
        target,
        &format!("\"value\": {}{}", "[".repeat(MILLION), "]".repeat(MILLION)),
    );
    let deep_table = md(&arrays);
    let mut diff = Diff::new();
    for (name, bytes) in [("arrays", &arrays), ("set value", &deep_value.into_bytes())] {
        assert!(!diff.case(name, bytes, &table, None), "{name} passed");
        let as_base = diff.case(&format!("{name} as base"), &json, &table, Some(bytes));
        assert!(!as_base, "{name} passed as a base");
    }
    assert!(!diff.case("deep table", &json, &deep_table, None));
    diff.finish(5);
}

/// fixtures/epochs: the queue cut twice, against a base from before both cuts, with its
/// archives packed in, in another order, one missing, or none; and the hand-edited cut files.
#[test]
fn a_cut_queue_gives_one_answer_both_ways_with_its_archives() {
    use crate::sandbox::Inputs;
    use mosaic_queue_core::{sandbox::pack_archives, verify_snapshot_archived};
    use std::borrow::Cow;

    let json = read("epochs/queue.json");
    let table = md(&read("epochs/body.md"));
    let base = read("epochs/base.json");
    let (one, two) = (
        read("epochs/archive/epoch-0001.json"),
        read("epochs/archive/epoch-0002.json"),
    );
    let mut subjects = vec![("queue".to_owned(), json.clone())];
    for entry in std::fs::read_dir(fixtures().join("epochs/bad")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        subjects.push((name, std::fs::read(&path).unwrap()));
    }
    let lists: [(&str, Vec<&[u8]>); 4] = [
        ("both", vec![&one, &two]),
        ("swapped", vec![&two, &one]),
        ("second only", vec![&two]),
        ("none", vec![]),
    ];
    let (mut cases, mut passed) = (0, 0);
    for (name, subject) in &subjects {
        for (which, list) in &lists {
            let want = verify_snapshot_archived(subject, &table, Some(&base), list)
                .map_err(|e| mosaic_queue_core::sandbox::Refusal::from(&e));
            let packed = pack_archives(list);
            let got = sandbox().verify_inputs(
                Caps::shipped(),
                Inputs {
                    json: Cow::Borrowed(subject),
                    md: Cow::Borrowed(&table),
                    base: Some(Cow::Borrowed(&base)),
                    archives: Cow::Borrowed(&packed),
                },
            );
            assert_eq!(got.as_ref().ok(), Some(&want), "{name} with {which}");
            cases += 1;
            passed += usize::from(want.is_ok());
        }
    }
    // The good queue passes with both archives in either order, and so do the three edits
    // plain `verify` accepts that leave the chain alone (only `verify --full` sees those).
    assert_eq!((cases, passed), (40, 2 + 3 * 2));
}
