//! The lock and the unlock gate as doctor sees them: classified the way a writer and `unlock`
//! classify them, never taken or removed.

use super::{Finding, Kind, rel};
use crate::checkout::Paths;
use crate::store::lock::{self, Class};
use crate::store::world::World;

/// What the lock said, for the queue checks that follow: a live writer explains a tail in
/// flight, and a dead writer's op may be in the log without its receipt.
#[derive(Debug, Default)]
pub(super) struct Seen {
    pub live_writer: bool,
    /// The op of a dead or mismatched lock's holder.
    pub dead_op: Option<String>,
}

pub(super) fn inspect(world: World<'_>, paths: &Paths, out: &mut Vec<Finding>) -> Seen {
    let (io, probe) = (world.io, world.probe);
    let mut seen = Seen::default();
    let gate = rel(paths, &paths.gate);
    match lock::inspect(io, probe, &paths.gate) {
        Ok(None) => {}
        Ok(Some(class)) => out.push(gate_finding(&gate, class)),
        Err(e) => out.push(Finding::person(Kind::GateInvalid, e.to_string())),
    }
    let name = rel(paths, &paths.lock);
    match lock::inspect(io, probe, &paths.lock) {
        Ok(None) => {}
        Ok(Some(class)) => {
            seen.live_writer = matches!(class, Class::Live(_));
            if matches!(
                class,
                Class::Dead(_) | Class::Rebooted(_) | Class::Mismatch(_)
            ) {
                seen.dead_op = class.holder().and_then(|h| h.op.clone());
            }
            out.push(lock_finding(&name, class));
        }
        Err(e) => out.push(Finding::person(Kind::LockInvalid, e.to_string())),
    }
    seen
}

fn lock_finding(name: &str, class: Class) -> Finding {
    let by_hand = |host: &str| {
        format!(
            "the queue lock {name} is {class}; a person must check that no queue command is running{host}, then remove it by hand (`rm {name}`)"
        )
    };
    match &class {
        Class::Live(_) => Finding::note(
            Kind::LockLive,
            format!(
                "the queue lock {name} is {class}; writers wait for it, and what follows may change when that command ends"
            ),
        ),
        Class::Dead(_) | Class::Rebooted(_) => Finding::act(
            Kind::LockDead,
            format!("the queue lock {name} is {class}; every writer refuses until it is removed"),
            "mosaic-queue unlock",
        ),
        Class::Mismatch(_) => Finding::act(
            Kind::LockMismatch,
            format!("the queue lock {name} is {class}; every writer refuses until it is removed"),
            "mosaic-queue unlock",
        ),
        Class::Unknown(h) => Finding::person(
            Kind::LockUnknown,
            by_hand(&format!(
                " on host {}",
                mosaic_queue_core::one_line(&h.host)
            )),
        ),
        Class::Invalid(_) => Finding::person(Kind::LockInvalid, by_hand("")),
    }
}

fn gate_finding(gate: &str, class: Class) -> Finding {
    let refuses = "`mosaic-queue unlock` refuses while it exists";
    match &class {
        Class::Live(_) => Finding::note(
            Kind::GateLive,
            format!("the unlock gate {gate} is {class}; it goes when that unlock ends"),
        ),
        Class::Dead(_) | Class::Rebooted(_) => Finding::act(
            Kind::GateDead,
            format!(
                "the unlock gate {gate} is {class}; {refuses}, and an unlock that died holds nothing"
            ),
            format!("rm {gate}"),
        ),
        Class::Mismatch(_) => Finding::act(
            Kind::GateMismatch,
            format!(
                "the unlock gate {gate} is {class}; {refuses}, and an unlock that died holds nothing"
            ),
            format!("rm {gate}"),
        ),
        Class::Unknown(_) => Finding::person(
            Kind::GateUnknown,
            format!(
                "the unlock gate {gate} is {class}; {refuses}: a person must make sure no queue command is running anywhere, then remove it by hand (`rm {gate}`)"
            ),
        ),
        Class::Invalid(_) => Finding::person(
            Kind::GateInvalid,
            format!(
                "the unlock gate {gate} is {class}; {refuses}: a person must make sure no queue command is running, then remove it by hand (`rm {gate}`)"
            ),
        ),
    }
}
