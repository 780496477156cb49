//! The pre-commit guard as doctor sees it: installed, ours, and not bypassed by
//! `core.hooksPath`. It is the one check doctor makes through git; a git that cannot be started
//! or fails is a finding of its own, never a guard silently taken as fine.

use super::{Finding, Kind};
use crate::checkout::Paths;
use crate::store::guard;
use crate::store::world::{Guard, Repository};

/// The guard's state as the repository reports it, as a finding; before the first commit
/// there is nothing it guards.
pub(super) fn inspect(repo: &dyn Repository, paths: &Paths, out: &mut Vec<Finding>) {
    const INSTALL: &str = "; install it with `mosaic-queue install-hook`";
    match repo.guard(paths) {
        Guard::Fine => {}
        Guard::NoSource => out.push(Finding::person(
            Kind::Guard,
            format!(
                "HEAD has no {}, so there is no guard to install; commit it, then run `mosaic-queue install-hook --by jason`",
                guard::HOOK_SOURCE
            ),
        )),
        Guard::Off(why) if why.ends_with(INSTALL) => out.push(Finding::act(
            Kind::Guard,
            why.trim_end_matches(INSTALL),
            "mosaic-queue install-hook --by jason",
        )),
        // core.hooksPath, or HEAD without the hook's source: what to do is in the reason.
        Guard::Off(why) => out.push(Finding::person(Kind::Guard, why)),
        Guard::Unchecked(why) => out.push(unchecked(&why)),
    }
}

/// git could not be started, or failed where it should have answered: the guard is unknown.
fn unchecked(why: &str) -> Finding {
    let next = if crate::git::could_not_run(why) {
        "install git or put it on PATH"
    } else {
        "fix what git says"
    };
    Finding::person(
        Kind::GuardUnchecked,
        format!("the guard was not checked: {why}; {next}, then run `mosaic-queue doctor` again"),
    )
}
