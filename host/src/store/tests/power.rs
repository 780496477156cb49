//! Power loss by enumeration, in memory and in full: one recorded run of a scenario, every
//! state the ext4 `data=ordered` model and the weak model allow, and each state judged by what
//! a person runs next after the reboot. Prints the figures docs/durability.md tables.

use std::collections::BTreeSet;

use super::check::{Judge, Verdict, receipts_of};
use super::gitea::Gitea;
use super::scenarios::Scenario;
use crate::io::crash::Trace;
use crate::io::trace::Tracer;

/// The figures of one scenario under one model.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub states: usize,
    pub unsafe_states: usize,
    /// States healed after a person's decision the contract leaves to a person.
    pub person: usize,
    /// The most commands doctor named for one state before it was healthy.
    pub most_steps: usize,
    /// The first unsafe states, each with why.
    pub failures: Vec<String>,
}

/// Records the scenario's run and judges every state of both models: the tallies of ext4 and
/// of the weak model, each naming its first unsafe states (the caller asserts there are none).
pub fn enumerate(s: &Scenario) -> (Tally, Tally) {
    let run = s.checkout.clone();
    let gitea = Gitea::default();
    gitea.set_comments(s.gitea.comments());
    let tracer = Tracer::memory();
    let ran = s.run.exec(&run.process(Some(&tracer)), &gitea);
    assert!(ran.is_ok(), "the recorded run of {}: {ran:?}", s.name);
    let trace = Trace::new(&tracer.events(), |p| s.checkout.disk.get(p));
    let judge = Judge {
        scenario: s,
        before: receipts(s),
        reboot: true,
        comments: (s.gitea.comments(), gitea.comments()),
    };
    let mut tallies = Vec::new();
    for (model, states) in [("ext4", trace.ext4_states()), ("weak", trace.weak_states())] {
        let mut tally = Tally {
            states: states.len(),
            ..Tally::default()
        };
        for (i, state) in states.iter().enumerate() {
            match judge.check(state) {
                Verdict::Healed(steps) => tally.most_steps = tally.most_steps.max(steps),
                Verdict::Person(steps, _) => {
                    tally.person += 1;
                    tally.most_steps = tally.most_steps.max(steps);
                }
                Verdict::Unsafe(why) => {
                    tally.unsafe_states += 1;
                    if tally.failures.len() < 5 {
                        tally
                            .failures
                            .push(format!("{} {model} state {i}: {why}", s.name));
                    }
                }
            }
        }
        eprintln!(
            "crash-states | {} | {model} | {} | {} | {} | {} |",
            s.name, tally.states, tally.unsafe_states, tally.person, tally.most_steps
        );
        tallies.push(tally);
    }
    let weak = tallies.pop().unwrap_or_default();
    (tallies.pop().unwrap_or_default(), weak)
}

/// Every receipt in the checkout's log before the run.
pub fn receipts(s: &Scenario) -> BTreeSet<String> {
    let queue = s.checkout.disk.get(&s.checkout.paths.queue_json);
    receipts_of(queue.as_deref()).into_iter().collect()
}
