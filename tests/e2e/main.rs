//! The end-to-end tests: one binary whose modules each drive the real `mosaic-queue` in scratch
//! git checkouts (or, in `gitea`, the client against the fake Gitea). Shared set-up is the
//! dev-only `support` crate beside this folder; a new file here is declared below, and
//! `every_file_is_a_module` fails until it is.

mod board_browser;
mod board_claims;
mod board_http;
mod cli_admin;
mod cli_archive;
mod cli_ci_recipe;
mod cli_commit;
mod cli_concurrency;
mod cli_coord;
mod cli_cut_tail;
mod cli_demo_pipe;
mod cli_doctor;
mod cli_git;
mod cli_hostile;
mod cli_kill;
mod cli_leases;
mod cli_limits;
mod cli_locks;
mod cli_messages;
mod cli_no_git;
mod cli_numbers;
mod cli_prime;
mod cli_recovery;
mod cli_refusals;
mod cli_review;
mod cli_review_commit;
mod cli_review_creds;
mod cli_review_kill;
mod cli_review_resolve;
mod cli_review_rounds;
mod cli_sandbox;
mod cli_surface;
mod cli_unlistable;
mod cli_verbs;
mod cli_view;
mod crash_states;
mod gate_edges;
mod gate_refusals;
mod gate_ssh;
mod gate_ssh_docs;
mod gitea;
mod house;
mod mcp_answers;
mod mcp_edges;
mod mcp_protocol;
mod mcp_start;
mod mcp_tools;
mod replication_faces;
mod replication_hostile;
mod replication_kill;
mod replication_soak;

// The kill points, lowered caps, deadlines and lock waits these tests use exist only in the
// `fault-injection` build; the host's dev-dependency on itself turns it on for every test
// build, so this stops only a build that lost it.
#[cfg(not(feature = "fault-injection"))]
compile_error!(
    "the end-to-end tests need the fault-injection build: cargo test -p mosaic-queue --features fault-injection"
);

/// A test file in this folder that no `mod` line names would never compile or run.
#[test]
fn every_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/e2e");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(module) = name.strip_suffix(".rs")
            && module != "main"
            && !main.lines().any(|l| l == format!("mod {module};"))
        {
            missing.push(module.to_owned());
        }
    }
    assert!(
        missing.is_empty(),
        "declare in tests/e2e/main.rs: mod {};",
        missing.join("; mod ")
    );
}
