//! The session tested in memory: its rules (`rules`), the crash states of every verb under both
//! models (`power`) and the I/O-fault sweep (`sweep`), each in full and with its figures
//! asserted exactly, over the scenarios the verbs are recorded in (`scenarios`).

mod check;
mod gitea;
mod power;
mod rules;

mod scenarios;
mod sweep;

/// For each scenario: the crash states the ext4 and the weak model allow, how many of each
/// a person's decision settles (a review request that may have been posted), and the calls
/// its run makes (each failed with every fault: six runs a call).
macro_rules! scenario {
    ($name:ident: $setup:ident, states $ext4:literal / $weak:literal, person $pe:literal / $pw:literal, calls $calls:literal) => {
        mod $name {
            #[test]
            fn power_loss() {
                let (ext4, weak) = super::power::enumerate(&super::scenarios::$setup());
                assert_eq!((ext4.states, weak.states), ($ext4, $weak), "states");
                assert_eq!((ext4.unsafe_states, weak.unsafe_states), (0, 0), "unsafe");
                assert_eq!(
                    (ext4.person, weak.person),
                    ($pe, $pw),
                    "settled by a person"
                );
            }

            #[test]
            fn io_faults() {
                let swept = super::sweep::sweep(&super::scenarios::$setup());
                assert_eq!(swept.calls, $calls, "calls");
                assert_eq!(swept.runs, $calls * 6, "runs");
            }
        }
    };
}

scenario!(add: add, states 23 / 53, person 0 / 0, calls 40);
scenario!(moves: move_to_in_progress, states 23 / 53, person 0 / 0, calls 40);
scenario!(move_in_review: move_in_review, states 23 / 53, person 0 / 0, calls 40);
scenario!(request_on_move: request_on_move, states 61 / 156, person 32 / 74, calls 80);
scenario!(request_again: request_again, states 61 / 156, person 32 / 74, calls 80);
scenario!(resolve: resolve, states 28 / 61, person 0 / 0, calls 50);
scenario!(abandon: abandon, states 24 / 57, person 0 / 0, calls 40);
scenario!(record: record, states 22 / 51, person 0 / 0, calls 40);
scenario!(release: release, states 23 / 53, person 0 / 0, calls 40);
scenario!(assign: assign, states 23 / 53, person 0 / 0, calls 40);
scenario!(note: note, states 23 / 53, person 0 / 0, calls 40);
scenario!(set: set, states 23 / 53, person 0 / 0, calls 40);
scenario!(take: take, states 23 / 53, person 0 / 0, calls 40);
scenario!(genesis: genesis, states 24 / 57, person 0 / 0, calls 39);
scenario!(accept_history: accept_history, states 21 / 47, person 0 / 0, calls 40);
scenario!(archive: archive, states 29 / 77, person 0 / 0, calls 51);
scenario!(archive_again: archive_again, states 27 / 71, person 0 / 0, calls 52);
scenario!(render: render, states 9 / 17, person 0 / 0, calls 19);
scenario!(sync: sync, states 16 / 33, person 0 / 0, calls 32);
scenario!(sync_after_cut: sync_after_cut, states 16 / 33, person 0 / 0, calls 34);
scenario!(unlock: unlock, states 7 / 7, person 0 / 0, calls 15);
scenario!(commit: commit, states 5 / 5, person 0 / 0, calls 11);
