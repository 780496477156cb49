//! The session tested in memory: its rules (`rules`), the crash states of every verb under both
//! models (`power`) and the I/O-fault sweep (`sweep`), each in full and with its figures
//! asserted exactly, over the scenarios the verbs are recorded in (`scenarios`).

mod check;
mod gitea;
mod leases;
mod power;
mod rules;

mod scenarios;
mod sweep;

/// For each scenario: the crash states the ext4 and the weak model allow, how many of each
/// a person's decision settles (a review request that may have been posted), the calls its run
/// makes (each failed with every fault), how those faulted runs ended (done / exit 1 / exit 3)
/// and how many of their distinct outcomes a person settles. Each figure is counted by the
/// run, so a change in what the code does shows here.
macro_rules! scenario {
    ($name:ident: $setup:ident, states $ext4:literal / $weak:literal, person $pe:literal / $pw:literal,
     calls $calls:literal, ended $ok:literal / $failed:literal / $uncertain:literal, person $ps:literal) => {
        mod $name {
            #[test]
            fn power_loss() {
                let (ext4, weak) = super::power::enumerate(&super::scenarios::$setup());
                assert_eq!(
                    (ext4.unsafe_states, weak.unsafe_states),
                    (0, 0),
                    "unsafe crash states: {:?} {:?}",
                    ext4.failures,
                    weak.failures
                );
                assert_eq!((ext4.states, weak.states), ($ext4, $weak), "states");
                assert_eq!(
                    (ext4.person, weak.person),
                    ($pe, $pw),
                    "settled by a person"
                );
            }

            #[test]
            fn io_faults() {
                let swept = super::sweep::sweep(&super::scenarios::$setup());
                assert!(
                    swept.broken.is_empty(),
                    "I/O faults handled wrongly:\n{}",
                    swept.broken.join("\n")
                );
                assert_eq!(swept.calls, $calls, "calls");
                assert_eq!(
                    swept.ended,
                    ($ok, $failed, $uncertain),
                    "done / exit 1 / exit 3"
                );
                assert_eq!(swept.person, $ps, "outcomes settled by a person");
            }
        }
    };
}

scenario!(add: add, states 23 / 53, person 0 / 0, calls 41, ended 90 / 90 / 66, person 0);
scenario!(moves: move_to_in_progress, states 23 / 53, person 0 / 0, calls 41, ended 90 / 90 / 66, person 0);
scenario!(move_in_review: move_in_review, states 23 / 53, person 0 / 0, calls 41, ended 90 / 90 / 66, person 0);
scenario!(request_on_move: request_on_move, states 61 / 156, person 32 / 74, calls 82, ended 168 / 90 / 234, person 5);
scenario!(request_again: request_again, states 61 / 156, person 32 / 74, calls 82, ended 168 / 90 / 234, person 5);
scenario!(resolve: resolve, states 28 / 61, person 0 / 0, calls 51, ended 96 / 144 / 66, person 0);
scenario!(abandon: abandon, states 24 / 57, person 0 / 0, calls 41, ended 90 / 90 / 66, person 0);
scenario!(record: record, states 22 / 51, person 0 / 0, calls 41, ended 90 / 90 / 66, person 0);
scenario!(release: release, states 23 / 53, person 0 / 0, calls 41, ended 90 / 90 / 66, person 0);
scenario!(assign: assign, states 23 / 53, person 0 / 0, calls 41, ended 90 / 90 / 66, person 0);
scenario!(note: note, states 23 / 53, person 0 / 0, calls 41, ended 90 / 90 / 66, person 0);
scenario!(set: set, states 23 / 53, person 0 / 0, calls 41, ended 90 / 90 / 66, person 0);
scenario!(take: take, states 23 / 53, person 0 / 0, calls 41, ended 90 / 90 / 66, person 0);
scenario!(take_reclaim: take_reclaim, states 33 / 93, person 0 / 0, calls 47, ended 126 / 90 / 66, person 0);
scenario!(reclaim: reclaim, states 23 / 53, person 0 / 0, calls 42, ended 96 / 90 / 66, person 0);
scenario!(genesis: genesis, states 24 / 57, person 0 / 0, calls 39, ended 102 / 66 / 66, person 0);
scenario!(accept_history: accept_history, states 21 / 47, person 0 / 0, calls 41, ended 90 / 90 / 66, person 0);
scenario!(archive: archive, states 29 / 77, person 0 / 0, calls 52, ended 108 / 138 / 66, person 0);
scenario!(archive_again: archive_again, states 27 / 71, person 0 / 0, calls 53, ended 108 / 144 / 66, person 0);
scenario!(render: render, states 9 / 17, person 0 / 0, calls 19, ended 42 / 72 / 0, person 0);
scenario!(sync: sync, states 16 / 33, person 0 / 0, calls 32, ended 78 / 54 / 60, person 0);
scenario!(sync_after_cut: sync_after_cut, states 16 / 33, person 0 / 0, calls 34, ended 78 / 66 / 60, person 0);
scenario!(unlock: unlock, states 7 / 7, person 0 / 0, calls 16, ended 24 / 72 / 0, person 0);
scenario!(commit: commit, states 5 / 5, person 0 / 0, calls 11, ended 24 / 42 / 0, person 0);
